"""Placing an item of a site's structure right before or after a sibling
(``PATCH .../structure/sort`` and the deprecated moves): into the sibling's container, with a
rank between its neighbours."""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import ApiError, Ctx, bad_request
from docform_sandbox.routes.site_tree import (
    GROUP,
    LABELS,
    SITE_SPACE,
    Node,
    SiteTree,
    set_container,
)


def place(
    ctx: Ctx,
    tree: SiteTree,
    item: Node,
    side: str,
    anchor: Node,
    where: str,
    *,
    siblings_only: bool = False,
) -> None:
    """Move ``item`` right before or after ``anchor``, into the anchor's container; with
    ``siblings_only``, a section, group or link only next to one of its own container.

    ``where`` names the anchor in error messages (``position.before``).
    """
    kind, doc = item
    anchor_kind, anchor_doc = anchor
    if (kind == SITE_SPACE) != (anchor_kind == SITE_SPACE):
        allowed = "site spaces" if kind == SITE_SPACE else "sections, groups or external links"
        article = "an" if LABELS[kind][0] in "aeiou" else "a"
        raise bad_request(
            f"{where}.type: {article} {LABELS[kind]} can only be placed next to {allowed}"
        )
    if anchor_doc["id"] == doc["id"]:
        raise bad_request(f"{where}: cannot place a {LABELS[kind]} next to itself")
    field_name = "section" if kind == SITE_SPACE else "sectionGroup"
    target = anchor_doc.get(field_name)
    if target != doc.get(field_name):
        if siblings_only and kind != SITE_SPACE:
            raise bad_request(
                f"{where}: {LABELS[anchor_kind]} '{anchor_doc['id']}' is not in the same "
                f"container as {LABELS[kind]} '{doc['id']}': sorting changes sibling order "
                "only; move it between the top level and a group with its own update first"
            )
        _check_new_container(tree, item, target, where)
    set_container(ctx, kind, doc, target)
    if kind == SITE_SPACE:
        nodes: list[Node] = [(SITE_SPACE, s) for s in tree.spaces_in(target)]
    else:
        nodes = tree.children(target)
    siblings = [(k, d["id"]) for k, d in nodes if (k, d["id"]) != (kind, doc["id"])]
    rank = _rank_beside(ctx, tree, siblings, side, (anchor_kind, anchor_doc["id"]))
    ctx.store.set_rank(kind, doc["id"], rank)
    tree.ranks[(kind, doc["id"])] = rank


def _check_new_container(tree: SiteTree, item: Node, target: str | None, where: str) -> None:
    kind, doc = item
    if kind == SITE_SPACE:
        taken = {s["path"] for s in tree.spaces_in(target)}
        if doc["path"] in taken:
            raise ApiError(409, f"path: '{doc['path']}' is already used in the target section")
    elif kind == GROUP:
        ancestor = target
        while ancestor is not None:
            if ancestor == doc["id"]:
                raise bad_request(
                    f"{where}: cannot place section group '{doc['id']}' inside itself"
                )
            ancestor = tree.groups[ancestor].get("sectionGroup")


def _rank_beside(
    ctx: Ctx, tree: SiteTree, siblings: list[tuple[str, str]], side: str, anchor: tuple[str, str]
) -> float:
    """A rank right before or after ``anchor`` among ``siblings`` (renumbered when too close)."""
    ranks = [tree.ranks[s] for s in siblings]
    at = siblings.index(anchor)
    if side == "before":
        high = ranks[at]
        low = ranks[at - 1] if at > 0 else high - 1
    else:
        low = ranks[at]
        high = ranks[at + 1] if at + 1 < len(ranks) else low + 1
    middle = (low + high) / 2
    if low < middle < high:
        return middle
    # Repeated bisection exhausted the float precision between two neighbours: space them out.
    for position, (kind, item_id) in enumerate(siblings):
        ctx.store.set_rank(kind, item_id, float(position))
        tree.ranks[(kind, item_id)] = float(position)
    return _rank_beside(ctx, tree, siblings, side, anchor)


def position_side(before: Any, after: Any) -> str:
    """Which side of ``position`` is given: exactly one of ``before`` and ``after``."""
    if before is not None and after is not None:
        raise bad_request("position: give either before or after, not both")
    if before is None and after is None:
        raise bad_request("position: give before or after")
    return "before" if before is not None else "after"


def anchor_node(tree: SiteTree, kind: str, anchor_id: str, where: str) -> Node:
    doc = tree.lookup(kind, anchor_id)
    if doc is None:
        raise bad_request(f"{where}: no {LABELS[kind]} '{anchor_id}' in this site")
    return kind, doc
