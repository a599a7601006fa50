"""End to end: what collections, spaces and teams do alike, one case per kind: renamed by
``formerly`` (a team by its pinned id too), listed when unmanaged, deleted under prune, and
(a collection or a space) moved to another collection by its pinned id, also out of a
collection that prune deletes.

Each case arranges live state through the API of a seeded in-process sandbox, writes manifests,
checks the plan's actions and calls, applies it, checks that a second plan is empty and reads
the result back. What only one kind does is in its own module (test_plan_content.py,
test_plan_people.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_plan_content import ORG
from test_plan_people import with_org

from live_objects import ORG_PATH, create_collection, create_space, create_team, space
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    write_manifests,
)


@dataclass(frozen=True)
class Kind:
    """A kind as these cases write and arrange it."""

    name: str
    plural: str
    """Its manifest section, and the segment of its organization's list route."""
    head: str
    """What its manifests hold besides its own section."""
    path: Callable[[str], str]
    """The route of one live object, by id."""
    create: Callable[[Path, str], str]
    """A live object with a title, made through the API; returns its id."""
    create_legacy: Callable[[Path, str], str]
    """The live object that prune deletes."""


def team_with_a_member(sandbox: Path, title: str) -> str:
    return create_team(sandbox, title, {"erin@acme.test": "member"})


KINDS = {
    kind.name: kind
    for kind in (
        Kind(
            "collection", "collections", ORG, lambda id: f"/collections/{id}",
            create_collection, create_collection,
        ),
        Kind("space", "spaces", ORG, lambda id: f"/spaces/{id}", create_space, create_space),
        Kind(
            "team", "teams", with_org(), lambda id: f"{ORG_PATH}/teams/{id}",
            create_team, team_with_a_member,
        ),
    )
}  # fmt: skip


def live_list(sandbox: Path, kind: Kind) -> list[tuple[str, str]]:
    """(title, id) of each live object of the kind in org_acme."""
    items = live_api(sandbox, "GET", f"{ORG_PATH}/{kind.plural}")["items"]
    return [(item["title"], item["id"]) for item in items]


def manifests_of(kind: Kind, entries: str, settings: str = "") -> str:
    return settings + kind.head + f"{kind.plural}:\n" + entries


RENAMES = {
    "collection-formerly": (
        "collection", "Engineering", "{title: Product Engineering, formerly: [Engineering]}",
        "Product Engineering",
    ),
    "space-formerly": (
        "space", "Handbook", "{title: Team Handbook, formerly: [Handbook]}", "Team Handbook"
    ),
    "team-formerly": (
        "team", "Platform", "{title: Core Platform, formerly: [Platform]}", "Core Platform"
    ),
    "team-pinned-id": ("team", "Platform", "{id: LIVE_ID, title: Core Platform}", "Core Platform"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RENAMES))
def test_an_entry_is_renamed_by_formerly_or_pinned_id(
    sandbox: Path, manifests: Path, case: str
) -> None:
    name, title, entry, new_title = RENAMES[case]
    kind = KINDS[name]
    live_id = kind.create(sandbox, title)
    key = title.lower()
    write_manifests(
        manifests, manifests_of(kind, f"  {key}: {entry.replace('LIVE_ID', live_id)}\n")
    )

    plan = plan_json(manifests, sandbox)

    assert actions(plan) == [(f"{name}.{key}", "update")]
    assert calls(change(plan, f"{name}.{key}", "update")) == [
        ("PATCH", kind.path(live_id), {"title": new_title})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_list(sandbox, kind) == [(new_title, live_id)]


@pytest.mark.parametrize("name", list(KINDS))
def test_an_unmanaged_object_is_listed_without_prune(
    sandbox: Path, manifests: Path, name: str
) -> None:
    kind = KINDS[name]
    legacy = kind.create(sandbox, "Legacy")
    write_manifests(manifests, kind.head)
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    listed = [u for u in plan["unmanaged"] if u["kind"] == name]
    assert listed == [{"kind": name, "id": legacy, "title": "Legacy"}]


@pytest.mark.parametrize("name", list(KINDS))
def test_an_unmanaged_object_is_deleted_under_prune(
    sandbox: Path, manifests: Path, name: str
) -> None:
    kind = KINDS[name]
    kept = kind.create(sandbox, "Engineering")
    legacy = kind.create_legacy(sandbox, "Legacy")
    prune = f"docform: {{prune: {{{kind.plural}: true}}}}\n"
    write_manifests(manifests, manifests_of(kind, "  engineering: {title: Engineering}\n", prune))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"{name}.~{legacy}", "delete")]
    assert calls(change(plan, f"{name}.~{legacy}")) == [("DELETE", kind.path(legacy), None)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_list(sandbox, kind) == [("Engineering", kept)]
    if name == "space":  # a deleted space stays readable, to be restored for a while
        assert space(sandbox, legacy)["deletedAt"]


MOVES = {
    # kind: the entry moved, the field that names its collection, how it is made in one
    "collection": ("Runbooks", "parent", create_collection),
    "space": ("Handbook", "collection", create_space),
}


@pytest.mark.parametrize("name", list(MOVES))
def test_an_entry_with_a_pinned_id_moves_to_another_collection(
    sandbox: Path, manifests: Path, name: str
) -> None:
    title, field, create_in = MOVES[name]
    kind, key = KINDS[name], title.lower()
    engineering = create_collection(sandbox, "Engineering")
    operations = create_collection(sandbox, "Operations")
    moved = create_in(sandbox, title, engineering)
    entry = f"  {key}: {{id: {moved}, title: {title}, {field}: operations}}\n"
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + f"  engineering: {{id: {engineering}, title: Engineering}}\n"
        + f"  operations: {{id: {operations}, title: Operations}}\n"
        + (entry if name == "collection" else "spaces:\n" + entry),
    )

    plan = plan_json(manifests, sandbox)

    assert actions(plan) == [(f"{name}.{key}", "move")]
    assert calls(change(plan, f"{name}.{key}")) == [
        ("POST", f"{kind.path(moved)}/move", {"parent": operations})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_api(sandbox, "GET", kind.path(moved))["parent"] == operations


@pytest.mark.parametrize("name", list(MOVES))
def test_a_pruned_collection_is_deleted_after_what_it_held_moves_out(
    sandbox: Path, manifests: Path, name: str
) -> None:
    title, field, create_in = MOVES[name]
    kind, key = KINDS[name], title.lower()
    engineering = create_collection(sandbox, "Engineering")
    legacy = create_collection(sandbox, "Legacy")
    moved = create_in(sandbox, title, legacy)
    entry = f"  {key}: {{id: {moved}, title: {title}, {field}: engineering}}\n"
    write_manifests(
        manifests,
        "docform: {prune: {collections: true}}\n"
        + ORG
        + f"collections:\n  engineering: {{id: {engineering}, title: Engineering}}\n"
        + (entry if name == "collection" else "spaces:\n" + entry),
    )

    plan = plan_json(manifests, sandbox)

    assert actions(plan) == [(f"{name}.{key}", "move"), (f"collection.~{legacy}", "delete")]
    delete = change(plan, f"collection.~{legacy}", "delete")
    assert delete["depends_on"] == [f"{name}.{key}#move"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = live_api(sandbox, "GET", kind.path(moved))
    assert (live["parent"], live.get("deletedAt")) == (engineering, None)
    left = [("Engineering", engineering)] + ([(title, moved)] if name == "collection" else [])
    assert sorted(live_list(sandbox, KINDS["collection"])) == sorted(left)
