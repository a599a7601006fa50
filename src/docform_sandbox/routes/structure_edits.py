"""What the site structure endpoints share: finding an object named in the path, copying a
PATCH body onto it, and the deprecated move bodies (``site_structure.py``, ``site_spaces.py``)."""

from __future__ import annotations

from typing import Any, Literal

from docform_sandbox.http import Body, Ctx, bad_request, not_found
from docform_sandbox.routes.site_tree import (
    GROUP,
    LABELS,
    SECTION,
    SITE_SPACE,
    SiteTree,
    move_to_end,
    set_container,
)
from docform_sandbox.routes.structure_placement import anchor_node, place, position_side


def found(tree: SiteTree, kind: str, item_id: str) -> dict[str, Any]:
    """The structure object named by a path parameter, else 404."""
    doc = tree.lookup(kind, item_id)
    if doc is None:
        raise not_found(LABELS[kind], item_id)
    return doc


def reject_nulls(patch: Body, names: tuple[str, ...]) -> None:
    for name in names:
        if name in patch.model_fields_set and getattr(patch, name) is None:
            raise bad_request(f"{name}: must not be null")


def apply_patch(doc: dict[str, Any], patch: Body, names: tuple[str, ...]) -> None:
    """Copy the given fields of ``patch`` onto ``doc``; a null removes the field."""
    for name in names:
        if name not in patch.model_fields_set:
            continue
        value = getattr(patch, name)
        if value is None:
            doc.pop(name, None)
        else:
            doc[name] = value


def check_group_container(
    tree: SiteTree, group: dict[str, Any] | None, container: str | None, field_name: str
) -> None:
    """400 naming ``field_name`` unless ``container`` (None: the top level) is a group of the
    site that can hold ``group`` (None: a section), which it cannot when inside it."""
    if container is None:
        return
    if container not in tree.groups:
        raise bad_request(f"{field_name}: no section group '{container}' in this site")
    ancestor: str | None = container
    while group is not None and ancestor is not None:
        if ancestor == group["id"]:
            raise bad_request(
                f"{field_name}: section group '{container}' is section group "
                f"'{group['id']}' or inside it; a group cannot go into itself"
            )
        ancestor = tree.groups[ancestor].get("sectionGroup")


def join_container(
    ctx: Ctx, tree: SiteTree, kind: str, doc: dict[str, Any], container: str | None
) -> None:
    """Put a section or group into the group ``container`` (None: the top level), last there;
    already in it, it stays where it is."""
    if doc.get("sectionGroup") == container:
        return
    set_container(ctx, kind, doc, container)
    move_to_end(ctx, tree, kind, doc)


# -- deprecated move bodies ----------------------------------------------------------------------


class MoveAnchor(Body):
    type: Literal["site-space", "site-section", "site-section-group"]
    id: str | None = None
    siteSpace: str | None = None
    siteSection: str | None = None
    siteSectionGroup: str | None = None


class MovePosition(Body):
    before: MoveAnchor | None = None
    after: MoveAnchor | None = None


class MoveBody(Body):
    position: MovePosition


class GroupMoveBody(Body):
    position: MovePosition | None = None


ANCHOR_KEYS = {SITE_SPACE: "siteSpace", SECTION: "siteSection", GROUP: "siteSectionGroup"}


def move_next_to(
    ctx: Ctx, tree: SiteTree, kind: str, doc: dict[str, Any], position: MovePosition
) -> None:
    side = position_side(position.before, position.after)
    anchor = getattr(position, side)
    key = ANCHOR_KEYS[anchor.type]
    anchor_id = anchor.id or getattr(anchor, key)
    where = f"position.{side}"
    if anchor_id is None:
        raise bad_request(f"{where}.{key}: required when type is '{anchor.type}'")
    place(ctx, tree, (kind, doc), side, anchor_node(tree, anchor.type, anchor_id, where), where)
