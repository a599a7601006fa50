"""One copy of what the service's answers repeat, as decoded JSON.

An organization's answers say the same thing many times: each team's member list holds the
organization member of each of its members, users and counts included, as the member list
does; a rehearsal's second plan reads again answers mostly equal to those the first plan holds
(`docform.workflow.kept_answers`). Decoded, each repeat is a copy of its own, and a plan holds
every answer it read. Where two parts are equal in every value and every JSON type, one of them
stands for both: nothing that reads them can tell the difference, as no answer is changed once
read (where a kind shares a part of an answer in place, it puts there a part equal to it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def same_json(a: Any, b: Any) -> bool:
    """``a == b``, with every value of one of the same JSON type as the other's (in Python
    ``True == 1 == 1.0``; in JSON they differ)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        pairs = zip(a.values(), map(b.__getitem__, a), strict=True)  # lazy: keys compared first
        return a.keys() == b.keys() and _same_values(pairs)
    if kind is list:
        return len(a) == len(b) and _same_values(zip(a, b, strict=True))
    return bool(a == b)


def _same_values(pairs: Iterable[tuple[Any, Any]]) -> bool:
    # Leaves are compared here rather than by a call each: this runs over every member a plan
    # reads.
    for value, other in pairs:
        if value is other:
            continue
        kind = type(value)
        if kind is not type(other):
            return False
        if kind is dict or kind is list:
            if not same_json(value, other):
                return False
        elif value != other:
            return False
    return True


def shared_with(new: Any, old: Any) -> Any:
    """``new`` (a decoded answer) with each part that is `same_json` as the same part of
    ``old`` being ``old``'s: equal to ``new`` in every way, holding nothing of its own where
    the two agree. The items of two lists are paired by what names them (`item_name`), else
    by position."""
    return _share(new, old)[0]


def _share(new: Any, old: Any) -> tuple[Any, bool]:
    """`shared_with`, and whether ``new`` is `same_json` as ``old``: found in the same walk,
    so that each part of an answer is compared once, not once more at each level above it."""
    if new is old:
        return old, True
    kind = type(new)
    if kind is not type(old):
        return new, False
    if kind is dict:
        same = new.keys() == old.keys()
        parts = {}
        for key, value in new.items():
            parts[key], alike = _share(value, old.get(key))
            same = same and alike
        return (old, True) if same else (parts, False)
    if kind is list:
        named = {name: item for item in old if (name := item_name(item)) is not None}
        same = len(new) == len(old)
        items = []
        for index, item in enumerate(new):
            name = item_name(item)
            at = _at(old, index)
            part, alike = _share(item, named.get(name) if name is not None else at)
            items.append(part)
            # same_json pairs the items of two lists by position.
            same = same and alike and part is at
        return (old, True) if same else (items, False)
    return (old, True) if new == old else (new, False)


def item_name(item: Any) -> tuple[Any, ...] | None:
    """What names a list item: its id, else the ids of the objects it holds (a team's member
    is named by its organization member); None for an item named by neither."""
    if not isinstance(item, dict):
        return None
    if _is_name(item.get("id")):
        return ("id", item["id"])
    held = tuple(
        (k, v["id"]) for k, v in item.items() if isinstance(v, dict) and _is_name(v.get("id"))
    )
    return held or None


def _is_name(value: Any) -> bool:
    return type(value) is str or type(value) is int


def _at(items: list[Any], index: int) -> Any:
    return items[index] if index < len(items) else None


class OneCopy:
    """The objects one read of the organization has met, by their ``object`` and ``id``: each
    one met again, when `same_json`, is handed back as the copy met first."""

    def __init__(self) -> None:
        self._met: dict[tuple[Any, Any], dict[str, Any]] = {}

    def of(self, obj: dict[str, Any]) -> dict[str, Any]:
        met = self._met.setdefault((obj.get("object"), obj.get("id")), obj)
        return met if met is obj or same_json(met, obj) else obj
