"""One apply settles a site's structure order: sections, section groups and site spaces end
up in manifest order after a single ``docform apply``, whatever order the creates reach the
service in (a create that waits on a nested collection, a rate-limited or lost answer), and
whichever group a section comes from.

Each test arranges live state through the API of a seeded in-process sandbox (site_docs), writes
manifests, applies them once through the CLI, then checks that ``plan --detailed-exitcode``
exits 0 and reads the live order back through the API.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.engine.kind import AddressIndex, Desired, Ref
from docform.kind_framework.ordering import AS_CREATED, Container, reorder_changes
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    run,
    seeded_sandbox,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"


def write(manifests: Path, doc: dict[str, Any]) -> Path:
    return write_manifests(manifests, yaml.safe_dump(copy.deepcopy(doc), sort_keys=False))


def site_doc(sections: list[str], groups: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Manifests of site_docs with ``sections`` (each showing its own space ``s-<name>`` at
    path ``main``; space ``s-a`` sits in a collection nested two deep) in that order, and
    ``groups`` (title -> section names) in that order."""
    doc: dict[str, Any] = {
        "organization": {"id": "org_acme"},
        "collections": {
            "outer": {"title": "Outer"},
            "inner": {"title": "Inner", "parent": "outer"},
        },
        "spaces": {f"s-{name}": {"title": f"Space {name}"} for name in sections},
        "sites": {"docs": {"id": "site_docs"}},
    }
    if "s-a" in doc["spaces"]:
        doc["spaces"]["s-a"]["collection"] = "inner"
    site = doc["sites"]["docs"]
    if groups is not None:
        site["sectionGroups"] = {
            title.lower(): {"title": title, "sections": names} for title, names in groups.items()
        }
    site["sections"] = {
        name: {
            "title": f"Section {name}",
            "path": name,
            "spaces": {"main": {"space": f"s-{name}", "path": "main"}},
        }
        for name in sections
    }
    return doc


def live_paths(sandbox: Path) -> list[str]:
    """The paths of the live sections at the root of site_docs (in no group), in order."""
    sections = live_api(sandbox, "GET", f"{DOCS}/sections")["items"]
    return [s["path"] for s in sections if "sectionGroup" not in s]


def live_groups(sandbox: Path) -> list[tuple[str, list[str]]]:
    """(title, section paths) of the live groups of site_docs, in structure order."""
    groups = live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"]
    return [(g["title"], [s["path"] for s in g["sections"]]) for g in groups]


def apply_once(manifests: Path, sandbox: Path, *options: str) -> None:
    result = run(["apply", manifests, "--yes", *options], sandbox)
    assert result.exit_code == 0, result.output
    assert_converged(manifests, sandbox)


# -- creates that reach the service out of manifest order --------------------------------------


PARALLELISM = [pytest.param((), id="default"), pytest.param(("--parallelism", "1"), id="one")]


@pytest.mark.parametrize("options", PARALLELISM)
def test_section_waiting_on_a_nested_collection_still_comes_first(
    sandbox: Path, manifests: Path, options: tuple[str, ...]
) -> None:
    write(manifests, site_doc(["a", "c", "x"], {"X": ["x"]}))
    apply_once(manifests, sandbox, *options)
    assert live_paths(sandbox) == ["a", "c"]
    assert live_groups(sandbox) == [("X", ["x"])]


@pytest.mark.parametrize("options", PARALLELISM)
def test_group_waiting_on_a_nested_collection_still_comes_first(
    sandbox: Path, manifests: Path, options: tuple[str, ...]
) -> None:
    write(manifests, site_doc(["a", "c"], {"Zeta": ["a"], "Alpha": ["c"]}))
    apply_once(manifests, sandbox, *options)
    assert live_groups(sandbox) == [("Zeta", ["a"]), ("Alpha", ["c"])]


def test_root_site_spaces_keep_manifest_order_when_the_first_create_is_rate_limited(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = site_doc([])
    doc["spaces"] = {"help": {"title": "Help"}, "notes": {"title": "Notes"}}
    doc["sites"]["docs"]["spaces"] = {
        "help": {"space": "help", "path": "help"},
        "releases": {"space": "notes", "path": "releases"},
    }
    write(manifests, doc)
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "429:1@POST:/orgs/*/sites/*/site-spaces#1")
    monkeypatch.setenv("DOCFORM_SANDBOX_RETRY_AFTER", "0")
    apply_once(manifests, sandbox)
    shown = live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]
    assert [s["path"] for s in shown] == ["help", "releases"]


def test_sections_keep_manifest_order_when_no_answer_comes_to_the_first_create(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(manifests, site_doc(["b", "c"]))
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "drop:1@POST:/orgs/*/sites/*/sections#1")
    apply_once(manifests, sandbox)
    assert live_paths(sandbox) == ["b", "c"]


# -- sections joining, leaving and reordered inside groups -------------------------------------


def arrange(sandbox: Path, manifests: Path, doc: dict[str, Any]) -> None:
    """Live state exactly as ``doc`` says (applied and checked with a plan)."""
    write(manifests, doc)
    apply(manifests, sandbox, rehearse=False)
    assert_converged(manifests, sandbox)


def test_existing_section_moved_into_a_group_between_two_of_its_sections(
    sandbox: Path, manifests: Path
) -> None:
    arrange(sandbox, manifests, site_doc(["b", "c", "d"], {"G": ["b", "d"]}))
    write(manifests, site_doc(["b", "c", "d"], {"G": ["b", "c", "d"]}))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.c", "move"), ("site.docs.section.c", "reorder")]
    assert change(plan, "site.docs.section.c", "reorder")["depends_on"] == [
        "site.docs.section.c#move"
    ]
    apply_once(manifests, sandbox)
    assert live_groups(sandbox) == [("G", ["b", "c", "d"])]


def test_section_moved_from_one_group_to_another(sandbox: Path, manifests: Path) -> None:
    arrange(sandbox, manifests, site_doc(["b", "c", "d"], {"G": ["b", "c"], "H": ["d"]}))
    write(manifests, site_doc(["b", "c", "d"], {"G": ["b"], "H": ["c", "d"]}))
    plan = plan_json(manifests, sandbox)
    moved = change(plan, "site.docs.section.c", "move")
    [group_h] = [
        g for g in live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"] if g["title"] == "H"
    ]
    assert calls(moved) == [
        ("PATCH", f"{DOCS}/sections/{moved['id']}", {"siteSectionGroupId": group_h["id"]})
    ]
    assert actions(plan) == [("site.docs.section.c", "move"), ("site.docs.section.c", "reorder")]
    apply_once(manifests, sandbox)
    assert live_groups(sandbox) == [("G", ["b"]), ("H", ["c", "d"])]


def test_sections_reordered_inside_a_group_is_one_sort(sandbox: Path, manifests: Path) -> None:
    arrange(sandbox, manifests, site_doc(["b", "c"], {"G": ["b", "c"]}))
    # The group's list and the sections as written say one order (validate refuses two).
    write(manifests, site_doc(["c", "b"], {"G": ["c", "b"]}))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.c", "reorder")]
    [(method, path, _)] = calls(change(plan, "site.docs.section.c"))
    assert (method, path) == ("PATCH", f"{DOCS}/structure/sort")
    apply_once(manifests, sandbox)
    assert live_groups(sandbox) == [("G", ["c", "b"])]


def test_example_reference_group_reordered_settles_in_one_apply(tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "examples" / "acme"
    sandbox = seeded_sandbox(tmp_path, example / "sandbox-seed.yaml")
    manifests = tmp_path / "manifests"
    shutil.copytree(example / "manifests", manifests)
    apply_once(manifests, sandbox)
    sites = manifests / "sites.yaml"
    before = "reference: {title: Reference, sections: [api, sdks]}"
    assert before in sites.read_text(encoding="utf-8")
    text = sites.read_text(encoding="utf-8").replace(
        before, before.replace("api, sdks", "sdks, api")
    )
    # The sections written in the same order as the group lists them (one order).
    api = text[text.index("      api:\n") : text.index("      sdks:\n")]
    sdks = text[text.index("      sdks:\n") : text.index("      changelog:\n")]
    sites.write_text(text.replace(api + sdks, sdks + api), encoding="utf-8")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.devdocs.section.sdks", "reorder")]
    apply_once(manifests, sandbox)
    groups = live_api(sandbox, "GET", "/orgs/org_acme/sites/site_devdocs/section-groups")["items"]
    assert [(g["title"], [s["path"] for s in g["sections"]]) for g in groups] == [
        ("Start here", ["start"]),
        ("Reference", ["sdks", "api"]),
    ]


# -- reorder_changes on its own ----------------------------------------------------------------

SECTION = "site.docs.section"


def sections_of_docs(*live: str, created: tuple[str, ...] = ()) -> AddressIndex:
    """An index where site.docs is site_docs, each of ``live`` (``a``) is sec_a, and each of
    ``created`` is created by this apply."""
    index = AddressIndex()
    index.record("site", "site_docs", "site.docs")
    for name in live:
        index.record("section", f"sec_{name}", f"{SECTION}.{name}")
    for name in created:
        index.record_created(f"{SECTION}.{name}")
    return index


def wanted(*names: str) -> list[Desired]:
    return [
        Desired(f"{SECTION}.{name}", (name,), {"site": Ref("site.docs")}, "main.yaml:1:1")
        for name in names
    ]


def test_reorder_changes_moves_only_what_is_out_of_place() -> None:
    container = Container(wanted("a", "b", "c"), [f"{SECTION}.{n}" for n in ("a", "c", "b")])
    index = sections_of_docs("a", "b", "c")
    changes = reorder_changes("section", "site-section", "org_acme", [container], index)
    assert [(c.address, c.action, c.before, c.after) for c in changes] == [
        (
            f"{SECTION}.b",
            "reorder",
            {"position": f"after {SECTION}.c"},
            {"position": f"after {SECTION}.a"},
        )
    ]
    assert [c.to_json() for c in changes[0].calls] == [
        {
            "method": "PATCH",
            "path": f"{DOCS}/structure/sort",
            "body": {
                "item": {"type": "site-section", "id": "sec_b"},
                "position": {"after": {"type": "site-section", "id": "sec_a"}},
            },
        }
    ]


def test_reorder_changes_leaves_a_container_in_manifest_order_alone() -> None:
    container = Container(wanted("a", "b"), [f"{SECTION}.a", f"{SECTION}.b"])
    index = sections_of_docs("a", "b")
    assert reorder_changes("section", "site-section", "org_acme", [container], index) == []


def test_reorder_changes_sorts_racing_creates_after_what_brings_them_in() -> None:
    container = Container(
        wanted("a", "b"),
        [],
        racing=frozenset({f"{SECTION}.a", f"{SECTION}.b"}),
        after=("site.docs.section.a#create", "site.docs.section.b#create"),
    )
    index = sections_of_docs(created=("a", "b"))
    changes = reorder_changes("section", "site-section", "org_acme", [container], index)
    assert [(c.address, c.before, c.depends_on) for c in changes] == [
        (
            f"{SECTION}.b",
            {"position": AS_CREATED},
            ["site.docs.section.a#create", "site.docs.section.b#create"],
        )
    ]
    assert changes[0].calls[0].to_json()["body"] == {
        "item": {"type": "site-section", "id": {"$placeholder": f"{SECTION}.b.id"}},
        "position": {"after": {"type": "site-section", "id": {"$placeholder": f"{SECTION}.a.id"}}},
    }
