"""Comparing two versions of a nested settings document (a site's customization, a site space's
overrides, an adaptive schema) and naming each part that differs, with deepdiff.

A part is named by its path from the field (``styling.primaryColor.light``,
``header.links[1].title``). Lists keep their order unless their path is one of the document's
*order-free* lists (a font's faces: one per weight, in no order), which compare as collections.
A list whose length changes, an order-free list, and a list of plain values differ as a whole
(the index of an item inserted in the middle says nothing a reviewer can use); a list of
mappings that keeps its length differs item by item (``header.links[1].title``).

The planner compares with ``==`` first (a converged document never gets here); only a field
that is not identical is handed to deepdiff (BENCHMARKS.md, "Settings documents").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

Path = tuple[str | int, ...]
PLAIN = (dict, list, str, int, float, bool, type(None))


def differing_parts(
    name: str, before: Any, after: Any, order_free: Collection[str] = ()
) -> list[tuple[str, Any, Any]]:
    """``(path, before, after)`` of each part of field ``name`` that differs; ``order_free``
    holds the dotted paths (list indices left out) of the lists that compare as collections."""
    old, new = plain(before), plain(after)
    if not (_is_plain(old) and _is_plain(new)):
        return [(name, before, after)]  # a value with its own meaning (a null's "site value")
    relative = _prefixed(name, order_free)
    parts: dict[Path, None] = {}
    for path in _reported(old, new, relative):
        parts.setdefault(_collapsed(path, old, new, relative), None)
    return [(_render(name, path), _at(old, path), _at(new, path)) for path in parts]


def same_value(name: str, before: Any, after: Any, order_free: Collection[str] = ()) -> bool:
    """Whether field ``name`` is the same in ``before`` and ``after``, its order-free lists
    compared as collections."""
    old, new = plain(before), plain(after)
    if not (_is_plain(old) and _is_plain(new)):
        return bool(before == after)
    return not _deep_diff(old, new, ignore_order_func=_ignoring_order(_prefixed(name, order_free)))


def plain(value: Any) -> Any:
    """``value`` with its list and tuple subclasses (a wanted value's own equality) as lists."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _is_plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_is_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_is_plain(v) for v in value)
    return isinstance(value, PLAIN)


def _prefixed(name: str, order_free: Collection[str]) -> frozenset[str]:
    """The order-free paths below field ``name``, relative to it."""
    prefix = f"{name}."
    found = {p.removeprefix(prefix) for p in order_free if p.startswith(prefix)}
    return frozenset(found | ({""} if name in order_free else set()))


def _ignoring_order(order_free: frozenset[str]) -> Any:
    def ignore_order(level: Any) -> bool:
        return _dotted(level.path(output_format="list")) in order_free

    return ignore_order


def _deep_diff(old: Any, new: Any, **options: Any) -> Any:
    # deepdiff loads when a document differs: most commands never compare one.
    from deepdiff import DeepDiff

    return DeepDiff(old, new, **options)


def _reported(old: Any, new: Any, order_free: frozenset[str]) -> list[Path]:
    tree = _deep_diff(old, new, view="tree", ignore_order_func=_ignoring_order(order_free))
    return [tuple(level.path(output_format="list")) for levels in tree.values() for level in levels]


def _collapsed(path: Path, old: Any, new: Any, order_free: Collection[str]) -> Path:
    """``path``, cut at the first list on it that differs as a whole."""
    for depth in range(len(path)):
        here = path[:depth]
        was, now = _at(old, here), _at(new, here)
        if (isinstance(was, list) or isinstance(now, list)) and _whole(here, was, now, order_free):
            return here
    return path


def _whole(path: Path, was: Any, now: Any, order_free: Collection[str]) -> bool:
    """Whether a list differs as a whole rather than item by item: when its length changes, its
    order means nothing, or its items are plain values (``[a, b] -> [b, a]`` says it best)."""
    if not (isinstance(was, list) and isinstance(now, list)) or len(was) != len(now):
        return True
    return _dotted(path) in order_free or not any(isinstance(v, dict) for v in (*was, *now))


def _dotted(path: Sequence[str | int]) -> str:
    return ".".join(str(key) for key in path if not isinstance(key, int))


def _render(name: str, path: Path) -> str:
    rendered = name
    for key in path:
        rendered += f"[{key}]" if isinstance(key, int) else f".{key}"
    return rendered


def _at(value: Any, path: Path) -> Any:
    """The part of ``value`` at ``path``; None where it is absent."""
    for key in path:
        if isinstance(key, int):
            if not isinstance(value, list) or key >= len(value):
                return None
        elif not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value
