"""End to end: external links in a site's navigation (``sites.<s>.externalLinks``) created,
placed among sections, reordered, changed, moved, pruned and exported through the CLI against
a seeded in-process sandbox (site_docs, with no structure)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from live_objects import top_level
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    copy_sandbox,
    live_api,
    plan_json,
    run,
    seeded_and_applied,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
LINK = "site.docs.externalLink.status"


def manifests(
    directory: Path, links: dict[str, Any] | None, groups: dict[str, Any] | None = None
) -> Path:
    site: dict[str, Any] = {
        "id": "site_docs",
        "sections": {
            name: {
                "title": name.title(),
                "path": name,
                "spaces": {"main": {"space": "handbook", "path": "handbook"}},
            }
            for name in ("guides", "reference")
        },
    }
    if groups is not None:
        site["sectionGroups"] = groups
    if links is not None:
        site["externalLinks"] = links
    document = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


STATUS = {"title": "Status", "url": "https://status.acme.test"}


@pytest.fixture(scope="module")
def base_applied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded sandbox with site_docs with its two sections and no links, applied once
    for the module; tests take copies."""
    return seeded_and_applied(manifests(tmp_path_factory.mktemp("base") / "manifests", None))


@pytest.fixture
def sandbox(tmp_path: Path, base_applied: Path) -> Path:
    return copy_sandbox(base_applied, tmp_path)


def test_a_link_added_between_two_sections_and_reordered(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"status": {**STATUS, "after": "guides"}})
    plan = plan_json(directory, sandbox)
    assert actions(plan) == [(LINK, "create"), (LINK, "reorder")]
    [(method, path, body)] = calls(change(plan, LINK, "create"))
    assert (method, path) == ("POST", f"{DOCS}/external-links")
    assert body == {"title": "Status", "url": "https://status.acme.test"}
    apply(directory, sandbox)
    assert top_level(sandbox) == ["Guides", "Status", "Reference"]
    assert_converged(directory, sandbox)
    moved = manifests(tmp_path / "n", {"status": {**STATUS, "after": "reference"}})
    plan = plan_json(moved, sandbox)
    assert actions(plan) == [(LINK, "reorder")]
    [field] = change(plan, LINK)["fields"]
    assert (field["before"], field["after"]) == (
        "after site.docs.section.guides",
        "after site.docs.section.reference",
    )
    apply(moved, sandbox)
    assert top_level(sandbox) == ["Guides", "Reference", "Status"]
    assert_converged(moved, sandbox)


def test_drift_sees_a_link_moved_by_hand(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"status": {**STATUS, "after": "guides"}})
    apply(directory, sandbox)
    link_id = live_api(sandbox, "GET", f"{DOCS}/structure")["structure"][1]["id"]
    first_id = live_api(sandbox, "GET", f"{DOCS}/structure")["structure"][0]["id"]
    sort = {
        "item": {"type": "site-external-link", "id": link_id},
        "position": {"before": {"type": "site-section", "id": first_id}},
    }
    live_api(sandbox, "PATCH", f"{DOCS}/structure/sort", sort)
    assert top_level(sandbox) == ["Status", "Guides", "Reference"]
    result = run(["drift", directory], sandbox)
    assert result.exit_code == 2, result.output
    assert LINK in result.output


def test_a_link_changed_moved_into_a_group_and_deleted(tmp_path: Path, sandbox: Path) -> None:
    apply(manifests(tmp_path / "a", {"status": STATUS}), sandbox)
    groups = {"more": {"title": "More", "sections": ["reference"]}}
    changed = {"status": {**STATUS, "url": "https://status.acme.test/v2", "group": "more"}}
    directory = manifests(tmp_path / "b", changed, groups)
    apply(directory, sandbox)
    [group] = [
        item
        for item in live_api(sandbox, "GET", f"{DOCS}/structure")["structure"]
        if item["object"] == "site-section-group"
    ]
    [link] = [c for c in group["children"] if c["object"] == "site-external-link"]
    assert link["url"] == "https://status.acme.test/v2"
    assert_converged(directory, sandbox)
    pruned = manifests(tmp_path / "c", {}, groups)
    with (pruned / "main.yaml").open("a") as file:
        file.write("docform: {prune: {externalLinks: true}}\n")
    plan = plan_json(pruned, sandbox)
    assert [a for _, a in actions(plan)] == ["delete"]
    apply(pruned, sandbox)
    assert_converged(pruned, sandbox)


def test_export_then_plan_shows_no_changes(tmp_path: Path, sandbox: Path) -> None:
    apply(manifests(tmp_path / "m", {"status": {**STATUS, "after": "guides"}}), sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    site = next(iter(yaml.safe_load((exported / "sites.yaml").read_text())["sites"].values()))
    [link] = site["externalLinks"].values()
    assert link["after"] in site["sections"]
    assert_converged(exported, sandbox)


def test_after_naming_no_sibling_is_refused_at_load(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"status": {**STATUS, "after": "guidse"}})
    result = run(["validate", directory], sandbox)
    assert result.exit_code == 1
    assert "externalLinks.status.after" in result.output
    assert "(did you mean 'guides'?)" in result.output
