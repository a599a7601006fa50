"""Identity when docform.lock is gone (a new clone of an old repository, an entry edited by
hand): `formerly` hand-overs bind each entry to its own object, and a delete next to a create
that looks like the same object is a suspected replacement, a rail naming what keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from planning import (
    apply,
    assert_converged,
    change,
    live_api,
    plan_json,
    prune_too,
    replace_text,
    run,
)


def without_lock(directory: Path) -> None:
    (directory / "docform.lock").unlink()


def sections(sandbox: Path) -> dict[str, str]:
    items = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/sections")["items"]
    return {s["title"]: s["id"] for s in items}


def test_formerly_hand_overs_bind_each_section_to_its_own(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    without_lock(directory)
    ids = sections(sandbox)
    sites = directory / "sites.yaml"
    replace_text(sites, "        path: sdks\n", "        path: sdks-v1\n        formerly: [sdks]\n")
    replace_text(sites, "        path: api\n", "        path: sdks\n        formerly: [api]\n")

    plan = plan_json(directory, sandbox)

    assert change(plan, "site.devdocs.section.api", "update")["id"] == ids["API"]
    assert change(plan, "site.devdocs.section.sdks", "update")["id"] == ids["SDKs"]
    apply(directory, sandbox)
    assert sections(sandbox) == ids
    assert_converged(directory, sandbox)


def test_a_space_renamed_and_moved_at_once_is_a_suspected_replacement(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    without_lock(directory)
    old = next(
        s["id"]
        for s in live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
        if s["title"] == "Release notes"
    )
    replace_text(
        directory / "content.yaml",
        '{title: Release notes, emoji: "📰", collection: product}',
        '{title: Changelog, emoji: "📰", collection: company}',
    )
    prune_too(directory, "spaces")

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f'[replacement] the plan deletes space {old} "Release notes" and creates '
        "space.release-notes in its place, and its content would be lost; pin "
        f"`id: {old}` in"
    ) in result.output


LOOK_ALIKES = {
    "team": (
        "people.yaml",
        [("    title: Mobile\n", "    title: Apps\n"), ("  mobile:\n", "  apps:\n")],
        None,
        "its grants and memberships would be lost",
    ),
    "saml": (
        "integrations.yaml",
        [("  okta:\n    label: Okta\n", "  sso:\n    label: SSO\n")],
        "saml",
        "its id is part of the sign-on URL the identity provider calls",
    ),
}


@pytest.mark.parametrize("kind", LOOK_ALIKES)
def test_an_object_replaced_by_a_look_alike_is_a_rail(
    applied_acme: tuple[Path, Path], kind: str
) -> None:
    """A team, a SAML provider: given a new key and name, the plan deletes the old one and
    creates the new, and says what the old one takes with it."""
    directory, sandbox = applied_acme
    file, edits, prune, lost = LOOK_ALIKES[kind]
    without_lock(directory)
    for old, new in edits:
        replace_text(directory / file, old, new)
    if prune:
        prune_too(directory, prune)

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert f"[replacement] the plan deletes {kind} " in result.output
    assert lost in result.output


def test_key_and_title_renamed_together_without_prune_is_a_suspected_replacement(
    applied_acme: tuple[Path, Path],
) -> None:
    # The old space would stay unmanaged while the site spaces show a new, empty one.
    directory, sandbox = applied_acme
    without_lock(directory)
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    old = next(s["id"] for s in spaces if s["title"] == "Release notes")
    content = directory / "content.yaml"
    replace_text(
        content,
        '  release-notes: {title: Release notes, emoji: "📰", collection: product}',
        '  changes: {title: Changelog, emoji: "📰", collection: product}',
    )
    sites = directory / "sites.yaml"
    sites.write_text(
        sites.read_text(encoding="utf-8").replace("space: release-notes", "space: changes"),
        encoding="utf-8",
    )

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        "[replacement] the plan creates space.changes while it leaves space "
        f'{old} "Release notes" unmanaged, which looks like its former self: '
        "site.devdocs.section.changelog.space.notes, site.help.space.releases would be "
        "pointed at the new space instead; pin "
        f'`id: {old}` in content.yaml:45:3 or add `formerly: ["Release notes"]` to keep it, '
        "or accept the new one with --allow replacement:space.changes"
    ) in result.output
    replace_text(
        content,
        "  changes: {title: Changelog,",
        '  changes: {formerly: ["Release notes"], title: Changelog,',
    )
    apply(directory, sandbox)
    after = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    assert [s["title"] for s in after if s["id"] == old] == ["Changelog"]
    assert len(after) == len(spaces)
    assert_converged(directory, sandbox)


def test_an_openapi_spec_given_a_new_slug_is_a_replacement_rail(
    applied_acme: tuple[Path, Path],
) -> None:
    # The API renames no spec: the new slug is a new spec, and the old one's links break.
    directory, sandbox = applied_acme
    without_lock(directory)  # with it, the entry's slug change is refused with what to do
    specs = live_api(sandbox, "GET", "/orgs/org_acme/openapi")["items"]
    old = next(s["id"] for s in specs if s["slug"] == "payments-api")
    replace_text(directory / "integrations.yaml", "slug: payments-api", "slug: payments")
    prune_too(directory, "openapi")

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f'[replacement] the plan deletes openapi {old} "payments-api" and creates '
        "openapi.payments-api in its place, and its slug is its address: what links to the "
        "reference it publishes would break; the API cannot rename a spec: write its live slug "
        "`payments-api` back to keep it, or accept the replacement with "
        "--allow replacement:openapi.payments-api"
    ) in result.output
    allowed = run(
        ["apply", directory, "--yes", "--allow", "replacement:openapi.payments-api"], sandbox
    )
    assert allowed.exit_code == 0, allowed.output
    slugs = {s["slug"] for s in live_api(sandbox, "GET", "/orgs/org_acme/openapi")["items"]}
    assert slugs == {"payments", "platform-api"}


def test_a_share_link_renamed_without_the_lock_is_a_replacement_rail(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    help_site = "/orgs/org_acme/sites/site_help"
    replace_text(
        directory / "sites.yaml",
        "    published: true\n    spaces:",
        "    published: true\n    shareLinks:\n      partners: {}\n    spaces:",
    )
    apply(directory, sandbox)
    without_lock(directory)
    replace_text(directory / "sites.yaml", "      partners: {}\n", "      resellers: {}\n")
    prune_too(directory, "shareLinks")
    link = live_api(sandbox, "GET", f"{help_site}/share-links")["items"][0]["id"]

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert (
        f'[replacement] the plan deletes share_link {link} "partners" and creates '
        "site.help.shareLink.resellers in its place, and its key is in the URL people were "
        f"given: a new link has another; pin `id: {link}` in sites.yaml:"
    ) in result.output


def test_a_link_invite_whose_role_changed_without_the_lock_is_a_replacement_rail(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    invites = directory / "invites.yaml"
    invites.write_text("linkInvites:\n  join: {role: read}\n", encoding="utf-8")
    apply(directory, sandbox)
    without_lock(directory)
    invites.write_text("linkInvites:\n  join: {role: comment}\n", encoding="utf-8")
    prune_too(directory, "linkInvites")

    result = run(["plan", directory], sandbox)

    assert result.exit_code == 1, result.output
    assert "[replacement] the plan deletes link_invite li_" in result.output
    assert (
        "creates linkInvite.join in its place, and its id is the join link people were "
        "given: a new invite has another; pin `id: li_"
    ) in result.output
