"""End to end: section groups nested in section groups (``sectionGroups.<name>.group``).

A group is created inside its group (``parent``), joins another group or the top level through
its own PATCH (``parentSectionGroupId``), and its sections join it through theirs
(``siteSectionGroupId``); every nesting the manifests can write settles in one apply, read back
through the API, and export writes it back as the manifests had it.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"


def site(groups: dict[str, str | None], sections: dict[str, list[str]]) -> dict[str, Any]:
    """site_docs with ``groups`` (name -> the group it sits in) each holding the sections
    ``sections`` gives it, one section ``s-<group>`` per group."""
    group_entries: dict[str, Any] = {}
    for name, parent in groups.items():
        group_entries[name] = {"title": name.upper(), "sections": sections.get(name, [])}
        if parent is not None:
            group_entries[name]["group"] = parent
    names = [s for listed in sections.values() for s in listed]
    return {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {
            "docs": {
                "id": "site_docs",
                "sectionGroups": group_entries,
                "sections": {
                    n: {"path": n, "spaces": {"main": {"space": "handbook", "path": "main"}}}
                    for n in names
                },
            }
        },
    }


def write(manifests: Path, doc: dict[str, Any]) -> None:
    write_manifests(manifests, yaml.safe_dump(copy.deepcopy(doc), sort_keys=False))


def live_nesting(sandbox: Path) -> dict[str, tuple[str | None, list[str]]]:
    """Each live group's title -> (the title of the group it sits in, its sections' paths)."""
    groups = live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"]
    titles = {g["id"]: g["title"] for g in groups}
    return {
        g["title"]: (
            titles.get(g.get("sectionGroup", "")),
            [c["path"] for c in g["children"] if c["object"] == "site-section"],
        )
        for g in groups
    }


def test_a_nested_group_is_created_inside_its_group(sandbox: Path, manifests: Path) -> None:
    write(manifests, site({"a": None, "b": "a"}, {"b": ["one"]}))
    plan = plan_json(manifests, sandbox)
    inner = change(plan, "site.docs.sectionGroup.b", "create")
    body = {"title": "B", "parent": {"$placeholder": "site.docs.sectionGroup.a.id"}}
    assert calls(inner) == [("POST", f"{DOCS}/section-groups", body)]
    assert "site.docs.sectionGroup.a#create" in inner["depends_on"]
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 0
    assert_converged(manifests, sandbox)
    assert live_nesting(sandbox) == {"A": (None, []), "B": ("A", ["one"])}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param({"a": None, "b": None}, {"a": None, "b": "a"}, id="into-a-group"),
        pytest.param({"a": None, "b": "a"}, {"a": None, "b": None}, id="out-to-the-top"),
        pytest.param({"a": None, "b": "a"}, {"a": "b", "b": None}, id="parent-and-child-swap"),
        pytest.param(
            {"x": None, "q": "x", "p": "q"},
            {"x": "p", "q": None, "p": "q"},
            id="into-a-group-whose-parent-leaves-it",
        ),
        pytest.param(
            {"a": None, "b": "a", "c": "b"},
            {"a": "b", "b": "c", "c": None},
            id="a-chain-turned-over",
        ),
    ],
)
def test_a_group_changes_its_group_through_its_own_patch_in_one_apply(
    sandbox: Path,
    manifests: Path,
    before: dict[str, str | None],
    after: dict[str, str | None],
) -> None:
    sections = {name: [f"s-{name}"] for name in before}
    write(manifests, site(before, sections))
    apply(manifests, sandbox)
    ids = {g["title"]: g["id"] for g in live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"]}
    write(manifests, site(after, sections))
    plan = plan_json(manifests, sandbox)
    moved = {name for name in after if after[name] != before[name]}
    assert sorted(actions(plan)) == sorted(
        (f"site.docs.sectionGroup.{name}", "move") for name in moved
    )
    for name in moved:
        parent = after[name]
        body = {"parentSectionGroupId": None if parent is None else ids[parent.upper()]}
        assert calls(change(plan, f"site.docs.sectionGroup.{name}", "move")) == [
            ("PATCH", f"{DOCS}/section-groups/{ids[name.upper()]}", body)
        ]
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 0
    assert_converged(manifests, sandbox)
    assert live_nesting(sandbox) == {
        name.upper(): (None if parent is None else parent.upper(), [f"s-{name}"])
        for name, parent in after.items()
    }


def test_sections_of_a_nested_group_keep_their_order(sandbox: Path, manifests: Path) -> None:
    write(manifests, site({"a": None, "b": "a"}, {"a": ["one"], "b": ["two", "three"]}))
    apply(manifests, sandbox)
    write(manifests, site({"a": None, "b": "a"}, {"a": [], "b": ["three", "one", "two"]}))
    plan = plan_json(manifests, sandbox)
    assert ("site.docs.section.one", "move") in actions(plan)
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 0
    assert_converged(manifests, sandbox)
    assert live_nesting(sandbox)["B"] == ("A", ["three", "one", "two"])


def test_export_writes_the_nesting_and_plans_no_change(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write(manifests, site({"a": None, "b": "a", "c": "b"}, {"c": ["deep"], "a": ["top"]}))
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text(encoding="utf-8"))["sites"]
    # Export ties entries to live objects in docform.lock, not with `id:` in the entry.
    ids = yaml.safe_load((exported / "docform.lock").read_text(encoding="utf-8"))["ids"]
    [docs] = [entry for name, entry in sites.items() if ids[f"site.{name}"] == "site_docs"]
    groups = docs["sectionGroups"]
    title = {name: group["title"] for name, group in groups.items()}
    nesting = {g["title"]: title.get(g.get("group", "")) for g in groups.values()}
    assert nesting == {"A": None, "B": "A", "C": "B"}
    assert run(["plan", exported, "--detailed-exitcode"], sandbox).exit_code == 0
