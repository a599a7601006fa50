"""End to end: a token of a kind some calls refuse (an integration's, where the service takes a
user's token only) plans what it may, and the plan says what it could not plan and why.

The sandbox answers such a token 401 on every route the facts reserve for a user's token. The
site list is one, and every plan reads it: so the plan knows which kind of token it holds, sets
aside the kinds it could not read, and the changes it could read but not make (installing an
integration on the organization, uninstalling one), with what needs them; the rest is planned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    SEED_FILE,
    actions,
    apply,
    calls,
    change,
    live_api,
    run,
    seeded_sandbox,
    write_manifests,
)

ORG = "org_acme"
INTEGRATION_TOKEN = "tok_integration_5e1f0a9c77"
SPACES = {"handbook": {"title": "Handbook"}}


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A sandbox with acme's users and sites, and an integration's token beside theirs."""
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        SEED_FILE.read_text() + f"  - {{token: {INTEGRATION_TOKEN}, kind: integration}}\n"
    )
    return seeded_sandbox(tmp_path, seed)


def write(manifests: Path, integrations: dict[str, Any], **extra: Any) -> None:
    doc: dict[str, Any] = {"organization": {"id": ORG}, "spaces": SPACES, **extra}
    doc["integrations"] = integrations
    doc["docform"] = {"prune": {"integrations": True}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


def segment(region: str) -> dict[str, Any]:
    return {"integration": "segment", "configuration": {"region": region}}


def plan_with(manifests: Path, sandbox: Path, token: str) -> dict[str, Any]:
    result = run(["plan", manifests, "--json"], sandbox, token=token)
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def test_an_integration_token_plans_what_it_may_and_says_what_not(
    mixed: Path, manifests: Path
) -> None:
    write(manifests, {"analytics": segment("eu")})
    apply(manifests, mixed)
    live_api(mixed, "POST", "/integrations/intercom/installations", {"organization": ORG})
    chat = {"integration": "crisp", "spaces": {"handbook": {}}}
    wanted = {"analytics": segment("us"), "chat": chat}
    write(manifests, wanted, teams={"docs": {"title": "Docs"}})
    plan = plan_with(manifests, mixed, INTEGRATION_TOKEN)
    assert actions(plan) == [("team.docs", "create"), ("integration.analytics", "update")]
    ((method, path, _),) = calls(change(plan, "integration.analytics"))
    assert (method, path.rsplit("/", 1)[0]) == ("PATCH", "/integrations/segment/installations")
    reasons = {item["kind"]: item["reason"] for item in plan["not_planned"]}
    assert reasons["integration"].startswith("integration.chat (create), integration.~")
    assert (
        "(delete): not planned: the service takes DELETE /integrations/intercom/"
        in (reasons["integration"])
    )
    assert (
        "POST /integrations/crisp/installations from a user's API token only"
        in (reasons["integration"])
    )
    assert "the service refused it the sites for the same reason" in reasons["integration"]
    assert reasons["integration_target"] == (
        "integration installations on spaces and sites: refer to site, not read"
    )
    assert "GET /orgs/org_acme/sites failed: 401" in reasons["site"]
    assert reasons["git_sync"] == "Git Sync installations: read after site, not read"
    site_parts = {"section", "site_space", "external_link", "visitor_auth", "share_link"}
    assert site_parts <= set(reasons), sorted(reasons)
    assert all(reasons[kind].endswith(", not read") for kind in site_parts), reasons


def test_a_users_token_plans_the_same_manifests_whole(mixed: Path, manifests: Path) -> None:
    write(manifests, {"analytics": segment("eu")})
    apply(manifests, mixed)
    live_api(mixed, "POST", "/integrations/intercom/installations", {"organization": ORG})
    write(manifests, {"analytics": segment("eu"), "chat": {"integration": "crisp"}})
    plan = plan_with(manifests, mixed, "tok_alice_0123456789")
    assert "not_planned" not in plan or plan["not_planned"] == []
    assert sorted(actions(plan)) == [
        ("integration.chat", "create"),
        ("integration.~" + _live_id(mixed, "intercom"), "delete"),
    ]


def test_apply_with_an_integration_token_refuses_the_partial_plan(
    mixed: Path, manifests: Path
) -> None:
    write(manifests, {"chat": {"integration": "crisp"}})
    result = run(["apply", manifests, "--yes"], mixed, token=INTEGRATION_TOKEN)
    assert result.exit_code == 1
    assert (
        "nothing was applied: the token may not read everything the manifests manage, or "
        "make every change they need (" in result.output
    )
    assert "integration.chat (create): not planned" in result.output
    assert live_api(mixed, "GET", f"/orgs/{ORG}/installations")["items"] == []


def _live_id(sandbox: Path, integration: str) -> str:
    items = live_api(sandbox, "GET", f"/orgs/{ORG}/installations")["items"]
    (found,) = [i["installation"]["id"] for i in items if i["integration"]["name"] == integration]
    return str(found)


def test_drift_with_an_integration_token_checks_what_it_may(mixed: Path, manifests: Path) -> None:
    write(manifests, {"analytics": segment("eu")})
    apply(manifests, mixed)
    live_api(mixed, "DELETE", "/spaces/" + _space_id(mixed))
    result = run(["drift", manifests], mixed, token=INTEGRATION_TOKEN)
    assert result.exit_code != 1, result.output
    assert "Not checked: the token may not read these" in result.output
    assert "space.handbook (Handbook)" in result.output
    assert "Drift: 1 change," in result.output
    assert (
        "the audit log could not be read (401): the service reads it to a user's token only, "
        "and this token is of another kind; who made each change is not shown"
    ) in result.output


def _space_id(sandbox: Path) -> str:
    (space,) = live_api(sandbox, "GET", f"/orgs/{ORG}/spaces")["items"]
    return str(space["id"])


def test_link_invites_are_not_planned_with_an_integration_token(
    mixed: Path, manifests: Path
) -> None:
    doc = {"organization": {"id": ORG}, "spaces": SPACES, "linkInvites": {"join": {"role": "read"}}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    plan = plan_with(manifests, mixed, INTEGRATION_TOKEN)
    assert actions(plan) == [("space.handbook", "create")]
    reasons = {item["kind"]: item["reason"] for item in plan["not_planned"]}
    assert "GET /orgs/org_acme/link-invites failed: 401" in reasons["link_invite"]
    assert "takes this call from a user's API token only" in reasons["link_invite"]


def test_what_refers_to_unread_sites_is_neither_deleted_nor_made_again(
    mixed: Path, manifests: Path
) -> None:
    """An integration installed on a site, the site pinned by id: with a token that may not
    read the sites, the installation on the site can be told from no other, so it is neither
    deleted (prune is on) nor made again, and the pinned id fails nothing."""
    sites = {"docs": {"id": "site_docs", "title": "Acme Docs"}}
    on_both = {"integration": "segment", "spaces": {"handbook": {}}, "sites": {"docs": {}}}
    write(manifests, {"analytics": on_both}, sites=sites)
    apply(manifests, mixed)
    plan = plan_with(manifests, mixed, INTEGRATION_TOKEN)
    assert actions(plan) == []
    reasons = {item["kind"]: item["reason"] for item in plan["not_planned"]}
    assert reasons["integration_target"] == (
        "integration installations on spaces and sites: refer to site, not read"
    )
    assert reasons["organization"] == "organizations: refer to site, not read"
    assert not [u for u in plan["unmanaged"] if u["kind"] == "integration_target"]
