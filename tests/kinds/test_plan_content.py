"""End to end: plan and apply of collections and spaces (create, update, rename, move, delete,
restore), and the number of requests a plan of a converged organization makes.

Live state is arranged through the API of a seeded in-process sandbox; each test checks the
plan's actions, calls and dependencies, applies it, checks that a second plan is empty and
reads the result back.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import make_plan
from live_objects import collection, create_collection, create_space, live_titles, space
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    plan_request_count,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
ORG = "organization: {id: org_acme}\n"
PRUNE_COLLECTIONS = "docform: {prune: {collections: true}}\n"
PRUNE_SPACES = "docform: {prune: {spaces: true}}\n"


# -- collections -------------------------------------------------------------------------------


def test_nested_collections_are_created_parent_first(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + "  runbooks: {title: Runbooks, parent: engineering}\n"
        + "  engineering: {title: Engineering}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("collection.engineering", "create"),
        ("collection.runbooks", "create"),
    ]
    child = change(plan, "collection.runbooks")
    body = {"title": "Runbooks", "parent": {"$placeholder": "collection.engineering.id"}}
    assert calls(child) == [("POST", f"{ORG_PATH}/collections", body)]
    assert child["depends_on"] == ["collection.engineering#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    ids = live_titles(sandbox, "collections")
    assert collection(sandbox, ids["Runbooks"])["parent"] == ids["Engineering"]


def test_collection_description_and_default_level_are_patched_after_create(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + "  engineering: {title: Engineering, description: How we build, defaultLevel: read}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "collection.engineering")) == [
        ("POST", f"{ORG_PATH}/collections", {"title": "Engineering"}),
        (
            "PATCH",
            "/collections/${collection.engineering.id}",
            {"description": "How we build", "defaultLevel": "read"},
        ),
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = collection(sandbox, live_titles(sandbox, "collections")["Engineering"])
    assert (live["description"], live["defaultLevel"]) == ("How we build", "read")


@pytest.mark.parametrize(
    ("yaml_fields", "body"),
    [
        ("title: Platform Engineering", {"title": "Platform Engineering"}),
        ("description: How we build", {"description": "How we build"}),
        ("defaultLevel: comment", {"defaultLevel": "comment"}),
        ("defaultLevel: guest", {"defaultLevel": None}),
    ],
    ids=lambda value: None if isinstance(value, dict) else value.split(":")[0],
)
def test_collection_field_is_patched(
    sandbox: Path, manifests: Path, yaml_fields: str, body: dict
) -> None:
    collection_id = create_collection(sandbox, "Engineering")
    fields = yaml_fields if "title:" in yaml_fields else f"title: Engineering, {yaml_fields}"
    write_manifests(
        manifests, ORG + f"collections:\n  engineering: {{id: {collection_id}, {fields}}}\n"
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("collection.engineering", "update")]
    assert calls(change(plan, "collection.engineering")) == [
        ("PATCH", f"/collections/{collection_id}", body)
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    ((field, value),) = body.items()
    assert collection(sandbox, collection_id)[field] == value


def test_nested_collection_is_matched_by_parent_and_title(sandbox: Path, manifests: Path) -> None:
    engineering = create_collection(sandbox, "Engineering")
    create_collection(sandbox, "Guides", engineering)
    create_collection(sandbox, "Guides")
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + "  engineering: {title: Engineering}\n"
        + "  guides: {title: Guides, parent: engineering}\n"
        + "  top-guides: {title: Guides}\n",
    )
    assert plan_json(manifests, sandbox)["changes"] == []


def test_collection_with_pinned_id_moves_to_the_top_level(sandbox: Path, manifests: Path) -> None:
    engineering = create_collection(sandbox, "Engineering")
    runbooks = create_collection(sandbox, "Runbooks", engineering)
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + f"  engineering: {{id: {engineering}, title: Engineering}}\n"
        + f"  runbooks: {{id: {runbooks}, title: Runbooks}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "collection.runbooks", "move")) == [
        ("POST", f"/collections/{runbooks}/move", {"parent": None})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert collection(sandbox, runbooks).get("parent") is None


def test_collection_moves_into_a_collection_created_in_the_same_apply(
    sandbox: Path, manifests: Path
) -> None:
    runbooks = create_collection(sandbox, "Runbooks")
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + "  operations: {title: Operations}\n"
        + f"  runbooks: {{id: {runbooks}, title: Runbooks, parent: operations}}\n",
    )
    plan = plan_json(manifests, sandbox)
    move = change(plan, "collection.runbooks", "move")
    body = {"parent": {"$placeholder": "collection.operations.id"}}
    assert calls(move) == [("POST", f"/collections/{runbooks}/move", body)]
    assert move["depends_on"] == ["collection.operations#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert (
        collection(sandbox, runbooks)["parent"] == live_titles(sandbox, "collections")["Operations"]
    )


def test_collections_swapping_parent_and_child_move_in_a_safe_order(
    sandbox: Path, manifests: Path
) -> None:
    outer = create_collection(sandbox, "Outer")
    inner = create_collection(sandbox, "Inner", outer)
    write_manifests(
        manifests,
        ORG
        + "collections:\n"
        + f"  outer: {{id: {outer}, title: Outer, parent: inner}}\n"
        + f"  inner: {{id: {inner}, title: Inner}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert change(plan, "collection.outer", "move")["depends_on"] == ["collection.inner#move"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert collection(sandbox, outer)["parent"] == inner


def test_pruned_nested_collection_is_deleted_before_its_parent(
    sandbox: Path, manifests: Path
) -> None:
    legacy = create_collection(sandbox, "Legacy")
    old = create_collection(sandbox, "Old", legacy)
    write_manifests(manifests, PRUNE_COLLECTIONS + ORG)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"collection.~{old}", "delete"), (f"collection.~{legacy}", "delete")]
    assert change(plan, f"collection.~{legacy}")["depends_on"] == [f"collection.~{old}#delete"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_titles(sandbox, "collections") == {}


# -- spaces ------------------------------------------------------------------------------------


def test_space_is_created_in_a_collection_created_in_the_same_apply(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        ORG
        + "collections:\n  engineering: {title: Engineering}\n"
        + "spaces:\n"
        + '  handbook: {title: Handbook, emoji: "📘", collection: engineering, language: fr,'
        + " editMode: locked}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("collection.engineering", "create"), ("space.handbook", "create")]
    created = change(plan, "space.handbook")
    body = {
        "title": "Handbook",
        "emoji": "📘",
        "language": "fr",
        "editMode": "locked",
        "parent": {"$placeholder": "collection.engineering.id"},
    }
    assert calls(created) == [("POST", f"{ORG_PATH}/spaces", body)]
    assert created["depends_on"] == ["collection.engineering#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = space(sandbox, live_titles(sandbox, "spaces")["Handbook"])
    assert live["parent"] == live_titles(sandbox, "collections")["Engineering"]
    assert (live["emoji"], live["language"], live["editMode"]) == ("📘", "fr", "locked")


def test_space_default_level_and_merge_rules_are_patched_after_create(
    sandbox: Path, manifests: Path
) -> None:
    engineering = create_collection(sandbox, "Engineering")
    write_manifests(
        manifests,
        ORG
        + f"collections:\n  engineering: {{id: {engineering}, title: Engineering}}\n"
        + "spaces:\n"
        + "  handbook: {title: Handbook, collection: engineering, defaultLevel: read,"
        + " mergeRules: {type: none}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "space.handbook")) == [
        ("POST", f"{ORG_PATH}/spaces", {"title": "Handbook", "parent": engineering}),
        (
            "PATCH",
            "/spaces/${space.handbook.id}",
            {"defaultLevel": "read", "mergeRules": {"type": "none"}},
        ),
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = space(sandbox, live_titles(sandbox, "spaces")["Handbook"])
    assert (live["defaultLevel"], live["mergeRules"]) == ("read", {"type": "none"})


MERGE_RULES_YAML = (
    "mergeRules: {type: rules, rules: [{rule: allow_bypass, users: [erin@acme.test]},"
    " {rule: custom, expression: 'true', message: Always}]}"
)
MERGE_RULES_API = {
    "type": "rules",
    "rules": [
        {"rule": "allow_bypass", "users": ["u_erin"]},
        {"rule": "custom", "expression": "true", "message": "Always"},
    ],
}


@pytest.mark.parametrize(
    ("yaml_fields", "body"),
    [
        ("title: Team Handbook", {"title": "Team Handbook"}),
        ('emoji: "🚀"', {"emoji": "🚀"}),
        ("language: de", {"language": "de"}),
        ("editMode: locked", {"editMode": "locked"}),
        ("defaultLevel: review", {"defaultLevel": "review"}),
        ("defaultLevel: guest", {"defaultLevel": None}),
        ("defaultLevel: inherit", {"defaultLevel": "inherit"}),
        ("mergeRules: {type: none}", {"mergeRules": {"type": "none"}}),
        (MERGE_RULES_YAML, {"mergeRules": MERGE_RULES_API}),
    ],
    ids=lambda value: None if isinstance(value, dict) else value.split(":")[0],
)
def test_space_field_is_patched(
    sandbox: Path, manifests: Path, yaml_fields: str, body: dict
) -> None:
    handbook = create_space(sandbox, "Handbook")
    # A level the space does not have yet, so that "inherit" is a change too.
    live_api(sandbox, "PATCH", f"/spaces/{handbook}", {"defaultLevel": "read"})
    fields = yaml_fields if "title:" in yaml_fields else f"title: Handbook, {yaml_fields}"
    write_manifests(
        manifests,
        ORG
        + "members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}\n"
        + f"spaces:\n  handbook: {{id: {handbook}, {fields}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "update")]
    assert calls(change(plan, "space.handbook")) == [("PATCH", f"/spaces/{handbook}", body)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    ((field, value),) = body.items()
    assert space(sandbox, handbook)[field] == value


def test_space_emoji_null_removes_the_emoji_and_converges(sandbox: Path, manifests: Path) -> None:
    handbook = live_api(
        sandbox, "POST", f"{ORG_PATH}/spaces", {"title": "Handbook", "emoji": "📘"}
    )["id"]
    write_manifests(manifests, ORG + "spaces:\n  handbook: {title: Handbook, emoji: null}\n")
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "space.handbook")) == [
        ("PATCH", f"/spaces/{handbook}", {"emoji": None})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_space_with_pinned_id_moves_and_is_renamed_in_one_plan(
    sandbox: Path, manifests: Path
) -> None:
    engineering = create_collection(sandbox, "Engineering")
    handbook = create_space(sandbox, "Handbook")
    write_manifests(
        manifests,
        ORG
        + f"collections:\n  engineering: {{id: {engineering}, title: Engineering}}\n"
        + f"spaces:\n  handbook: {{id: {handbook}, title: Guide, collection: engineering}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert sorted(actions(plan)) == [("space.handbook", "move"), ("space.handbook", "update")]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = space(sandbox, handbook)
    assert (live["title"], live["parent"]) == ("Guide", engineering)


def test_recently_deleted_pinned_space_is_restored(sandbox: Path, manifests: Path) -> None:
    handbook = create_space(sandbox, "Handbook")
    live_api(sandbox, "DELETE", f"/spaces/{handbook}")
    write_manifests(manifests, ORG + f"spaces:\n  handbook: {{id: {handbook}, title: Handbook}}\n")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "restore")]
    assert calls(change(plan, "space.handbook")) == [("POST", f"/spaces/{handbook}/restore", None)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert space(sandbox, handbook).get("deletedAt") is None


def test_restored_space_is_updated_after_the_restore(sandbox: Path, manifests: Path) -> None:
    handbook = create_space(sandbox, "Handbook")
    live_api(sandbox, "DELETE", f"/spaces/{handbook}")
    write_manifests(manifests, ORG + f"spaces:\n  handbook: {{id: {handbook}, title: Guide}}\n")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "restore"), ("space.handbook", "update")]
    assert change(plan, "space.handbook", "update")["depends_on"] == ["space.handbook#restore"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert space(sandbox, handbook)["title"] == "Guide"


def test_pinned_space_deleted_over_seven_days_ago_is_drift_created_anew(
    sandbox: Path, manifests: Path
) -> None:
    handbook = create_space(sandbox, "Handbook")
    live_api(sandbox, "DELETE", f"/spaces/{handbook}")
    with open_store(sandbox) as store:
        store.set_now(store.now() + timedelta(days=7, hours=1))
    write_manifests(manifests, ORG + f"spaces:\n  handbook: {{id: {handbook}, title: Handbook}}\n")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "create")]
    assert plan["notes"] == [
        f"main.yaml:3:3: space.handbook: the pinned id '{handbook}' matches no live space "
        "(deleted outside docform, or a wrong id); the entry is matched by its natural key or "
        "`formerly` instead, and created anew if none matches. Remove or correct `id:` "
        "(docform.lock records the object apply creates)"
    ]
    assert run(["drift", manifests], sandbox).exit_code == 2


# -- a converged organization ------------------------------------------------------------------

EVERYTHING = """\
organization: {id: org_acme, title: Acme Corp, defaultRole: read}
members:
  alice@acme.test: admin
  erin@acme.test: {role: edit, sso: true}
  bob@acme.test: guest
  dave@acme.test: read
teams:
  platform: {title: Platform, members: {alice@acme.test: owner, dave@acme.test: member}}
  writers: {title: Writers, members: {erin@acme.test: member}}
collections:
  engineering: {title: Engineering, description: How we build, defaultLevel: read}
  runbooks: {title: Runbooks, parent: engineering}
spaces:
  handbook: {title: Handbook, emoji: "📘", collection: engineering, editMode: live}
  oncall: {title: On-call, collection: runbooks, mergeRules: {type: none}}
sites:
  docs: {id: site_docs, title: Acme Docs}
"""


STRUCTURE_LISTS = ("section-groups", "sections", "site-spaces")
"""The lists of a site's structure, read once for a site an entry manages."""


def test_plan_after_apply_has_no_changes(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, EVERYTHING)
    apply(manifests, sandbox)
    result = run(["plan", manifests, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output


def test_plan_of_a_converged_organization_reads_each_list_once(
    sandbox: Path, manifests: Path
) -> None:
    # Whatever kinds there are: the members of each of the two teams, the structure of the one
    # site its entry manages, and every other list once; `docform plan` counts the same.
    write_manifests(manifests, EVERYTHING)
    apply(manifests, sandbox)

    async def plan_routes() -> dict[str, int]:
        async with Client(f"sandbox:{sandbox}", read_only=True) as client:
            plan = await make_plan(load_manifest_set(manifests), client)
            assert plan.changes == []
            return dict(client.stats.by_route)

    routes = asyncio.run(plan_routes())
    assert {route: n for route, n in routes.items() if n != 1} == {
        "GET /orgs/{id}/teams/{id}/members": 2
    }
    site_lists = {f"GET /orgs/{{id}}/sites/{{id}}/{name}" for name in STRUCTURE_LISTS}
    assert {"GET /orgs/{id}", "GET /orgs/{id}/members", *site_lists} <= set(routes)
    assert plan_request_count(manifests, sandbox) == sum(routes.values())


def test_pinned_live_space_costs_no_extra_request(sandbox: Path, manifests: Path) -> None:
    handbook = create_space(sandbox, "Handbook")
    matched = ORG + "spaces:\n  handbook: {title: Handbook}\n"
    write_manifests(manifests, matched)
    by_title = plan_request_count(manifests, sandbox)
    write_manifests(manifests, ORG + f"spaces:\n  handbook: {{id: {handbook}, title: Handbook}}\n")
    assert plan_request_count(manifests, sandbox) == by_title
