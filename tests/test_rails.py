"""Safety rails (engine/rails.py and the kinds' own): each blocks what it should, only that."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ADMIN_TOKEN
from docform.engine.plan import Call, Change, Plan
from docform.engine.rails import scope_violations
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
    apply(manifests, sandbox)
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
    assert "[team-owner] team.core: the plan would leave the team without an owner" in result.stderr


def test_deleting_a_collection_with_unmanaged_spaces_in_it_needs_force(tmp_path, sandbox):
    collection = live_api(sandbox, "POST", "/orgs/org_acme/collections", {"title": "Old"})
    live_api(
        sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Notes", "parent": collection["id"]}
    )
    manifests = write_manifests(tmp_path / "m", "docform: {prune: {collections: true}}\n" + HEAD)
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert f"[cascade] deleting collection.~{collection['id']} would also delete space.~" in (
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


def test_the_own_membership_ping_is_retried_after_a_transient_failure(
    tmp_path, sandbox, monkeypatch
):
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "503:1@POST:/orgs/*/ping#1")
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}}\n"
        + ORG_LINE
        + "members:\n  alice@acme.test: admin\n  erin@acme.test: edit\n",
    )
    result = run(["apply", manifests, "--yes"], sandbox, token=ADMIN_TOKEN)
    assert result.exit_code == 0, result.output
    members = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert sorted(m["id"] for m in members) == ["u_alice", "u_erin"]
