"""Orderings the API needs that no reference shows: each edit of examples/acme, applied once
through the CLI against the sandbox, converges without a failed call."""

from __future__ import annotations

from pathlib import Path

from planning import (
    apply,
    assert_converged,
    live_api,
    plan_json,
    replace_text,
)


def team_members(sandbox: Path, title: str) -> dict[str, str]:
    teams = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    team = next(t for t in teams if t["title"] == title)
    members = live_api(sandbox, "GET", f"/orgs/org_acme/teams/{team['id']}/members")["items"]
    return {m["organization"]["user"]["email"]: m["team"]["role"] for m in members}


def test_a_member_is_removed_after_the_team_changes_that_name_them(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    people = directory / "people.yaml"
    replace_text(
        people,
        "  chloe.martin@acme.test: review\n",
        "  newlead@acme.test: edit\n",
    )
    replace_text(people, "chloe.martin@acme.test: owner", "newlead@acme.test: owner")
    plan = plan_json(directory, sandbox)
    removal = next(c for c in plan["changes"] if c["human_key"] == "chloe.martin@acme.test")
    assert "team.support#membership" in removal["depends_on"]

    apply(directory, sandbox)

    assert team_members(sandbox, "Support") == {
        "newlead@acme.test": "owner",
        "grace.okafor@acme.test": "member",
        "daniel.levi@acme.test": "member",
        "hannah.berg@acme.test": "member",
    }
    assert_converged(directory, sandbox)


def section_paths(sandbox: Path) -> dict[str, str]:
    sections = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/sections")["items"]
    return {s["title"]: s["path"] for s in sections}


def test_a_path_handed_to_another_section_is_freed_first(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    sites = directory / "sites.yaml"
    replace_text(sites, "        path: sdks\n", "        path: sdks-v1\n")
    replace_text(sites, "        path: api\n", "        path: sdks\n")

    apply(directory, sandbox)

    assert section_paths(sandbox)["API"] == "sdks"
    assert section_paths(sandbox)["SDKs"] == "sdks-v1"
    assert_converged(directory, sandbox)


def test_two_sections_swapping_paths_go_through_a_temporary_path_the_plan_shows(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    sites = directory / "sites.yaml"
    replace_text(sites, "        path: sdks\n", "        path: swap-me\n")
    replace_text(sites, "        path: api\n", "        path: sdks\n")
    replace_text(sites, "        path: swap-me\n", "        path: api\n")
    plan = plan_json(directory, sandbox)
    release = [c for c in plan["changes"] if c["action"] == "release"]
    assert len(release) == 1
    assert release[0]["fields"][0]["path"] == "path"
    temporary = release[0]["fields"][0]["after"]
    assert temporary not in ("api", "sdks")

    apply(directory, sandbox)

    assert section_paths(sandbox)["API"] == "sdks"
    assert section_paths(sandbox)["SDKs"] == "api"
    assert_converged(directory, sandbox)


def test_site_spaces_swapping_paths_converge_in_one_apply(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    sites = directory / "sites.yaml"
    replace_text(sites, "path: javascript, default: true}", "path: python, default: true}")
    replace_text(sites, "sdk-python, path: python}", "sdk-python, path: javascript}")

    apply(directory, sandbox)

    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    titles = {s["id"]: s["title"] for s in spaces}
    site_spaces = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/site-spaces")
    paths = {titles[s["space"]["id"]]: s["path"] for s in site_spaces["items"]}
    assert paths["JavaScript SDK"] == "python"
    assert paths["Python SDK"] == "javascript"
    assert_converged(directory, sandbox)


def test_a_grouped_section_moves_to_the_top_level_through_its_sort(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    replace_text(
        directory / "sites.yaml",
        "reference: {title: Reference, sections: [api, sdks]}",
        "reference: {title: Reference, sections: [api]}",
    )

    apply(directory, sandbox)

    sections = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/sections")["items"]
    assert {s["path"]: s.get("sectionGroup") for s in sections}["sdks"] is None
    assert_converged(directory, sandbox)
