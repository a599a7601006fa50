"""End to end: a site space's overrides of its site's customization (``customization:`` on a
site space), set, changed and cleared through the CLI against a seeded in-process sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
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
ADDRESS = "site.docs.section.guides.space.main.customization"


def manifests(directory: Path, override: dict[str, Any] | None) -> Path:
    space: dict[str, Any] = {"space": "handbook", "path": "handbook"}
    if override is not None:
        space["customization"] = override
    site = {
        "id": "site_docs",
        "sections": {"guides": {"title": "Guides", "path": "guides", "spaces": {"main": space}}},
    }
    document = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def effective(sandbox: Path) -> dict[str, Any]:
    [site_space] = live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]
    return live_api(sandbox, "GET", f"{DOCS}/site-spaces/{site_space['id']}/customization")


@pytest.fixture(scope="module")
def base_applied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded sandbox with site_docs showing its space, with no overrides, applied once
    for the module; tests take copies."""
    return seeded_and_applied(manifests(tmp_path_factory.mktemp("base") / "manifests", None))


@pytest.fixture
def sandbox(tmp_path: Path, base_applied: Path) -> Path:
    return copy_sandbox(base_applied, tmp_path)


def test_an_override_set_then_cleared(tmp_path: Path, sandbox: Path) -> None:
    dark = {"light": "#111111", "dark": "#222222"}
    directory = manifests(tmp_path / "m", {"styling": {"primaryColor": dark}, "title": "Guide"})
    plan = plan_json(directory, sandbox)
    fields = {f["path"]: (f["before"], f["after"]) for f in change(plan, ADDRESS)["fields"]}
    assert fields == {
        "styling.primaryColor.light": ("#346DDB", "#111111"),
        "styling.primaryColor.dark": ("#346DDB", "#222222"),
        "title": (None, "Guide"),
    }
    [(method, _, body)] = calls(change(plan, ADDRESS))
    assert (method, body) == ("PATCH", {"styling": {"primaryColor": dark}, "title": "Guide"})
    apply(directory, sandbox)
    assert effective(sandbox)["styling"]["primaryColor"] == dark
    assert_converged(directory, sandbox)
    cleared = manifests(tmp_path / "n", {"styling": {"primaryColor": None}})
    plan = plan_json(cleared, sandbox)
    [field] = change(plan, ADDRESS)["fields"]
    assert (field["path"], field["before"], field["after"]) == (
        "styling.primaryColor",
        dark,
        "(the site's value)",
    )
    [(_, _, body)] = calls(change(plan, ADDRESS))
    assert body == {"styling": {"primaryColor": None}}
    apply(cleared, sandbox)
    shown = effective(sandbox)
    assert shown["styling"]["primaryColor"] == {"light": "#346DDB", "dark": "#346DDB"}
    assert shown["title"] == "Guide"  # left out: its override stays
    assert_converged(cleared, sandbox)


def test_a_key_the_api_does_not_override_is_refused_at_load(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"ai": {"mode": "none"}})
    result = run(["validate", directory], sandbox)
    assert result.exit_code == 1
    assert (
        "spaces.main.customization.ai: unknown key 'ai': a site space cannot override it: set "
        "it in the site's customization"
    ) in result.output


DARK = {"light": "#111111", "dark": "#222222"}
BANNER = {"enabled": True, "message": "Old docs", "style": "warning"}


def site_space_path(sandbox: Path) -> str:
    [site_space] = live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]
    return f"{DOCS}/site-spaces/{site_space['id']}/customization"


def test_clearing_every_override_is_one_delete(tmp_path: Path, sandbox: Path) -> None:
    set_ = {"styling": {"primaryColor": DARK}, "title": "Guide", "announcement": BANNER}
    apply(manifests(tmp_path / "m", set_), sandbox)
    site = live_api(sandbox, "GET", f"{DOCS}/customization")
    directory = manifests(tmp_path / "n", {"managed": "whole"})
    plan = plan_json(directory, sandbox)
    found = change(plan, ADDRESS, "update")
    cleared = {f["path"]: f["after"] for f in found["fields"]}
    assert cleared == {
        "styling.primaryColor": "(the site's value)",
        "title": "(the site's value)",
        "announcement": "(the site's value)",
    }
    assert calls(found) == [("DELETE", site_space_path(sandbox), None)]
    apply(directory, sandbox)
    shown = effective(sandbox)
    assert shown["styling"]["primaryColor"] == site["styling"]["primaryColor"]
    assert "announcement" not in shown and "title" not in shown
    assert_converged(directory, sandbox)


def test_a_whole_block_clears_the_others_then_sets_its_own(tmp_path: Path, sandbox: Path) -> None:
    apply(manifests(tmp_path / "m", {"title": "Guide", "announcement": BANNER}), sandbox)
    directory = manifests(tmp_path / "n", {"managed": "whole", "title": "Guide"})
    plan = plan_json(directory, sandbox)
    found = change(plan, ADDRESS, "update")
    assert [f["path"] for f in found["fields"]] == ["announcement"]
    path = site_space_path(sandbox)
    assert calls(found) == [("DELETE", path, None), ("PATCH", path, {"title": "Guide"})]
    apply(directory, sandbox)
    shown = effective(sandbox)
    assert shown["title"] == "Guide" and "announcement" not in shown
    assert_converged(directory, sandbox)


def test_export_writes_the_overrides_and_plans_no_change(tmp_path: Path, sandbox: Path) -> None:
    set_ = {"styling": {"primaryColor": DARK, "theme": "bold"}, "announcement": BANNER}
    apply(manifests(tmp_path / "m", set_), sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    site = next(iter(yaml.safe_load((exported / "sites.yaml").read_text())["sites"].values()))
    [section] = site["sections"].values()
    [site_space] = section["spaces"].values()
    assert site_space["customization"] == {
        "announcement": BANNER,
        "styling": {"primaryColor": DARK, "theme": "bold"},
    }
    assert_converged(exported, sandbox)
