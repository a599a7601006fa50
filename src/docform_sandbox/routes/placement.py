"""Placing spaces and collections among their siblings (``POST .../move`` of both).

Choices where the API documents are silent: without ``parent`` the item stays in its
collection, ``null`` moves it to the top level; without ``position`` a moved item keeps its
place in creation order among its new siblings; ``position`` may point at a space or (beyond
the documents) a collection among the target's direct children. A move that changes nothing
answers 409 (docs/service.md).
"""

from __future__ import annotations

from typing import Any, Literal

from docform_sandbox.http import ApiError, Body, Ctx, bad_request
from docform_sandbox.store import Where

NOT_DELETED = ("json_extract(data, '$.deletedAt') IS NULL", ())


def children_where(org_id: str, parent: str | None) -> Where:
    """The filter for the direct children of a collection (``None``: the top level)."""
    if parent is None:
        return [("org = ?", [org_id]), ("parent IS NULL", [])]
    return [("org = ?", [org_id]), ("parent = ?", [parent])]


class Anchor(Body):
    type: Literal["space", "collection"]
    space: str | None = None
    collection: str | None = None


class Position(Body):
    before: Anchor | None = None
    after: Anchor | None = None


class MoveBody(Body):
    parent: str | None = None
    position: Position | None = None


Sibling = tuple[float, str, str]  # (rank, kind, id)
Placed = tuple[str, str, str]  # (before or after, kind, id)


def _siblings(ctx: Ctx, org_id: str, parent: str | None) -> list[Sibling]:
    """The collections and live spaces directly in ``parent``, in position order."""
    items: list[Sibling] = []
    for kind in ("collection", "space"):
        where = children_where(org_id, parent)
        if kind == "space":
            where = [*where, NOT_DELETED]
        for doc in ctx.store.all(kind, where):
            items.append((ctx.store.rank_of(kind, doc["id"]) or 0.0, kind, doc["id"]))
    return sorted(items)


def _anchor(move: MoveBody, kind: str, item_id: str) -> Placed | None:
    """(side, anchor kind, anchor id) from ``position``, checked for shape."""
    position = move.position
    if position is None or (position.before is None and position.after is None):
        return None
    if position.before is not None and position.after is not None:
        raise bad_request("position: give either before or after, not both")
    side = "before" if position.before is not None else "after"
    anchor = position.before or position.after
    assert anchor is not None
    anchor_id = getattr(anchor, anchor.type)
    if anchor_id is None:
        raise bad_request(f"position.{side}.{anchor.type}: required when type is '{anchor.type}'")
    if (anchor.type, anchor_id) == (kind, item_id):
        raise bad_request(f"position.{side}.{anchor.type}: cannot place a {kind} next to itself")
    return side, anchor.type, anchor_id


def _already_placed(siblings: list[Sibling], kind: str, item_id: str, anchor: Placed) -> bool:
    side, anchor_kind, anchor_id = anchor
    keys = [(k, i) for _, k, i in siblings]
    here = keys.index((kind, item_id))
    neighbour = here + 1 if side == "before" else here - 1
    return 0 <= neighbour < len(keys) and keys[neighbour] == (anchor_kind, anchor_id)


def _rank_next_to(siblings: list[Sibling], anchor: Placed, where: str) -> float:
    """A rank that puts an item right before or after the anchor among ``siblings``."""
    side, anchor_kind, anchor_id = anchor
    keys = [(k, i) for _, k, i in siblings]
    if (anchor_kind, anchor_id) not in keys:
        raise bad_request(f"position.{side}.{anchor_kind}: no {anchor_kind} '{anchor_id}' {where}")
    at = keys.index((anchor_kind, anchor_id))
    anchor_rank = siblings[at][0]
    if side == "before":
        lower = siblings[at - 1][0] if at > 0 else anchor_rank - 1
        return (lower + anchor_rank) / 2
    upper = siblings[at + 1][0] if at + 1 < len(siblings) else anchor_rank + 1
    return (anchor_rank + upper) / 2


def move_item(ctx: Ctx, kind: str, doc: dict[str, Any], move: MoveBody) -> bool:
    """Refile and reorder a space or collection; 409 when nothing would change.

    Returns whether the parent changed. The caller has checked the target parent.
    """
    org_id, current = doc["organization"], doc.get("parent")
    target = move.parent if "parent" in move.model_fields_set else current
    anchor = _anchor(move, kind, doc["id"])
    if target == current and (
        anchor is None or _already_placed(_siblings(ctx, org_id, current), kind, doc["id"], anchor)
    ):
        raise ApiError(409, f"moving {kind} '{doc['id']}' would not result in any update")
    if anchor is not None:
        others = [s for s in _siblings(ctx, org_id, target) if s[1:] != (kind, doc["id"])]
        where = f"in collection '{target}'" if target else "at the top level"
        ctx.store.set_rank(kind, doc["id"], _rank_next_to(others, anchor, where))
    if target == current:
        return False
    ctx.store.set_parent(kind, doc["id"], target)
    if target is None:
        doc.pop("parent", None)
    else:
        doc["parent"] = target
    return True
