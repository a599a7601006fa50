"""What the rails judge: the tree as the plan's own moves leave it, the plan as --target and
--exclude narrow it, and each rail a reviewer accepts for one object with --allow.

Each case is an edit of examples/acme after a first apply, planned and applied through the CLI
against the sandbox seeded from its sandbox-seed.yaml."""

from __future__ import annotations

import json
from pathlib import Path

from planning import (
    actions,
    apply,
    assert_converged,
    live_api,
    replace_text,
    run,
    write_manifests,
)


def without_runbooks(directory: Path) -> None:
    """Remove the runbooks collection, moving what it held to engineering, with collections
    pruned: nothing is lost, since incidents (and its spaces) and oncall move out first."""
    content = directory / "content.yaml"
    text = content.read_text(encoding="utf-8")
    start = text.index("  runbooks:\n")
    end = text.index("  incidents:")
    content.write_text(text[:start] + text[end:], encoding="utf-8")
    replace_text(content, "parent: runbooks}", "parent: engineering}")
    replace_text(content, "collection: runbooks}", "collection: engineering}")
    prune_collections(directory)


def prune_collections(directory: Path) -> None:
    replace_text(
        directory / "organization.yaml",
        "prune: {members: true, teams: true}",
        "prune: {members: true, teams: true, collections: true}",
    )


def spaces_titled(sandbox: Path) -> dict[str, str | None]:
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    return {space["title"]: space["parent"] for space in spaces}


def test_a_delete_after_the_plan_moves_everything_out_is_no_cascade(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    without_runbooks(directory)

    result = run(["plan", directory, "--detailed-exitcode"], sandbox)

    assert result.exit_code == 2, result.output
    assert "[cascade]" not in result.output
    apply(directory, sandbox)
    assert_converged(directory, sandbox)
    assert {"Incident response", "Postmortems", "On-call guide"} <= spaces_titled(sandbox).keys()


def demote_both_admins_and_retitle_ci_cd(directory: Path) -> None:
    """The last-admin rail's case; acme's own policy asking for two admins is dropped, so
    only the rail judges it."""
    replace_text(
        directory / "policies.yaml",
        "  two-admins:\n    builtin: minimum-admins\n    params: {count: 2}\n",
        "",
    )
    people = directory / "people.yaml"
    replace_text(people, "maria.garcia@acme.test: admin ", "maria.garcia@acme.test: edit  ")
    replace_text(people, "james.chen@acme.test: admin ", "james.chen@acme.test: edit  ")
    replace_text(directory / "content.yaml", "title: CI/CD pipelines,", "title: CI and CD,")


def test_a_target_is_judged_by_the_rails_of_the_changes_it_holds(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    demote_both_admins_and_retitle_ci_cd(directory)
    assert "[last-admin]" in run(["plan", directory], sandbox).output

    targeted = run(["plan", directory, "--target", "space.ci-cd", "--json"], sandbox)

    assert targeted.exit_code == 0, targeted.output
    plan = json.loads(targeted.stdout)
    assert actions(plan) == [("space.ci-cd", "update")]
    assert plan["rails"]["violations"] == []
    applied = run(["apply", directory, "--target", "space.ci-cd", "--yes"], sandbox)
    assert applied.exit_code == 0, applied.output
    assert "CI and CD" in spaces_titled(sandbox)


def test_a_target_still_holding_the_changes_that_break_a_rail_is_refused(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    demote_both_admins_and_retitle_ci_cd(directory)

    result = run(["plan", directory, "--target", "member.*"], sandbox)

    assert result.exit_code == 1
    assert "[last-admin] the plan would leave the organization without an admin" in (result.output)


def without_incidents(directory: Path, sandbox: Path) -> dict[str, str]:
    """Remove the incidents collection (its spaces move to runbooks), collections pruned, while
    a space no entry manages lives in it: the delete is a cascade. Returns the collection."""
    collections = live_api(sandbox, "GET", "/orgs/org_acme/collections")["items"]
    incidents: dict[str, str] = next(c for c in collections if c["title"] == "Incidents")
    content = directory / "content.yaml"
    replace_text(content, "  incidents: {title: Incidents, parent: runbooks}\n", "")
    replace_text(content, "collection: incidents}", "collection: runbooks}")
    prune_collections(directory)
    live_api(
        sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Scratch", "parent": incidents["id"]}
    )
    return incidents


def test_excluding_the_delete_that_trips_a_cascade_passes(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    incidents = without_incidents(directory, sandbox)
    whole = run(["plan", directory], sandbox)
    assert whole.exit_code == 1
    assert f"[cascade] deleting collection.~{incidents['id']} (Incidents)" in whole.output

    narrowed = run(["plan", directory, "--exclude", f"collection.~{incidents['id']}"], sandbox)

    assert narrowed.exit_code == 0, narrowed.output
    assert "[cascade]" not in narrowed.output


def test_allow_accepts_one_rail_for_one_object_and_no_other(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    incidents = without_incidents(directory, sandbox)
    people = directory / "people.yaml"
    replace_text(people, "      chloe.martin@acme.test: owner\n", "")
    allow = f"cascade:collection.~{incidents['id']}"

    one = run(["plan", directory, "--allow", allow], sandbox)

    assert one.exit_code == 1, one.output
    assert "[team-owner]" in one.output
    assert f"Safety rails accepted with --allow ({allow}) (1):" in one.output
    both = run(["plan", directory, "--allow", allow, "--allow", "team-owner:team.support"], sandbox)
    assert both.exit_code == 0, both.output
    markdown = run(
        ["plan", directory, "--markdown", "--allow", allow, "--allow", "team-owner:team.support"],
        sandbox,
    )
    assert "`--allow` accepts 2 safety rails:" in markdown.output
    saved = directory.parent / "reviewed.plan"
    planned = run(
        ["plan", directory, "--out", saved, "--allow", allow, "--allow", "team-owner:team.support"],
        sandbox,
    )
    assert planned.exit_code == 0, planned.output
    assert json.loads(saved.read_text())["rails"]["allowed"] == [
        allow,
        "team-owner:team.support",
    ]
    # Repeated on the apply: the file alone does not vouch for its allowances.
    applied = run(["apply", saved, "--allow", allow, "--allow", "team-owner:team.support"], sandbox)
    assert applied.exit_code == 0, applied.output
    assert "Scratch" not in spaces_titled(sandbox)


def test_allow_names_a_rail_and_an_address(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme

    result = run(["plan", directory, "--allow", "cascade"], sandbox)

    assert result.exit_code == 1
    assert "--allow cascade: write RAIL:ADDRESS, the rail and the object it is about" in (
        result.output
    )


def test_removing_the_only_owner_of_an_unmanaged_team_is_refused(
    tmp_path: Path, sandbox: Path
) -> None:
    team = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Ops"})
    members = {"add": ["erin@acme.test"], "memberships": {"erin@acme.test": {"role": "owner"}}}
    live_api(sandbox, "PUT", f"/orgs/org_acme/teams/{team['id']}/members", members)
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}}\norganization: {id: org_acme}\n"
        "members:\n  alice@acme.test: admin\n  bob@acme.test: guest\n",
    )

    result = run(["plan", manifests], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f"[team-owner] team.~{team['id']} (Ops): removing erin@acme.test from the organization "
        "would leave this unmanaged team without an owner"
    ) in result.output
    allowed = run(["plan", manifests, "--allow", f"team-owner:team.~{team['id']}"], sandbox)
    assert allowed.exit_code == 0, allowed.output
