"""End to end: plan and apply of the organization, its members and its teams.

Each test arranges live state in a seeded in-process sandbox (org_acme: u_alice admin, u_erin
edit, u_bob guest, site_docs), writes manifests, checks the plan's actions and calls, applies
it, checks that a second plan is empty, and reads the result back from the sandbox.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from docform.engine.live import ReadError
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import make_plan
from docform_sandbox.app import SandboxConfig
from docform_sandbox.transport import SandboxTransport
from live_objects import create_team, team_members
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
MEMBERS = """\
members:
  alice@acme.test: admin
  erin@acme.test: edit
  bob@acme.test: guest
"""


def with_org(fields: str = "", rest: str = MEMBERS) -> str:
    """Manifests of org_acme with ``fields`` (indented YAML lines) and the seeded members."""
    return "organization:\n  id: org_acme\n" + fields + rest


def live_org(sandbox: Path) -> dict[str, Any]:
    return live_api(sandbox, "GET", ORG_PATH)


# -- organization ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_field", "body"),
    [
        ("title: Acme Corp", {"title": "Acme Corp"}),
        (
            "emailDomains: [acme.test, acme.example]",
            {"emailDomains": ["acme.test", "acme.example"]},
        ),
        ("hostname: docs.acme.test", {"hostname": "docs.acme.test"}),
        ("defaultRole: review", {"defaultRole": "review"}),
        ("sso: true", {"sso": True}),
        ("ai: true", {"ai": True}),
        ("inviteLinks: true", {"inviteLinks": True}),
    ],
    ids=lambda value: None if isinstance(value, dict) else value.split(":")[0],
)
def test_organization_field_is_patched(
    sandbox: Path, manifests: Path, yaml_field: str, body: dict
) -> None:
    write_manifests(manifests, with_org(f"  {yaml_field}\n"))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("organization", "update")]
    assert calls(change(plan, "organization")) == [("PATCH", ORG_PATH, body)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    ((field, value),) = body.items()
    assert live_org(sandbox)[field] == value


def test_organization_default_role_guest_is_patched_to_null(sandbox: Path, manifests: Path) -> None:
    live_api(sandbox, "PATCH", ORG_PATH, {"defaultRole": "read"})
    write_manifests(manifests, with_org("  defaultRole: guest\n"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "organization")) == [("PATCH", ORG_PATH, {"defaultRole": None})]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_org(sandbox)["defaultRole"] is None


def test_organization_default_content_names_the_site_by_its_id(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        with_org("  defaultContent: {site: docs}\n", MEMBERS + "sites:\n  docs: {id: site_docs}\n"),
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("organization", "update")]
    body = {"defaultContent": {"type": "site", "site": "site_docs"}}
    assert calls(change(plan, "organization")) == [("PATCH", ORG_PATH, body)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_org(sandbox)["defaultContent"] == {"type": "site", "site": "site_docs"}


def test_organization_merge_rules_send_member_emails_as_user_ids(
    sandbox: Path, manifests: Path
) -> None:
    rules = (
        "  mergeRules:\n    type: rules\n    rules:\n"
        "      - {rule: require_specific_reviewers, users: [erin@acme.test, alice@acme.test]}\n"
        "      - {rule: require_at_least_one_review}\n"
    )
    write_manifests(manifests, with_org(rules))
    plan = plan_json(manifests, sandbox)
    wanted = {
        "type": "rules",
        "rules": [
            {"rule": "require_specific_reviewers", "users": ["u_erin", "u_alice"]},
            {"rule": "require_at_least_one_review"},
        ],
    }
    assert calls(change(plan, "organization")) == [("PATCH", ORG_PATH, {"mergeRules": wanted})]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_org(sandbox)["mergeRules"] == wanted


def test_organization_merge_rules_may_name_a_member_invited_in_the_same_apply(
    sandbox: Path, manifests: Path
) -> None:
    rules = (
        "  mergeRules:\n    type: rules\n    rules:\n"
        "      - {rule: require_specific_reviewers, users: [dave@acme.test]}\n"
    )
    write_manifests(manifests, with_org(rules, MEMBERS + "  dave@acme.test: read\n"))
    plan = plan_json(manifests, sandbox)
    assert change(plan, "organization")["depends_on"] == ["member.dave@acme.test#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_organization_logo_is_patched_and_read_back_from_urls(
    sandbox: Path, manifests: Path
) -> None:
    logo = "https://cdn.acme.test/logo.png"
    write_manifests(manifests, with_org(f"  logo: {logo}\n"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "organization")) == [("PATCH", ORG_PATH, {"logo": logo})]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_org(sandbox)["urls"]["logo"] == logo


def test_organization_with_unchanged_fields_plans_nothing(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, with_org("  title: Acme\n  emailDomains: [acme.test]\n"))
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert [u for u in plan["unmanaged"] if u["kind"] == "organization"] == []


def test_unknown_organization_is_an_error(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, "organization:\n  id: org_nowhere\n")
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        "Error: organization 'org_nowhere' does not exist or this token cannot see it; "
        "check organization.id in the manifests and DOCFORM_API_TOKEN" in result.stderr
    )


def test_organization_the_token_cannot_see_is_an_error(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, with_org("  title: Acme Corp\n"))
    loaded = load_manifest_set(manifests)

    async def plan_as_carol() -> None:
        # A user token of another organization: the sandbox answers 403 for org_acme.
        transport = SandboxTransport(sandbox, SandboxConfig())
        async with Client(
            "https://sandbox.test", "tok_carol_0123456789", transport=transport, read_only=True
        ) as client:
            await make_plan(loaded, client)

    with pytest.raises(ReadError) as caught:
        asyncio.run(plan_as_carol())
    assert str(caught.value).startswith(
        "reading the live organizations failed, so no plan was made: GET /orgs/org_acme failed: "
        "403 you are not a member of organization 'org_acme'."
    )


def test_organization_prune_setting_does_not_exist(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, "docform: {prune: {organization: true}}\n" + with_org())
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert "unknown key 'organization'" in result.stderr


# -- members -----------------------------------------------------------------------------------


def test_new_member_is_invited_with_role_and_sso(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests, with_org(rest=MEMBERS + "  dave@acme.test: {role: read, sso: true}\n")
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("member.dave@acme.test", "create")]
    body = {"emails": ["dave@acme.test"], "role": "read", "sso": True}
    assert calls(change(plan, "member.dave@acme.test")) == [("POST", f"{ORG_PATH}/invites", body)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    members = live_api(sandbox, "GET", f"{ORG_PATH}/members")["items"]
    dave = next(m for m in members if m["user"]["email"] == "dave@acme.test")
    assert (dave["role"], dave["sso"]) == ("read", True)


def test_new_guest_member_is_invited_with_null_role(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, with_org(rest=MEMBERS + "  gil@partner.test: guest\n"))
    plan = plan_json(manifests, sandbox)
    body = {"emails": ["gil@partner.test"], "role": None}
    assert calls(change(plan, "member.gil@partner.test")) == [("POST", f"{ORG_PATH}/invites", body)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_member_role_change_is_a_patch(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests, with_org(rest=MEMBERS.replace("erin@acme.test: edit", "erin@acme.test: review"))
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("member.erin@acme.test", "update")]
    assert calls(change(plan, "member.erin@acme.test")) == [
        ("PATCH", f"{ORG_PATH}/members/u_erin", {"role": "review"})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    with open_store(sandbox) as store:
        assert store.get("member", "org_acme/u_erin")["role"] == "review"


def test_member_made_guest_is_patched_to_null_role(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests, with_org(rest=MEMBERS.replace("erin@acme.test: edit", "erin@acme.test: guest"))
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "member.erin@acme.test")) == [
        ("PATCH", f"{ORG_PATH}/members/u_erin", {"role": None})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    with open_store(sandbox) as store:
        assert store.get("member", "org_acme/u_erin")["role"] is None


def test_member_sso_turned_on_is_a_post(sandbox: Path, manifests: Path) -> None:
    members = MEMBERS.replace("erin@acme.test: edit", "erin@acme.test: {role: edit, sso: true}")
    write_manifests(manifests, with_org(rest=members))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("member.erin@acme.test", "update")]
    assert calls(change(plan, "member.erin@acme.test")) == [
        ("POST", f"{ORG_PATH}/members/u_erin/sso", None)
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    with open_store(sandbox) as store:
        assert store.get("member", "org_acme/u_erin")["sso"] is True


def test_member_sso_false_on_an_sso_member_is_an_error(sandbox: Path, manifests: Path) -> None:
    live_api(sandbox, "POST", f"{ORG_PATH}/members/u_erin/sso")
    members = MEMBERS.replace("erin@acme.test: edit", "erin@acme.test: {role: edit, sso: false}")
    write_manifests(manifests, with_org(rest=members))
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        "Error: main.yaml:5:3: member.erin@acme.test: sso: the API can turn SSO on for a member "
        "but not off; remove `sso: false` or turn it off in the service" in result.stderr
    )


def test_unmanaged_member_is_listed_without_prune(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, with_org(rest=MEMBERS.replace("  bob@acme.test: guest\n", "")))
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "member", "id": "u_bob", "title": "bob@acme.test"} in plan["unmanaged"]


def test_unmanaged_member_is_removed_under_prune(sandbox: Path, manifests: Path) -> None:
    members = MEMBERS.replace("  bob@acme.test: guest\n", "")
    write_manifests(manifests, "docform: {prune: {members: true}}\n" + with_org(rest=members))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("member.~u_bob", "delete")]
    assert calls(change(plan, "member.~u_bob")) == [("DELETE", f"{ORG_PATH}/members/u_bob", None)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    with open_store(sandbox) as store:
        assert store.get("member", "org_acme/u_bob") is None


def test_member_matches_its_email_in_any_case(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, with_org(rest=MEMBERS.replace("erin@acme.test", "Erin@Acme.test")))
    assert plan_json(manifests, sandbox)["changes"] == []


# -- teams -------------------------------------------------------------------------------------


def teams_yaml(teams: str, settings: str = "") -> str:
    return settings + with_org() + "teams:\n" + teams


def test_team_is_created_with_its_members_in_one_membership_call(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        teams_yaml(
            "  platform:\n    title: Platform\n"
            "    members: {erin@acme.test: member, alice@acme.test: owner}\n"
        ),
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("team.platform", "create")]
    members_body = {
        "add": ["alice@acme.test", "erin@acme.test"],
        "memberships": {"alice@acme.test": {"role": "owner"}},
    }
    assert calls(change(plan, "team.platform")) == [
        ("PUT", f"{ORG_PATH}/teams", {"title": "Platform"}),
        ("PUT", f"{ORG_PATH}/teams/${{team.platform.id}}/members", members_body),
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    teams = live_api(sandbox, "GET", f"{ORG_PATH}/teams")["items"]
    assert [t["title"] for t in teams] == ["Platform"]
    assert team_members(sandbox, teams[0]["id"]) == {
        "alice@acme.test": "owner",
        "erin@acme.test": "member",
    }


def test_team_with_an_invited_member_depends_on_the_invite(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests,
        "organization: {id: org_acme}\n"
        + MEMBERS
        + "  dave@acme.test: read\n"
        + "teams:\n  platform: {title: Platform, members: {dave@acme.test: owner}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert change(plan, "team.platform")["depends_on"] == ["member.dave@acme.test#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_team_membership_changes_go_in_one_call(sandbox: Path, manifests: Path) -> None:
    team_id = create_team(
        sandbox, "Platform", {"alice@acme.test": "owner", "erin@acme.test": "member"}
    )
    write_manifests(
        manifests,
        teams_yaml(
            "  platform:\n    title: Platform\n"
            "    members: {alice@acme.test: member, bob@acme.test: owner}\n"
        ),
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("team.platform", "membership")]
    body = {
        "add": ["bob@acme.test"],
        "remove": ["erin@acme.test"],
        "memberships": {
            "alice@acme.test": {"role": "member"},
            "bob@acme.test": {"role": "owner"},
        },
    }
    assert calls(change(plan, "team.platform")) == [
        ("PUT", f"{ORG_PATH}/teams/{team_id}/members", body)
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert team_members(sandbox, team_id) == {
        "alice@acme.test": "member",
        "bob@acme.test": "owner",
    }


def test_team_without_members_key_leaves_its_members_alone(sandbox: Path, manifests: Path) -> None:
    create_team(sandbox, "Platform", {"erin@acme.test": "member"})
    write_manifests(manifests, teams_yaml("  platform: {title: Platform}\n"))
    assert plan_json(manifests, sandbox)["changes"] == []


def test_two_live_teams_with_one_title_is_an_error_naming_the_one_to_keep(
    sandbox: Path, manifests: Path
) -> None:
    with open_store(sandbox) as store:
        store.set_now(datetime(2030, 1, 1, tzinfo=UTC))
    first = create_team(sandbox, "Platform")
    with open_store(sandbox) as store:
        store.set_now(datetime(2030, 1, 2, tzinfo=UTC))
    second = create_team(sandbox, "Platform")
    write_manifests(manifests, teams_yaml("  platform: {title: Platform}\n"))
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    ids = ", ".join([first, second])
    teams = live_api(sandbox, "GET", f"{ORG_PATH}/teams")["items"]
    created = next(t["createdAt"] for t in teams if t["id"] == first)
    assert created.startswith("2030-01-01T00:00:")
    assert (
        f"Error: main.yaml:8:3: team.platform: 2 live teams match 'Platform' (ids {ids}); keep "
        f"the oldest ({first}, created {created}): pin it with `id: {first}` "
        f"in this entry, then delete {second} in the service (or, with prune of teams on, let "
        "the next apply delete them)" in result.stderr
    )


def test_two_live_teams_with_one_title_are_told_apart_by_pinned_id(
    sandbox: Path, manifests: Path
) -> None:
    first = create_team(sandbox, "Platform")
    second = create_team(sandbox, "Platform")
    write_manifests(manifests, teams_yaml(f"  platform: {{id: {first}, title: Platform}}\n"))
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert [u["id"] for u in plan["unmanaged"] if u["kind"] == "team"] == [second]
