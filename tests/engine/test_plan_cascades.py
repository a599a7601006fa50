"""What goes with a delete is listed under it, in text, Markdown and JSON, and judged by the
rails: each case an edit of examples/acme after a first apply, through the CLI and the
sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planning import change, live_api, prune_too, replace_text, run

GET = re.compile(r"^GET (\S+) -> ")


def drop_help_center(directory: Path) -> None:
    """Remove the help-center space from content.yaml."""
    line = '  help-center: {title: Help center, emoji: "🛟", collection: product}\n'
    replace_text(directory / "content.yaml", line, "")


def live_id(sandbox: Path, route: str, **match: str) -> str:
    items = live_api(sandbox, "GET", route)["items"]
    found: str = next(i["id"] for i in items if all(i.get(k) == v for k, v in match.items()))
    return found


def drop_help_site_space(directory: Path) -> None:
    """Remove the help site's site space that shows the help-center space."""
    replace_text(directory / "sites.yaml", "      help: {space: help-center, path: help}\n", "")


SPACE_DELETES = {
    "a site the manifests manage": (drop_help_site_space, "deleted with it", ""),
    # The first reproduction: the help site leaves the manifests with the space.
    "a site no manifest manages": (
        lambda directory: drop_site(directory, "help"),
        "deleted with it, leaving site Acme Help Center (site_help) 1 of its 2 site spaces",
        ", which lies in site Acme Help Center (site_help) that no manifest manages",
    ),
}


@pytest.mark.parametrize("where", list(SPACE_DELETES))
def test_deleting_a_space_lists_the_site_spaces_that_show_it_and_is_a_cascade(
    applied_acme: tuple[Path, Path], where: str
) -> None:
    edit, fate, lies_in = SPACE_DELETES[where]
    directory, sandbox = applied_acme
    drop_help_center(directory)
    edit(directory)
    prune_too(directory, "spaces")
    space = live_id(sandbox, "/orgs/org_acme/spaces", title="Help center")
    site_space = live_id(sandbox, "/orgs/org_acme/sites/site_help/site-spaces", path="help")

    text = run(["plan", directory], sandbox)

    assert text.exit_code == 1, text.output
    assert (
        f"  - space.~{space} (Help center)  (delete {space})\n"
        f"      loses every page (the service's answer gives no page count), no open comment or "
        f"change request; the service keeps a deleted space restorable for a while, and a plan "
        f"restores one its entry still names\n"
        f"      takes siteSpace.~{site_space} (Help center), unmanaged: {fate}\n"
    ) in text.stdout
    reason = lies_in or ", which the plan does not delete"
    assert (
        f"[cascade] deleting space.~{space} (Help center) would also delete "
        f"siteSpace.~{site_space} (Help center){reason}"
    ) in text.stdout
    unmanaged = "Unmanaged (no manifest entry; left alone unless prune is on):\n"
    if lies_in:  # the help site is listed, the site space is only under what the delete takes
        assert f"{unmanaged}  site.~site_help (Acme Help Center)\n" in text.stdout
        assert f"siteSpace.~{site_space}" not in text.stdout.partition(unmanaged)[2]
    else:
        assert "Unmanaged (no manifest entry; left alone" not in text.stdout
    markdown = run(["plan", directory, "--markdown"], sandbox)
    assert f"  - takes siteSpace.~{site_space} (Help center), unmanaged: {fate}" in (
        markdown.stdout
    )
    plan = json.loads(run(["plan", directory, "--json"], sandbox).stdout)
    assert change(plan, f"space.~{space}", "delete")["takes"] == [
        {
            "address": f"siteSpace.~{site_space}",
            "human_key": "Help center",
            "fate": fate,
            "managed": False,
        }
    ]
    # What goes with the space, as far as the service's answer tells (no page count).
    loses = (
        "every page (the service's answer gives no page count), no open comment or change "
        "request; the service keeps a deleted space restorable for a while, and a plan "
        "restores one its entry still names"
    )
    assert change(plan, f"space.~{space}", "delete")["loses"] == loses
    assert f"  - space.~{space} (Help center)  (delete {space})\n      loses {loses}\n" in (
        run(["plan", directory], sandbox).stdout
    )
    allowed = run(["apply", directory, "--yes", "--allow", f"cascade:space.~{space}"], sandbox)
    assert allowed.exit_code == 0, allowed.output
    left = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_help/site-spaces")["items"]
    assert [item["path"] for item in left] == ["releases"]


def drop_site(directory: Path, name: str) -> None:
    """Remove site ``name`` (the last one written) from sites.yaml: it becomes unmanaged."""
    sites = directory / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    sites.write_text(text[: text.index(f"  {name}:\n")], encoding="utf-8")


def test_deleting_a_team_lists_the_saml_default_it_clears(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    integrations = directory / "integrations.yaml"
    text = integrations.read_text(encoding="utf-8")
    integrations.write_text(text[: text.index("saml:")], encoding="utf-8")
    people = directory / "people.yaml"
    text = people.read_text(encoding="utf-8")
    people.write_text(text[: text.index("  support:")], encoding="utf-8")
    replace_text(
        directory / "content.yaml",
        "access: {teams: {platform: edit, support: read}}",
        "access: {teams: {platform: edit}}",
    )
    team = live_id(sandbox, "/orgs/org_acme/teams", title="Support")
    provider = live_id(sandbox, "/orgs/org_acme/saml", label="Okta")

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f"      takes saml.~{provider} (Okta), unmanaged: defaultTeam cleared\n"
    ) in result.stdout
    assert (
        f"[cascade] deleting team.~{team} (Support) would leave saml.~{provider} (Okta) with its "
        "defaultTeam cleared, which the plan does not delete"
    ) in result.stdout


DEVDOCS = "/orgs/org_acme/sites/site_devdocs"


def delete_changelog_redirected(directory: Path, sandbox: Path, *, redirects: bool) -> str:
    """Drop devdocs' changelog section (``prune: sections``), and ``redirects:`` too unless
    ``redirects``; a live redirect ``/news`` points at the section: returns its id."""
    sites = directory / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    start, end = text.index("      changelog:\n"), text.index("    redirects:")
    text = text[:start] + text[end:]
    if not redirects:
        text = text[: text.index("    redirects:")] + text[text.index("  help:\n") :]
    sites.write_text(text, encoding="utf-8")
    prune_too(directory, "sections")
    section = live_id(sandbox, f"{DEVDOCS}/sections", path="changelog")
    destination = {"kind": "site-section", "siteSectionId": section}
    body = {"source": "/news", "destination": destination}
    found: str = live_api(sandbox, "POST", f"{DEVDOCS}/redirects", body)["id"]
    return found


def test_deleting_a_section_lists_its_site_spaces_and_the_redirects_left_pointing_at_it(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    site_space = live_id(sandbox, f"{DEVDOCS}/site-spaces", path="notes")
    redirect = delete_changelog_redirected(directory, sandbox, redirects=True)

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f"      takes redirect.~{redirect} (/news), unmanaged: to pointing at nothing\n"
        f"      takes siteSpace.~{site_space} (Release notes), unmanaged: deleted with it\n"
    ) in result.stdout
    assert "Unmanaged (no manifest entry; left alone" not in result.stdout
    # The site space is only a link lost with its section; the redirect left dangling is not.
    assert "[cascade]" in result.stdout
    assert f"would leave redirect.~{redirect} (/news) with its to pointing at nothing" in (
        result.stdout
    )
    assert f"delete siteSpace.~{site_space}" not in result.stdout.split("docform will")[0]


def test_deleting_a_team_lists_its_grants_where_no_entry_writes_access(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    team = live_id(sandbox, "/orgs/org_acme/teams", title="Mobile")
    space = live_id(sandbox, "/orgs/org_acme/spaces", title="CI/CD pipelines")
    live_api(sandbox, "POST", f"/spaces/{space}/permissions", {"role": "read", "teams": [team]})
    site = "/orgs/org_acme/sites/site_help/permissions"
    live_api(sandbox, "POST", site, {"role": "edit", "teams": [team]})
    people = directory / "people.yaml"
    text = people.read_text(encoding="utf-8")
    start, end = text.index("  mobile:\n"), text.index("  devex:\n")
    people.write_text(text[:start] + text[end:], encoding="utf-8")

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f"  - team.~{team} (Mobile)  (delete {team})\n"
        f"      takes site.help.access.team.~{team} (team Mobile), unmanaged: deleted with it\n"
        f"      takes space.ci-cd.access.team.~{team} (team Mobile), unmanaged: deleted with it\n"
    ) in result.stdout
    assert (
        f"[cascade] deleting team.~{team} (Mobile) would also delete "
        f"space.ci-cd.access.team.~{team} (team Mobile), which is a grant on space.ci-cd whose "
        "entry writes no access:; change it there first, or accept it with --allow"
    ) in result.stdout
    applied = run(["apply", directory, "--yes", "--allow", f"cascade:team.~{team}"], sandbox)
    assert applied.exit_code == 0, applied.output
    assert live_api(sandbox, "GET", f"/spaces/{space}/permissions/teams")["items"] == []


def test_bystanders_are_read_only_for_a_delete_that_can_reach_them(
    applied_acme: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    directory, sandbox = applied_acme
    drop_site(directory, "help")
    content = directory / "content.yaml"
    replace_text(content, "title: Ledger", "title: Ledger book")

    def reads() -> list[str]:
        found = [m.group(1) for r in caplog.records if (m := GET.match(r.getMessage()))]
        caplog.clear()
        return found

    caplog.clear()
    assert run(["plan", directory], sandbox).exit_code == 0
    nothing_deleted = reads()
    drop_help_center(directory)
    prune_too(directory, "spaces")
    assert run(["plan", directory], sandbox).exit_code == 1
    space_deleted = reads()

    help_site = "/orgs/org_acme/sites/site_help/site-spaces"
    assert help_site not in nothing_deleted
    assert sorted(set(space_deleted) - set(nothing_deleted)) == [help_site]


def test_deleting_a_site_lists_everything_it_holds(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    drop_site(directory, "help")
    prune_too(directory, "sites")
    help_site = "/orgs/org_acme/sites/site_help"
    destination = {"kind": "external", "url": "https://acme.test/"}
    redirect = live_api(
        sandbox, "POST", f"{help_site}/redirects", {"source": "/old", "destination": destination}
    )["id"]
    spaces = {
        s["path"]: s["id"] for s in live_api(sandbox, "GET", f"{help_site}/site-spaces")["items"]
    }

    text = run(["plan", directory], sandbox)

    assert text.exit_code == 0, text.output
    assert "  - site.~site_help (Acme Help Center)  (delete site_help)\n      takes " in text.stdout
    for address, title in (
        (f"redirect.~{redirect}", "/old"),
        (f"siteSpace.~{spaces['help']}", "Help center"),
        (f"siteSpace.~{spaces['releases']}", "Release notes"),
    ):
        line = f"      takes {address} ({title}), unmanaged: deleted with the site\n"
        assert line in text.stdout
    markdown = run(["plan", directory, "--markdown"], sandbox)
    assert f"  - takes redirect.~{redirect} (/old), unmanaged: deleted with the site" in (
        markdown.stdout
    )
    plan = json.loads(run(["plan", directory, "--json"], sandbox).stdout)
    takes = change(plan, "site.~site_help", "delete")["takes"]
    assert sorted((t["address"], t["fate"], t["managed"]) for t in takes) == sorted(
        [
            (f"redirect.~{redirect}", "deleted with the site", False),
            (f"siteSpace.~{spaces['help']}", "deleted with the site", False),
            (f"siteSpace.~{spaces['releases']}", "deleted with the site", False),
        ]
    )


def test_deleting_a_section_lists_a_redirect_to_it_of_a_site_whose_redirects_are_unmanaged(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    redirect = delete_changelog_redirected(directory, sandbox, redirects=False)

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f"      takes redirect.~{redirect} (/news), unmanaged: to pointing at nothing\n"
    ) in result.stdout
    assert (
        f"would leave redirect.~{redirect} (/news) with its to pointing at nothing, which lies "
        "in site Acme Developer Docs (site_devdocs), whose entry writes no redirects:; change "
        "it there first, or accept it with --allow"
    ) in result.stdout


def test_deleting_the_site_an_organization_shows_first_lists_its_structure_and_default_content(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    sites = directory / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    sites.write_text(text[: text.index("  devdocs:\n")] + text[text.index("  help:\n") :])
    replace_text(directory / "organization.yaml", "  defaultContent: {site: devdocs}\n", "")
    prune_too(directory, "sites")

    plan = json.loads(run(["plan", directory, "--json"], sandbox).stdout)
    result = run(["plan", directory], sandbox)

    takes = change(plan, "site.~site_devdocs", "delete")["takes"]
    kinds = [t["address"].split(".~")[0] for t in takes]
    assert {kind: kinds.count(kind) for kind in kinds} == {
        "organization": 1,  # its defaultContent, cleared
        "redirect": 3,
        "section": 4,
        "sectionGroup": 2,
        "siteSpace": 5,
    }
    assert {t["human_key"] for t in takes if t["address"].startswith("section.")} == {
        "Getting started", "API", "SDKs", "Changelog",
    }  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "      takes organization: defaultContent cleared\n" in result.stdout
    assert (
        "[cascade] deleting site.~site_devdocs (Acme Developer Docs) would leave organization "
        "with its defaultContent cleared, which the plan does not delete"
    ) in result.stdout


def test_what_a_delete_takes_along_counts_against_max_deletions(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    drop_site(directory, "help")
    prune_too(directory, "sites")

    refused = run(["plan", directory, "--max-deletions", "2"], sandbox)
    allowed = run(["plan", directory, "--max-deletions", "3"], sandbox)

    assert refused.exit_code == 1, refused.output
    assert (
        "[max-deletions] the plan deletes 1 objects and 2 more along with them, more than the "
        "2 allowed per apply"
    ) in refused.stdout
    assert allowed.exit_code == 0, allowed.output


@pytest.mark.parametrize("named", ["address", "title"])
def test_an_allow_naming_the_object_by_its_title_has_one_verdict(
    applied_acme: tuple[Path, Path], named: str
) -> None:
    """`--allow cascade:space.Help center` accepts the rail as the plan's own address does,
    and is then never also listed as accepting no rail this plan breaks."""
    directory, sandbox = applied_acme
    drop_help_center(directory)
    drop_help_site_space(directory)
    prune_too(directory, "spaces")
    space = live_id(sandbox, "/orgs/org_acme/spaces", title="Help center")
    item = f"cascade:space.~{space}" if named == "address" else "cascade:space.Help center"
    text = run(["plan", directory, "--allow", item], sandbox)
    assert text.exit_code == 0, text.output
    assert f"Safety rails accepted with --allow ({item}) (1):" in text.stdout
    assert "accepts no rail this plan breaks" not in text.output
    markdown = run(["plan", directory, "--markdown", "--allow", item], sandbox)
    assert "accepts no rail this plan breaks" not in markdown.output
    plan = json.loads(run(["plan", directory, "--json", "--allow", item], sandbox).stdout)
    assert plan["rails"]["unused_allows"] == []
    unused = run(["plan", directory, "--allow", item, "--allow", "cascade:space.Nothing"], sandbox)
    assert "--allow cascade:space.Nothing accepts no rail this plan breaks." in unused.stdout
    assert f"--allow {item} accepts" not in unused.stdout
