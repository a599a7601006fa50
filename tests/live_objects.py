"""Live objects made and read through the sandbox's API, as a person would, for the tests that
arrange an organization by hand or check what an apply left: one home for what kind, engine
and workflow tests each wrote again (``planning.live_api`` underneath)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planning import live_api

ORG_PATH = "/orgs/org_acme"
DOCS = f"{ORG_PATH}/sites/site_docs"


def create_collection(sandbox: Path, title: str, parent: str | None = None) -> str:
    """A live collection made through the API; returns its id."""
    body: dict[str, Any] = {"title": title}
    if parent is not None:
        body["parent"] = parent
    return str(live_api(sandbox, "POST", f"{ORG_PATH}/collections", body)["id"])


def create_space(sandbox: Path, title: str, parent: str | None = None) -> str:
    """A live space made through the API; returns its id."""
    body: dict[str, Any] = {"title": title}
    if parent is not None:
        body["parent"] = parent
    return str(live_api(sandbox, "POST", f"{ORG_PATH}/spaces", body)["id"])


def create_team(sandbox: Path, title: str, members: dict[str, str] | None = None) -> str:
    """A live team made through the API, with ``members`` (email -> team role); returns its id."""
    team = live_api(sandbox, "PUT", f"{ORG_PATH}/teams", {"title": title})
    if members:
        roles = {email: {"role": role} for email, role in members.items()}
        body = {"add": list(members), "memberships": roles}
        live_api(sandbox, "PUT", f"{ORG_PATH}/teams/{team['id']}/members", body)
    return str(team["id"])


def collection(sandbox: Path, collection_id: str) -> dict[str, Any]:
    result: dict[str, Any] = live_api(sandbox, "GET", f"/collections/{collection_id}")
    return result


def space(sandbox: Path, space_id: str) -> dict[str, Any]:
    result: dict[str, Any] = live_api(sandbox, "GET", f"/spaces/{space_id}")
    return result


def live_titles(sandbox: Path, kind: str) -> dict[str, str]:
    """Title -> id of the live collections or spaces of org_acme."""
    items = live_api(sandbox, "GET", f"{ORG_PATH}/{kind}")["items"]
    return {item["title"]: item["id"] for item in items}


def space_id(sandbox: Path, title: str, org_path: str = ORG_PATH) -> str:
    """The id of the live space titled ``title`` (the first listed)."""
    spaces = live_api(sandbox, "GET", f"{org_path}/spaces")["items"]
    return str(next(s["id"] for s in spaces if s["title"] == title))


def team_members(sandbox: Path, team_id: str) -> dict[str, str]:
    """Email -> team role of a live team."""
    items = live_api(sandbox, "GET", f"{ORG_PATH}/teams/{team_id}/members")["items"]
    return {i["organization"]["user"]["email"]: i["team"]["role"] for i in items}


def top_level(sandbox: Path, site_path: str = DOCS) -> list[str]:
    """The titles of a site's navigation, top level only, in order."""
    structure = live_api(sandbox, "GET", f"{site_path}/structure")["structure"]
    return [item["title"] for item in structure]
