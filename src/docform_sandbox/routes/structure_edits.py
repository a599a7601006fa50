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
