"""Site structure order: the order the manifest writes sections, groups and site spaces in.

Order is a property of siblings, not of one object, so it is planned per `Container` (the
site spaces of one section, the sections of one group or of the site root, the groups of a
site): docform simulates the live order and plans the fewest ``PATCH .../structure/sort``
calls that place each item right after the one the manifest puts before it. The calls of one
container run one after the other, in manifest order, after every change that brings items
into it.

What lands in a container during the apply lands last, in the order the service receives it.
That order is known when one change brings the items (a group's create or its
``POST .../sections`` calls, one after the other) or when a single item arrives; it is not
when two or more independent creates race (a rate-limited or retried call, a create that waits
on a nested collection). Such *racing* items always get their sort call, so the apply ends in
manifest order whatever order they reached the service in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from docform.engine.kind import AddressIndex, Desired, Ref
from docform.engine.plan import Call, Change, FieldChange
from docform.kind_framework.rest import site_prefix

AS_CREATED = "where its create lands"


@dataclass
class Container:
    """One set of siblings as the manifest wants them and as the service holds them."""

    wanted: Sequence[Desired]
    """The entries the manifest puts here, in manifest order."""
    live: Sequence[str]
    """Addresses of the objects in it now, in live order (others are ignored)."""
    racing: frozenset[str] = frozenset()
    """Addresses whose place on arrival this apply cannot know (see the module's doc)."""
    after: tuple[str, ...] = ()
    """Keys of the changes that bring items in; the sort calls wait for them."""


def arriving(container: Container) -> list[str]:
    """Addresses the manifest puts in ``container`` that are not in it yet, in manifest order."""
    here = set(container.live)
    return [d.address for d in container.wanted if d.address not in here]


def racing_creates(arrivals: Sequence[str], index: AddressIndex) -> frozenset[str]:
    """The arrivals created by independent calls of this apply, when two or more race."""
    created = [a for a in arrivals if index.is_created(a)]
    return frozenset(created) if len(created) > 1 else frozenset()


def reorder_changes(
    kind: str, item_type: str, org_id: str, containers: Iterable[Container], index: AddressIndex
) -> list[Change]:
    """Changes that put each of ``containers`` in manifest order."""
    changes: list[Change] = []
    for container in containers:
        changes += _sort_container(kind, item_type, org_id, container, index)
    return changes


def _sort_container(
    kind: str, item_type: str, org_id: str, container: Container, index: AddressIndex
) -> list[Change]:
    by_address = {d.address: d for d in container.wanted}
    changes: list[Change] = []
    for move in planned_moves([d.address for d in container.wanted], container):
        desired = by_address[move.address]
        site = index.resolve(desired.fields["site"])
        item = {"type": item_type, "id": index.resolve(Ref(move.address))}
        anchor = {"type": item_type, "id": index.resolve(Ref(move.anchor))}
        change = sort_change(kind, org_id, site, move, item, anchor)
        change.depends_on = [changes[-1].key] if changes else list(container.after)
        changes.append(change)
    return changes


@dataclass(frozen=True)
class Move:
    """One sort call: put ``address`` on ``side`` of ``anchor``; ``before`` says where it is."""

    address: str
    side: str
    anchor: str
    before: str


def planned_moves(order: Sequence[str], container: Container) -> list[Move]:
    """The fewest moves that put the items of ``container`` in ``order`` (addresses), in the
    order they must run."""
    current = [a for a in container.live if a in order]
    arrivals = [a for a in order if a not in current]
    # Racing arrivals go after the others: where exactly among themselves does not matter,
    # since each one is sorted explicitly.
    current += [a for a in arrivals if a not in container.racing]
    current += [a for a in arrivals if a in container.racing]
    moves: list[Move] = []
    for i, address in enumerate(order):
        racing = address in container.racing
        side, anchor = _anchor(current, list(order), i, container.racing)
        if anchor is None:
            continue
        before = AS_CREATED if racing else _neighbour(current, address)
        current.remove(address)
        at = current.index(anchor)
        current.insert(at + 1 if side == "after" else at, address)
        moves.append(Move(address, side, anchor, before))
    return moves


def _anchor(
    current: list[str], order: list[str], i: int, racing: frozenset[str]
) -> tuple[str, str | None]:
    """Where ``order[i]`` must go, or None when it is known to follow its predecessor already
    (or, for the first item, when every item races: the next ones are sorted after it)."""
    address = order[i]
    if i == 0:
        # Racing items come last, so a racing first one means that every item races.
        first = current[0]
        return "before", None if first == address or first in racing else first
    previous = order[i - 1]
    if address not in racing and current.index(address) == current.index(previous) + 1:
        return "after", None
    return "after", previous


def _neighbour(current: list[str], address: str) -> str:
    at = current.index(address)
    return f"after {current[at - 1]}" if at else "first"


def sort_change(
    kind: str,
    org_id: str,
    site: Any,
    move: Move,
    item: dict[str, Any],
    anchor: dict[str, Any],
) -> Change:
    """The ``reorder`` change of ``move``: one ``PATCH .../structure/sort`` call in ``site``
    (its live id or placeholder), ``item`` and ``anchor`` as the API's pointers."""
    body = {"item": item, "position": {move.side: anchor}}
    after = f"{move.side} {move.anchor}"
    return Change(
        address=move.address,
        kind=kind,
        action="reorder",
        action_reason=f"the manifest places it {after}",
        before={"position": move.before},
        after={"position": after},
        fields=[FieldChange("position", move.before, after)],
        calls=[Call("PATCH", f"{site_prefix(org_id, site)}/structure/sort", body)],
    )
