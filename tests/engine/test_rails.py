"""Safety rails (engine/rails.py and the kinds' own): each blocks what it should, only that."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ADMIN_TOKEN
from docform.engine.plan import Call, Change, Plan
from docform.engine.rails import RailReport, Violation, scope_violations
from docform.render import render_text
from planning import apply, live_api, run, write_manifests

HEAD = """\
organization: {id: org_acme}
members:
  alice@acme.test: admin
"""


def teams_yaml(count: int, prune: bool = False) -> str:
    settings = "docform: {prune: {teams: true}}\n" if prune else ""
    teams = "".join(f"  t{i}: {{title: Team {i}}}\n" for i in range(count))
    return settings + HEAD + ("teams:\n" + teams if count else "")


def with_teams(tmp_path: Path, sandbox: Path, count: int) -> Path:
    """Manifests of ``count`` teams, applied to ``sandbox``."""
    manifests = write_manifests(tmp_path / "m", teams_yaml(count))
    apply(manifests, sandbox, rehearse=False)
    return manifests


def test_more_deletions_than_the_limit_apply_nothing(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 11)
    write_manifests(manifests, teams_yaml(0, prune=True))
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert "[max-deletions] the plan deletes 11 objects, more than the 10 allowed" in result.stderr
    assert len(live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]) == 11


def test_max_deletions_option_raises_the_limit(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 11)
    write_manifests(manifests, teams_yaml(0, prune=True))
    result = run(["apply", manifests, "--yes", "--max-deletions", "20", "--force"], sandbox)
    assert result.exit_code == 0, result.output
    assert live_api(sandbox, "GET", "/orgs/org_acme/teams")["count"] == 0


def test_deleting_over_a_quarter_of_a_kind_needs_force(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 12)
    write_manifests(manifests, teams_yaml(8, prune=True))
    blocked = run(["apply", manifests, "--yes"], sandbox)
    assert blocked.exit_code == 1
    assert "[max-deletion-share] the plan deletes 4 of 12 team objects (33%)" in blocked.stderr
    forced = run(["apply", manifests, "--yes", "--force"], sandbox)
    assert forced.exit_code == 0, forced.output
    assert "Warning: --force bypassed the safety rail [max-deletion-share]" in forced.stderr
    assert live_api(sandbox, "GET", "/orgs/org_acme/teams")["count"] == 8


def test_a_few_deletions_pass_every_rail(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 3)
    write_manifests(manifests, teams_yaml(2, prune=True))
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 0, result.output
    assert "Warning" not in result.stderr


def test_demoting_the_last_admin_is_refused(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m", "organization: {id: org_acme}\nmembers:\n  alice@acme.test: read\n"
    )
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert "[last-admin] the plan would leave the organization without an admin" in result.stderr
    member = live_api(sandbox, "GET", "/orgs/org_acme/members/u_alice")
    assert member["role"] == "admin"


def test_demoting_an_admin_while_another_is_made_passes(tmp_path, sandbox):
    members = "  alice@acme.test: read\n  erin@acme.test: admin\n"
    manifests = write_manifests(
        tmp_path / "m", "organization: {id: org_acme}\nmembers:\n" + members
    )
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 0, result.output


def test_leaving_a_team_without_its_owner_is_refused(tmp_path, sandbox):
    team = "teams:\n  core:\n    title: Core\n"
    team += "    members: {alice@acme.test: owner, erin@acme.test: member}\n"
    owned = HEAD + "  erin@acme.test: edit\n" + team
    manifests = write_manifests(tmp_path / "m", owned)
    apply(manifests, sandbox)
    write_manifests(manifests, owned.replace("alice@acme.test: owner", "alice@acme.test: member"))
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert "[team-owner] team.core (Core): the plan would leave the team without an owner" in (
        result.stderr
    )


def test_deleting_a_collection_with_unmanaged_spaces_in_it_needs_force(tmp_path, sandbox):
    collection = live_api(sandbox, "POST", "/orgs/org_acme/collections", {"title": "Old"})
    live_api(
        sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Notes", "parent": collection["id"]}
    )
    manifests = write_manifests(tmp_path / "m", "docform: {prune: {collections: true}}\n" + HEAD)
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert f"[cascade] deleting collection.~{collection['id']} (Old) would also delete space.~" in (
        result.stderr
    )


def test_calls_outside_the_organization_are_never_made():
    plan = Plan(organization="org_acme", fingerprints={"space:s1": "x"})
    plan.changes = [
        Change("space.a", "space", "update", "", None, None, calls=[Call("PATCH", "/spaces/s1")]),
        Change(
            "team.b",
            "team",
            "update",
            "",
            None,
            None,
            calls=[Call("PATCH", "/orgs/org_other/teams/t")],
        ),
    ]
    found = scope_violations(plan)
    assert [str(v) for v in found] == [
        "[organization] team.b#update: PATCH /orgs/org_other/teams/t is outside organization "
        "org_acme"
    ]
    assert not found[0].forceable


@pytest.mark.parametrize(
    "path",
    [
        "/orgs/org_acme/teams/../../org_beta/teams/t1",
        "/orgs/org_acme/../org_beta",
        "/orgs/org_acme_evil/teams/t1",
        "/spaces/s1/../../orgs/org_beta",
        "/orgs//org_acme",
    ],
)
def test_the_scope_rail_compares_path_segments_not_string_prefixes(path):
    plan = Plan(organization="org_acme", fingerprints={"space:s1": "x"})
    change = Change("team.b", "team", "delete", "", None, None, calls=[Call("DELETE", path)])
    plan.changes = [change]
    assert [str(v) for v in scope_violations(plan)] == [
        f"[organization] team.b#delete: DELETE {path} is outside organization org_acme"
    ]


ORG_LINE = "organization: {id: org_acme}\n"
OWN_RAIL = "[own-membership] member.{} would remove or demote the membership of the API token's"


def test_removing_the_callers_own_membership_is_refused_even_with_force(tmp_path, sandbox):
    members = "docform: {prune: {members: true}}\norganization: {id: org_acme}\nmembers:\n"
    manifests = write_manifests(tmp_path / "m", members + "  erin@acme.test: admin\n")
    result = run(["apply", manifests, "--yes", "--force"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 1
    assert OWN_RAIL.format("~u_alice#delete") in result.stderr
    emails = [
        m["user"]["email"] for m in live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    ]
    assert sorted(emails) == ["alice@acme.test", "bob@acme.test", "erin@acme.test"]


def test_demoting_the_callers_own_admin_role_is_refused(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m",
        ORG_LINE + "members:\n  alice@acme.test: read\n  erin@acme.test: admin\n",
    )
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 1
    assert OWN_RAIL.format("alice@acme.test#update") in result.stderr
    assert live_api(sandbox, "GET", "/orgs/org_acme/members/u_alice")["role"] == "admin"


def test_another_admin_may_remove_a_member_and_the_caller_may_demote_others(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m",
        ORG_LINE + "members:\n  alice@acme.test: admin\n  erin@acme.test: read\n",
    )
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 0, result.output
    assert live_api(sandbox, "GET", "/orgs/org_acme/members/u_erin")["role"] == "read"
    write_manifests(manifests, "docform: {prune: {members: true}}\n" + HEAD)
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 0
    members = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert [m["id"] for m in members] == ["u_alice"]


def test_the_callers_own_member_is_told_by_get_user_and_a_ping_is_never_needed(
    tmp_path, sandbox, monkeypatch, instant_backoff
):
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "503:1@POST:/orgs/*/ping")
    manifests = write_manifests(tmp_path / "m", PRUNE_MEMBERS + "  erin@acme.test: admin\n")
    result = run(["apply", manifests, "--yes", "--force"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 1
    assert OWN_RAIL.format("~u_alice#delete") in result.stderr
    assert "ping" not in result.output
    assert instant_backoff == []  # the failing ping was never retried: never sent


def test_the_own_membership_check_fails_closed_when_get_user_keeps_failing(
    tmp_path, sandbox, monkeypatch, instant_backoff
):
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "503:1@GET:/user")
    manifests = write_manifests(tmp_path / "m", PRUNE_MEMBERS + "  alice@acme.test: admin\n")
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: nothing was applied: the own-membership rail could not tell which user the API "
        "token belongs to, and the plan removes or demotes 2 memberships: GET /user failed after "
        "6 attempts: "
        "503 Service unavailable (fault injected by the sandbox). The service failed; try again "
        "later.\n"
    )
    assert len(instant_backoff) == 5  # a back-off before each attempt after the first
    members = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert sorted(m["id"] for m in members) == ["u_alice", "u_bob", "u_erin"]


def test_get_user_is_retried_after_a_transient_failure(
    tmp_path, sandbox, monkeypatch, instant_backoff
):
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "503:1@GET:/user#1")
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}}\n"
        + ORG_LINE
        + "members:\n  alice@acme.test: admin\n  erin@acme.test: edit\n",
    )
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 0, result.output
    assert len(instant_backoff) == 1
    members = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert sorted(m["id"] for m in members) == ["u_alice", "u_erin"]


NO_USER_NOTE = (
    "Note: the API token belongs to no user (an integration's token, say), so it holds no "
    "membership to lose: the own-membership rail had nothing to refuse in the 2 changes that "
    "remove or demote a membership\n"
)


def test_a_token_of_no_user_may_remove_members_and_apply_says_why_that_is_safe(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", PRUNE_MEMBERS + "  alice@acme.test: admin\n")
    result = run(["apply", manifests, "--yes"], sandbox)  # the canary token is no user's
    assert result.exit_code == 0, result.output
    assert NO_USER_NOTE in result.stderr
    members = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert [m["id"] for m in members] == ["u_alice"]


def test_a_plan_without_membership_changes_never_asks_whose_token_it_is(
    tmp_path, sandbox, monkeypatch, instant_backoff
):
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "503:1@GET:/user")
    manifests = write_manifests(tmp_path / "m", HEAD + "teams:\n  core: {title: Core}\n")
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 0, result.output
    assert "Note: the API token" not in result.stderr
    assert instant_backoff == []  # the failing GET /user was never retried: never sent


# -- every rail at plan time -------------------------------------------------------------------

PRUNE_MEMBERS = "docform: {prune: {members: true}}\norganization: {id: org_acme}\nmembers:\n"
LAST_ADMIN = (
    "[last-admin] the plan would leave the organization without an admin (it removes or "
    "demotes alice@acme.test); keep one admin in members:"
)
LAST_ADMIN_ERROR = (
    "Error: the plan breaks 1 safety rail (last-admin), so apply would refuse it; fix the "
    "manifests, accept one with --allow RAIL:ADDRESS, or plan and apply with --force to bypass "
    "last-admin\n"
)


def without_an_admin(tmp_path: Path) -> Path:
    """Manifests that remove Alice, the only admin, and keep Erin as a reader."""
    return write_manifests(tmp_path / "m", PRUNE_MEMBERS + "  erin@acme.test: read\n")


def test_plan_lists_a_broken_rail_at_the_top_and_exits_1(tmp_path, sandbox):
    result = run(["plan", without_an_admin(tmp_path)], sandbox)
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "Safety rails this plan breaks (1): apply refuses it.\n"
        f"  {LAST_ADMIN}\n"
        "  Fix the manifests, accept one with --allow RAIL:ADDRESS, or plan and apply with "
        "--force to bypass these.\n"
    )
    assert "Apply will refuse this plan: it breaks 1 safety rail (listed at the top).\n" in (
        result.stdout
    )
    assert result.stderr == LAST_ADMIN_ERROR


def test_plan_markdown_shows_a_broken_rail_before_the_changes(tmp_path, sandbox):
    result = run(["plan", without_an_admin(tmp_path), "--markdown"], sandbox)
    assert result.exit_code == 1
    block = (
        "> [!CAUTION]\n> **Apply will refuse this plan: it breaks 1 safety rail.**\n>\n"
        "> - `last-admin`: the plan would leave the organization without an admin (it removes "
        "or demotes alice@acme.test); keep one admin in members:\n>\n"
        "> Fix the manifests, accept one with `--allow RAIL:ADDRESS`, or plan and apply with "
        "`--force` to bypass them.\n"
    )
    assert block in result.stdout
    assert result.stdout.index(block) < result.stdout.index("**2 to delete**")


def test_plan_json_lists_the_rails_under_a_key_of_its_own(tmp_path, sandbox):
    result = run(["plan", without_an_admin(tmp_path), "--json"], sandbox)
    assert result.exit_code == 1
    rails = json.loads(result.stdout)["rails"]
    assert rails["violations"] == [
        {"rail": "last-admin", "message": LAST_ADMIN.removeprefix("[last-admin] "),
         "forceable": True, "address": "organization", "changes": ["member.~u_alice#delete"]}
    ]  # fmt: skip
    assert rails["forced"] is False
    assert [v["rail"] for v in rails["checked_at_apply"]] == ["own-membership"] * 2


def test_plan_with_force_shows_each_bypassed_rail_and_passes(tmp_path, sandbox):
    result = run(["plan", without_an_admin(tmp_path), "--force", "--detailed-exitcode"], sandbox)
    assert result.exit_code == 2, result.output
    assert result.stdout.startswith(f"Safety rails bypassed with --force (1):\n  {LAST_ADMIN}\n")
    assert "Apply will refuse" not in result.stdout
    assert result.stderr == ""


def test_plan_says_which_changes_only_apply_can_check_against_the_token(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m", PRUNE_MEMBERS + "  alice@acme.test: admin\n  erin@acme.test: edit\n"
    )
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "Checked only at apply:\n"
        "  [own-membership] member.~u_bob (bob@acme.test) removes or demotes a membership: "
        "apply refuses it if that is the API token's own user (planning cannot tell whose "
        "token it is)\n"
    )


def test_plan_fails_on_more_deletions_than_the_limit(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 3)
    limit = "docform: {prune: {teams: true}, limits: {maxDeletions: 2}}\n"
    write_manifests(manifests, limit + teams_yaml(0))
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert "  [max-deletions] the plan deletes 3 objects, more than the 2 allowed per apply" in (
        result.stdout
    )
    assert run(["plan", manifests, "--max-deletions", "3"], sandbox).exit_code == 0


def test_plan_fails_on_a_team_left_without_an_owner(tmp_path, sandbox):
    team = "teams:\n  core:\n    title: Core\n    members: {alice@acme.test: owner}\n"
    manifests = write_manifests(tmp_path / "m", HEAD + team)
    apply(manifests, sandbox)
    write_manifests(manifests, HEAD + team.replace("owner", "member"))
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 1
    assert [v["rail"] for v in json.loads(result.stdout)["rails"]["violations"]] == ["team-owner"]


def test_plan_fails_on_a_cascade_delete(tmp_path, sandbox):
    collection = live_api(sandbox, "POST", "/orgs/org_acme/collections", {"title": "Old"})
    live_api(
        sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Notes", "parent": collection["id"]}
    )
    manifests = write_manifests(tmp_path / "m", "docform: {prune: {collections: true}}\n" + HEAD)
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        f"  [cascade] deleting collection.~{collection['id']} (Old) would also delete space.~"
        in (result.stdout)
    )


def test_a_rail_force_cannot_bypass_is_marked_and_still_fails_the_plan():
    plan = Plan(organization="org_acme")
    plan.rails = RailReport([Violation("protect", "space.notes is protected", False)], True)
    text = render_text(plan)
    assert text.startswith(
        "Safety rails this plan breaks (1): apply refuses it.\n"
        "  [protect] space.notes is protected (never bypassed, not even with --force)\n\n"
    )
    assert plan.refused


def test_the_share_floor_is_set_in_limits(tmp_path, sandbox):
    manifests = with_teams(tmp_path, sandbox, 3)
    write_manifests(manifests, teams_yaml(1, prune=True))
    assert run(["plan", manifests], sandbox).exit_code == 0
    floor = "docform: {prune: {teams: true}, limits: {deletionShareFloor: 3}}\n"
    write_manifests(manifests, floor + teams_yaml(1))
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert "  [max-deletion-share] the plan deletes 2 of 3 team objects (67%)" in result.stdout


def test_drift_lists_the_rails_its_fixing_plan_breaks_and_still_exits_2(tmp_path, sandbox):
    result = run(["drift", without_an_admin(tmp_path)], sandbox)
    assert result.exit_code == 2, result.output
    assert f"  {LAST_ADMIN}\n" in result.stdout


def test_apply_refuses_a_plan_that_breaks_a_rail_before_asking(tmp_path, sandbox):
    result = run(["apply", without_an_admin(tmp_path)], sandbox, answer="y\n")
    assert result.exit_code == 1
    assert "Apply these changes?" not in result.output
    assert f"Error: nothing was applied, the plan breaks these safety rails:\n  {LAST_ADMIN}" in (
        result.stderr
    )


def test_refusing_the_callers_own_removal_with_force_offers_no_force(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", PRUNE_MEMBERS + "  erin@acme.test: admin\n")
    result = run(["apply", manifests, "--yes", "--force"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 1
    assert "--force bypasses" not in result.stderr
    assert result.stderr.rstrip().endswith("apply this change with another admin's token")


# -- the last SAML provider of an organization that enforces SSO -------------------------------

SAML = "saml:\n  okta: {label: Okta}\n"


def with_saml(tmp_path: Path, sandbox: Path) -> Path:
    """One SAML provider applied, and the organization enforcing SSO."""
    manifests = write_manifests(tmp_path / "m", HEAD + SAML)
    apply(manifests, sandbox, rehearse=False)
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"sso": True})
    return manifests


def test_deleting_the_last_saml_provider_under_enforced_sso_fails_the_plan(tmp_path, sandbox):
    manifests = with_saml(tmp_path, sandbox)
    write_manifests(manifests, "docform: {prune: {saml: true}}\n" + HEAD)
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    provider = live_api(sandbox, "GET", "/orgs/org_acme/saml")["items"][0]["id"]
    assert (
        f"  [last-saml-provider] the plan deletes every SAML provider (saml.~{provider} (Okta))"
        " while the "
        "organization enforces SSO; keep one under saml:, or set `sso: false` on the "
        "organization first\n"
    ) in result.stdout
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 1
    assert live_api(sandbox, "GET", "/orgs/org_acme/saml")["count"] == 1


def test_deleting_the_last_saml_provider_passes_when_sso_is_turned_off(tmp_path, sandbox):
    manifests = with_saml(tmp_path, sandbox)
    no_sso = "docform: {prune: {saml: true}}\norganization: {id: org_acme, sso: false}\n"
    write_manifests(manifests, no_sso + HEAD.split("\n", 1)[1])
    assert run(["plan", manifests], sandbox).exit_code == 0


def test_replacing_the_last_saml_provider_passes(tmp_path, sandbox):
    manifests = with_saml(tmp_path, sandbox)
    write_manifests(
        manifests, "docform: {prune: {saml: true}}\n" + HEAD + "saml:\n  azure: {label: Azure}\n"
    )
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert "last-saml-provider" not in result.output
