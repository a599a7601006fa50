"""Several organizations in one repository (manifest/discover.py, workflow/sets.py, cli/multi.py).

The seed holds two organizations, org_acme and org_other; each test writes one manifest set
per subdirectory and runs the CLI on the directory above them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docform.manifest.discover import DiscoveryError, discover_manifest_sets
from planning import append_manifests, live_api, run, write_manifests

ACME = """\
    organization: {id: org_acme, title: Acme}
    members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
    sites: {docs: {id: site_docs, title: Acme Docs}}
"""
OTHER = """\
    organization: {id: org_other, title: Other Corp}
    members: {carol@other.test: admin}
"""
NEW_TEAM = "teams: {core: {title: Core}}\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Two manifest sets, both in sync with the seed."""
    root = tmp_path / "repo"
    write_manifests(root / "acme", ACME)
    write_manifests(root / "other", OTHER)
    return root


def teams(sandbox: Path, org: str) -> list[str]:
    return [t["title"] for t in live_api(sandbox, "GET", f"/orgs/{org}/teams")["items"]]


# -- discovery ---------------------------------------------------------------------------------


def test_one_organization_split_into_folders_is_one_set(tmp_path):
    write_manifests(tmp_path / "org", "organization: {id: org_acme}\n")
    write_manifests(tmp_path / "teams", NEW_TEAM)
    assert [s.name for s in discover_manifest_sets(tmp_path)] == ["."]


def test_each_subdirectory_with_an_organization_is_a_set(repo):
    sets = discover_manifest_sets(repo)
    assert [(s.name, s.directory) for s in sets] == [
        ("acme", repo / "acme"),
        ("other", repo / "other"),
    ]


def test_sets_are_found_at_any_depth(tmp_path):
    write_manifests(tmp_path / "prod" / "acme", ACME)
    write_manifests(tmp_path / "prod" / "acme" / "teams", NEW_TEAM)
    write_manifests(tmp_path / "prod" / "other", OTHER)
    write_manifests(tmp_path / "staging" / "acme", "organization: {id: org_stage}\n")
    names = [s.name for s in discover_manifest_sets(tmp_path)]
    assert names == ["prod/acme", "prod/other", "staging"]


def test_a_file_beside_several_sets_is_refused(repo):
    write_manifests(repo, NEW_TEAM, name="shared.yaml")
    with pytest.raises(DiscoveryError) as caught:
        discover_manifest_sets(repo)
    assert str(caught.value) == (
        "shared.yaml is beside several manifest sets (acme/main.yaml, other/main.yaml), so it "
        "belongs to none: put each organization and its files in a subdirectory of its own"
    )


REFUSED_SETS = {
    "a folder without an organization": (
        "common",
        NEW_TEAM,
        "Error: common/main.yaml declares no organization and belongs to none: {repo} holds "
        "several manifest sets, one per subdirectory with its own `organization:`; move the "
        "file into one of them\n",
    ),
    "two sets for one organization": (
        "acme-copy",
        ACME,
        "Error: organization org_acme is described by both acme/ and acme-copy/; keep one "
        "manifest set per organization\n",
    ),
}


@pytest.mark.parametrize("case", REFUSED_SETS)
def test_a_folder_that_is_no_manifest_set_of_its_own_is_refused(repo, sandbox, case):
    folder, content, error = REFUSED_SETS[case]
    write_manifests(repo / folder, content)
    result = run(["plan", repo], sandbox)
    assert result.exit_code == 1
    assert result.stderr == error.format(repo=repo)


# -- validate ----------------------------------------------------------------------------------


def test_validate_reports_each_set(repo, sandbox):
    result = run(["validate", repo], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Valid: org_acme (acme/): 1 organization, 3 members, 1 site in 1 file.\n"
        "Valid: org_other (other/): 1 organization, 1 member in 1 file.\n"
    )


def test_validate_names_files_from_the_directory_given(repo, sandbox):
    append_manifests(repo / "other", "teams: {core: {titel: Core}}\n")
    result = run(["validate", repo, "--json"], sandbox)
    assert result.exit_code == 1
    problems = json.loads(result.stdout)
    assert [(p["file"], p["path"]) for p in problems] == [
        (f"{repo}/other/main.yaml", "teams.core.titel")
    ]
    assert "Valid: org_acme (acme/)" in result.stderr
    assert result.stderr.endswith("1 problem found in 1 of 2 manifest sets.\n")


# -- plan --------------------------------------------------------------------------------------


def test_plan_groups_by_organization_with_one_total(repo, sandbox):
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 2, result.output
    out = result.stdout
    assert out.startswith("== org_acme (acme/) ==\n\nNo changes.")
    assert "== org_other (other/) ==\n\ndocform will make these changes in organization " in out
    assert "  + team.core (Core)  (create)\n" in out
    assert out.endswith(
        "Total for 2 organizations: Plan: 1 to create, 0 to update, 0 to delete, 0 to move.\n"
    )


def test_plan_json_wraps_each_plan(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--json"], sandbox)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc) == ["format_version", "organizations", "summary"]
    assert [(o["directory"], o["organization"], o["error"]) for o in doc["organizations"]] == [
        ("acme", "org_acme", None),
        ("other", "org_other", None),
    ]
    assert [o["plan"]["changes"][0]["calls"][0]["path"] for o in doc["organizations"]] == [
        "/orgs/org_acme/teams",
        "/orgs/org_other/teams",
    ]
    assert doc["summary"]["create"] == 2


def test_plan_markdown_has_a_part_per_organization(repo, sandbox):
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("## docform plan: 2 organizations\n")
    assert "#### `org_acme` (`acme/`)" in result.stdout
    assert "#### `org_other` (`other/`)" in result.stdout


def test_an_error_in_one_set_does_not_hide_the_others_and_exits_1(repo, sandbox):
    write_manifests(repo / "gone", "organization: {id: org_missing}\n")
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 1
    assert "  + team.core (Core)  (create)\n" in result.stdout
    assert "== gone/ ==" not in result.stdout
    assert "== org_missing (gone/) ==\n\nError: " in result.stdout
    assert "Error: org_missing (gone/): " in result.stderr
    assert result.stdout.endswith("1 could not be planned.\n")


def test_targets_apply_to_every_set(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM + "collections: {eng: {title: Eng}}\n")
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--json", "--target", "team.core"], sandbox)
    doc = json.loads(result.stdout)
    addresses = [[c["address"] for c in o["plan"]["changes"]] for o in doc["organizations"]]
    assert addresses == [["team.core"], ["team.core"]]


def test_plan_out_is_refused_for_several_sets(repo, sandbox, tmp_path):
    result = run(["plan", repo, "--out", tmp_path / "x.plan"], sandbox)
    assert result.exit_code == 1
    assert (
        f"Error: --out takes one organization's plan, and {repo} holds 2 manifest sets; run the "
        f"command on each set's directory instead, e.g. 'docform plan {repo / 'acme'} --out ...'"
    ) in result.stderr
    assert not (tmp_path / "x.plan").exists()


def test_explain_token_is_refused_for_several_sets(repo, sandbox):
    """Each organization's token is its own: what one needs says nothing of the other."""
    result = run(["plan", repo, "--explain-token"], sandbox)
    assert result.exit_code == 1
    assert f"Error: --explain-token takes one organization's plan, and {repo} holds 2" in (
        result.stderr
    )


def test_a_single_set_plans_as_before(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    result = run(["plan", repo / "acme"], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("docform will make these changes in organization org_acme")
    assert "Total for" not in result.stdout


# -- apply -------------------------------------------------------------------------------------


def test_apply_asks_once_then_applies_every_set(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["apply", repo], sandbox, answer="y\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Apply these changes to 2 organizations? [y/N]") == 1
    assert teams(sandbox, "org_acme") == ["Core"]
    assert teams(sandbox, "org_other") == ["Core"]
    assert run(["plan", repo, "--detailed-exitcode"], sandbox).exit_code == 0


def test_apply_declined_changes_nothing(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    result = run(["apply", repo], sandbox, answer="n\n")
    assert result.exit_code == 1
    assert teams(sandbox, "org_acme") == []


def test_apply_changes_nothing_when_one_set_cannot_be_planned(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    write_manifests(repo / "gone", "organization: {id: org_missing}\n")
    result = run(["apply", repo, "--yes"], sandbox)
    assert result.exit_code == 1
    assert result.stderr.endswith(
        "Error: 1 of 3 manifest sets could not be planned, so nothing was applied; fix them "
        "and apply again\n"
    )
    assert teams(sandbox, "org_acme") == []


def test_apply_checks_every_safety_rail_before_the_first_call(repo, sandbox):
    append_manifests(repo / "acme", NEW_TEAM)
    append_manifests(
        repo / "other", "docform: {prune: {members: true}, limits: {maxDeletions: 0}}\n"
    )
    live_api(sandbox, "POST", "/orgs/org_other/invites", {"emails": ["dan@other.test"]})
    result = run(["apply", repo, "--yes"], sandbox)
    assert result.exit_code == 1
    assert "Error: org_other (other/): " in result.stderr
    assert result.stderr.rstrip().endswith("; nothing was applied")
    assert teams(sandbox, "org_acme") == []


def test_apply_checksum_is_refused_for_several_sets(repo, sandbox):
    result = run(["apply", repo, "--checksum", "abc"], sandbox)
    assert result.exit_code == 1
    assert "Error: --checksum takes one organization's plan" in result.stderr


# -- drift -------------------------------------------------------------------------------------


def test_drift_reports_each_organization_and_exits_2_for_any_drift(repo, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_other", {"title": "Other Inc"})
    result = run(["drift", repo, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    doc = json.loads(result.stdout)
    assert [(o["directory"], o["status"]) for o in doc["organizations"]] == [
        ("acme", "in_sync"),
        ("other", "drift"),
    ]
    assert doc["totals"]["organizations"] == 2


def test_drift_text_is_grouped_with_one_total(repo, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_other", {"title": "Other Inc"})
    result = run(["drift", repo], sandbox)
    assert result.stdout.startswith(
        "== org_acme (acme/) ==\n\nIn sync: org_acme (acme/) matches its manifests.\n"
    )
    assert "== org_other (other/) ==\n\nDrift in org_other (other/):" in result.stdout
    assert result.stdout.endswith(
        "Drift across 2 organizations: 1 change, 0 unmanaged, 0 ignored.\n"
    )


def test_drift_exits_1_when_one_organization_cannot_be_checked(repo, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_other", {"title": "Other Inc"})
    write_manifests(repo / "gone", "organization: {id: org_missing}\n")
    result = run(["drift", repo], sandbox)
    assert result.exit_code == 1
    assert "Error: org_missing (gone/): " in result.stderr
    assert result.stdout.endswith("; 1 could not be checked.\n")


def test_a_target_may_match_in_one_set_only(repo, sandbox):
    append_manifests(repo / "other", NEW_TEAM)
    result = run(["plan", repo, "--json", "--target", "member.bob@acme.test"], sandbox)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [o["plan"]["targeting"]["left_out"] for o in doc["organizations"]] == [0, 1]


def test_a_target_that_matches_in_no_set_is_an_error(repo, sandbox):
    result = run(["plan", repo, "--target", "member.bobb@acme.test"], sandbox)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: --target member.bobb@acme.test matches no address in the manifests or the live "
        "organization (closest: member.bob@acme.test"
    )


def test_the_total_of_sets_in_sync_says_they_all_match(repo, sandbox):
    result = run(["plan", repo], sandbox)
    assert result.stdout.endswith(
        "Total for 2 organizations: No changes. The live organizations match the manifests.\n"
    )


def test_the_total_never_says_all_match_when_some_could_not_be_planned(repo, sandbox):
    write_manifests(repo / "gone", "organization: {id: org_missing}\n")
    result = run(["plan", repo], sandbox)
    assert result.exit_code == 1
    assert result.stdout.endswith(
        "Total for 3 organizations: No changes in the 2 planned. 1 could not be planned.\n"
    )


def test_the_total_when_no_set_could_be_planned(tmp_path, sandbox):
    write_manifests(tmp_path / "r" / "a", "organization: {id: org_missing}\n")
    write_manifests(tmp_path / "r" / "b", "organization: {id: org_gone}\n")
    result = run(["plan", tmp_path / "r"], sandbox)
    assert result.stdout.endswith("Total for 2 organizations: 2 could not be planned.\n")
