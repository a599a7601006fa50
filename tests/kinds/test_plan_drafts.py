"""End to end: ``draft`` on sections, section groups and site spaces.

Made a draft by hand (as an admin in the UI would), each is exported with ``draft: true``, plans
as no change, a one-field edit plans exactly that change, and drift names who made a draft
public by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    change,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
ALICE = "alice@acme.test"
TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
BASE = """\
organization: {id: org_acme}
members: {alice@acme.test: admin}
spaces: {handbook: {title: Handbook}}
sites: {docs: {id: site_docs}}
"""


def drafts_by_hand(sandbox: Path) -> dict[str, str]:
    """A draft section (its first site space a draft too) and a draft group, made in the UI;
    the live path of each object's kind by the address export gives it."""
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    handbook = next(s["id"] for s in spaces if s["title"] == "Handbook")
    section = in_ui(
        sandbox, ALICE, "POST", f"{DOCS}/sections", {"spaceId": handbook, "draft": True}
    )
    site_space = section["siteSpaces"][0]["id"]
    in_ui(sandbox, ALICE, "PATCH", f"{DOCS}/site-spaces/{site_space}", {"draft": True})
    group = in_ui(
        sandbox, ALICE, "POST", f"{DOCS}/section-groups", {"title": "Soon", "draft": True}
    )
    return {
        "section": f"{DOCS}/sections/{section['id']}",
        "group": f"{DOCS}/section-groups/{group['id']}",
        "space": f"{DOCS}/site-spaces/{site_space}",
    }


def live_draft(sandbox: Path, path: str) -> bool:
    """The live ``draft`` of the object at ``path``, read from its site's list of its kind."""
    listed, _, object_id = path.rpartition("/")
    return bool(
        next(o["draft"] for o in live_api(sandbox, "GET", listed)["items"] if o["id"] == object_id)
    )


def exported_drafts(tmp_path: Path, sandbox: Path) -> tuple[Path, dict[str, str]]:
    applied = write_manifests(tmp_path / "applied", BASE)
    apply(applied, sandbox)
    live = drafts_by_hand(sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    return exported, live


def draft_holders(site: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The exported site's entries that can be drafts, by the kind of object they are."""
    [section] = site["sections"].values()
    [group] = site["sectionGroups"].values()
    [space] = section["spaces"].values()
    return {"section": section, "group": group, "space": space}


def only_site(document: dict[str, Any]) -> dict[str, Any]:
    site: dict[str, Any] = next(iter(document["sites"].values()))
    return site


def sites_file(exported: Path) -> tuple[Path, dict[str, Any]]:
    for path in sorted(exported.glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        if isinstance(document, dict) and "sites" in document:
            return path, document
    raise AssertionError(f"no sites in {exported}")


def test_drafts_made_by_hand_export_as_drafts_and_plan_no_change(
    tmp_path: Path, sandbox: Path
) -> None:
    exported, _ = exported_drafts(tmp_path, sandbox)
    _, document = sites_file(exported)
    holders = draft_holders(only_site(document))
    assert {name: entry.get("draft") for name, entry in holders.items()} == dict.fromkeys(
        holders, True
    )
    assert_converged(exported, sandbox)


@pytest.mark.parametrize("which", ["section", "group", "space"])
def test_publishing_one_draft_plans_exactly_that_change(
    tmp_path: Path, sandbox: Path, which: str
) -> None:
    exported, live = exported_drafts(tmp_path, sandbox)
    path, document = sites_file(exported)
    draft_holders(only_site(document))[which]["draft"] = False
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    plan = plan_json(exported, sandbox)
    [(address, action)] = actions(plan)
    assert action == "update"
    [call] = change(plan, address)["calls"]
    assert (call["method"], call["path"], call["body"]) == ("PATCH", live[which], {"draft": False})
    apply(exported, sandbox)
    assert live_draft(sandbox, live[which]) is False
    assert_converged(exported, sandbox)


@pytest.mark.parametrize("which", ["section", "group", "space"])
def test_drift_names_who_published_a_draft_by_hand(
    tmp_path: Path, sandbox: Path, which: str
) -> None:
    exported, live = exported_drafts(tmp_path, sandbox)
    in_ui(sandbox, ALICE, "PATCH", live[which], {"draft": False})
    result = run(["drift", exported], sandbox)
    assert result.exit_code == 2, result.output
    assert re.search(
        r"draft: live false, manifests true\n"
        rf" *changed by Alice Admin <alice@acme\.test> at {TIME} in the UI ",
        result.stdout,
    ), result.stdout
