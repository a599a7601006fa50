"""Orderings the API needs that no reference shows: each edit of examples/acme, applied once
through the CLI against the sandbox, converges without a failed call."""

from __future__ import annotations

from pathlib import Path

from planning import (
    apply,
    assert_converged,
    live_api,
    plan_json,
    prune_too,
    replace_text,
    run,
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


def basenames(sandbox: Path) -> dict[str, str | None]:
    sites = live_api(sandbox, "GET", "/orgs/org_acme/sites")["items"]
    return {s["id"]: s.get("basename") for s in sites}


def write_basenames(directory: Path, **by_title: str) -> None:
    """Give each site (by title) its basename in sites.yaml, replacing the one written."""
    sites = directory / "sites.yaml"
    lines = sites.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [line for line in lines if not line.startswith("    basename: ")]
    for title, basename in by_title.items():
        at = lines.index(f"    title: {title}\n")
        lines.insert(at + 1, f"    basename: {basename}\n")
    sites.write_text("".join(lines), encoding="utf-8")


DEVDOCS, HELP = "Acme Developer Docs", "Acme Help Center"


def test_a_site_basename_handed_to_another_site_is_freed_first(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    write_basenames(directory, **{DEVDOCS: "docs", HELP: "help"})
    apply(directory, sandbox)
    write_basenames(directory, **{DEVDOCS: "docs-v1", HELP: "docs"})

    plan = plan_json(directory, sandbox)
    taker = next(c for c in plan["changes"] if c["address"] == "site.help")
    assert "site.devdocs#update" in taker["depends_on"]
    apply(directory, sandbox)

    assert basenames(sandbox) == {"site_devdocs": "docs-v1", "site_help": "docs"}
    assert_converged(directory, sandbox)


def test_two_sites_swapping_basenames_converge_in_one_apply(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    write_basenames(directory, **{DEVDOCS: "docs", HELP: "help"})
    apply(directory, sandbox)
    write_basenames(directory, **{DEVDOCS: "help", HELP: "docs"})

    plan = plan_json(directory, sandbox)
    release = [c for c in plan["changes"] if c["action"] == "release"]
    assert [(c["kind"], c["fields"][0]["after"]) for c in release] == [("site", "docs-moving")]
    apply(directory, sandbox)

    assert basenames(sandbox) == {"site_devdocs": "help", "site_help": "docs"}
    assert_converged(directory, sandbox)


def test_a_basename_held_by_an_unmanaged_site_is_refused_until_prune_frees_it_first(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    write_basenames(directory, **{HELP: "help"})
    apply(directory, sandbox)
    sites = directory / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    sites.write_text(text[: text.index("  help:\n")], encoding="utf-8")
    write_basenames(directory, **{DEVDOCS: "help"})

    kept = run(["plan", directory], sandbox)

    assert kept.exit_code == 1, kept.output
    assert (
        'sites.yaml:5:3: site.devdocs: basename: "help" is held by site.~site_help (Acme Help '
        "Center), which no manifest manages and the plan keeps: the API would refuse it (409); "
        "write another basename, or free it there first"
    ) in kept.output

    prune_too(directory, "sites")
    plan = plan_json(directory, sandbox)
    taker = next(c for c in plan["changes"] if c["address"] == "site.devdocs")
    assert "site.~site_help#delete" in taker["depends_on"]
    apply(directory, sandbox)

    assert basenames(sandbox) == {"site_devdocs": "help"}
    assert_converged(directory, sandbox)


def test_a_redirect_source_handed_to_a_new_redirect_is_freed_first(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    status = next(
        r["id"]
        for r in live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/redirects")["items"]
        if r["source"] == "/status"
    )
    (directory / "docform.lock").unlink()  # with it, /status keeps its object by address
    replace_text(
        directory / "sites.yaml",
        '      /status: {to: "https://status.acme.test/"}\n',
        '      /health: {formerly: [/status], to: "https://status.acme.test/"}\n'
        "      /status: {to: {section: start}}\n",
    )

    plan = plan_json(directory, sandbox)
    taker = next(c for c in plan["changes"] if c["address"] == "site.devdocs.redirect./status")
    assert taker["action"] == "create"
    assert "site.devdocs.redirect./health#update" in taker["depends_on"]
    apply(directory, sandbox)

    live = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/redirects")["items"]
    by_source = {r["source"]: r for r in live}
    assert by_source["/health"]["id"] == status
    assert by_source["/status"]["destination"]["kind"] == "site-section"
    assert_converged(directory, sandbox)


def test_two_redirects_swapping_sources_converge_in_one_apply(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    route = "/orgs/org_acme/sites/site_devdocs/redirects"
    before = {r["source"]: r["id"] for r in live_api(sandbox, "GET", route)["items"]}
    # Each redirect keeps its destination and takes the other's source: pinned by id.
    js, status = before["/sdk/javascript"], before["/status"]
    replace_text(
        directory / "sites.yaml",
        "      /sdk/javascript: {to: {section: sdks, space: js}, permanent: true}\n"
        '      /status: {to: "https://status.acme.test/"}\n',
        f"      /status: {{id: {js}, to: {{section: sdks, space: js}}, permanent: true}}\n"
        f'      /sdk/javascript: {{id: {status}, to: "https://status.acme.test/"}}\n',
    )

    plan = plan_json(directory, sandbox)
    release = [c for c in plan["changes"] if c["action"] == "release"]
    assert [(c["kind"], c["fields"][0]["after"]) for c in release] == [
        ("redirect", "/status-moving")
    ]
    apply(directory, sandbox)

    after = {r["source"]: r["id"] for r in live_api(sandbox, "GET", route)["items"]}
    assert after["/status"] == before["/sdk/javascript"]
    assert after["/sdk/javascript"] == before["/status"]
    assert_converged(directory, sandbox)
