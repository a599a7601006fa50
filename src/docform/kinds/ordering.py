"""Site structure order: the order the manifest writes sections, groups and site spaces in.

Order is a property of siblings, not of one object, so it is planned per container (the
site spaces of one section, the sections of one group or of the site root, the groups of a
site): docform simulates the live order, with new items landing last, and plans the fewest
``PATCH .../structure/sort`` calls that place each item right after the one the manifest puts
before it. The calls of one container run one after the other, in manifest order.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from docform.engine.kind import AddressIndex, Desired, Ref
from docform.engine.plan import Call, Change, FieldChange
from docform.kinds.planning import site_prefix


def reorder_changes(
    kind: str,
    item_type: str,
    org_id: str,
    wanted: Mapping[Hashable, Sequence[Desired]],
    live: Mapping[Hashable, Sequence[str]],
    index: AddressIndex,
) -> list[Change]:
    """Changes that sort each container of ``wanted`` (addresses in manifest order), given the
    addresses of ``live`` matched objects per container in live order."""
    changes: list[Change] = []
    for container, entries in wanted.items():
        changes += _sort_container(kind, item_type, org_id, entries, live.get(container, ()), index)
    return changes


def _sort_container(
    kind: str,
    item_type: str,
    org_id: str,
    entries: Sequence[Desired],
    live: Sequence[str],
    index: AddressIndex,
) -> list[Change]:
    order = [d.address for d in entries]
    current = [a for a in live if a in order]
    current += [a for a in order if a not in current]
    changes: list[Change] = []
    for i, desired in enumerate(entries):
        side, anchor = _anchor(current, order, i)
        if anchor is None:
            continue
        before = _neighbour(current, desired.address)
        current.remove(desired.address)
        at = current.index(anchor)
        current.insert(at + 1 if side == "after" else at, desired.address)
        change = _reorder(kind, item_type, org_id, desired, side, anchor, before, index)
        if changes:
            change.depends_on = [changes[-1].key]
        changes.append(change)
    return changes


def _anchor(current: list[str], order: list[str], i: int) -> tuple[str, str | None]:
    """Where ``order[i]`` must go, or None when it already follows its predecessor."""
    address = order[i]
    if i == 0:
        return ("before", None) if current[0] == address else ("before", current[0])
    previous = order[i - 1]
    if current.index(address) == current.index(previous) + 1:
        return "after", None
    return "after", previous


def _neighbour(current: list[str], address: str) -> str:
    at = current.index(address)
    return f"after {current[at - 1]}" if at else "first"


def _reorder(
    kind: str,
    item_type: str,
    org_id: str,
    desired: Desired,
    side: str,
    anchor: str,
    before: str,
    index: AddressIndex,
) -> Change:
    site = index.resolve(desired.fields["site"])
    body = {
        "item": {"type": item_type, "id": index.resolve(Ref(desired.address))},
        "position": {side: {"type": item_type, "id": index.resolve(Ref(anchor))}},
    }
    after = f"{side} {anchor}"
    return Change(
        address=desired.address,
        kind=kind,
        action="reorder",
        action_reason=f"the manifest places it {after}",
        before={"position": before},
        after={"position": after},
        fields=[FieldChange("position", before, after)],
        calls=[Call("PATCH", f"{site_prefix(org_id, site)}/structure/sort", body)],
    )
