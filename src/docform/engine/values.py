"""Comparing a wanted value with a live one, and naming the parts of a nested value that differ.

A plan shows a reviewer what changes, not the whole value it sits in: a team gaining one
member shows ``members.ada@acme.test: (none) -> "member"``, a merge rule that changes one list
``mergeRules.rules[1].users``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def same_value(want: Any, have: Any, *, unordered: bool = False) -> bool:
    """Whether the live value ``have`` already is ``want``; ``unordered`` lists compare as
    collections (``[a, b]`` is ``[b, a]``, but ``[a, a]`` is not ``[a]``)."""
    if want == have:
        return True
    if unordered and isinstance(want, list | tuple) and isinstance(have, list | tuple):
        return sorted(map(_sort_key, want)) == sorted(map(_sort_key, have))
    return False


def differing_parts(path: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    """``(path, before, after)`` of each part of ``before`` and ``after`` that differs: keys
    of mappings, and the items of lists of mappings that keep their length (a list whose
    length changes differs as a whole). A missing key reads ``None``."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        parts = []
        for key in sorted(set(before) | set(after), key=str):
            old, new = before.get(key), after.get(key)
            if old != new:
                parts += differing_parts(f"{path}.{key}", old, new)
        return parts
    if _same_shape_lists(before, after):
        parts = []
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if old != new:
                parts += differing_parts(f"{path}[{index}]", old, new)
        return parts
    return [(path, before, after)]


def _same_shape_lists(before: Any, after: Any) -> bool:
    return (
        isinstance(before, list)
        and isinstance(after, list)
        and len(before) == len(after)
        and any(isinstance(item, Mapping) for item in (*before, *after))
    )


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
