"""Ordering changes so that each comes after the changes it depends on."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import TypeVar

from docform.errors import DocformError

T = TypeVar("T")


class CycleError(DocformError):
    """Changes that depend on each other in a circle cannot be ordered."""


def topological_order(
    items: Sequence[T], key: Callable[[T], str], depends_on: Callable[[T], Sequence[str]]
) -> list[T]:
    """``items`` reordered so dependencies come first, otherwise keeping their given order.

    Ties are broken by the position in ``items``, so the same input always gives the same
    order. Dependencies on keys that are not among ``items`` are ignored (already satisfied).
    """
    position = {key(item): i for i, item in enumerate(items)}
    waiting_on = {k: 0 for k in position}
    dependents: dict[str, list[str]] = {k: [] for k in position}
    for item in items:
        for dep in set(depends_on(item)):
            if dep in position and dep != key(item):
                waiting_on[key(item)] += 1
                dependents[dep].append(key(item))
    ready = [position[k] for k, n in waiting_on.items() if n == 0]
    heapq.heapify(ready)
    ordered: list[T] = []
    while ready:
        item = items[heapq.heappop(ready)]
        ordered.append(item)
        for nxt in dependents[key(item)]:
            waiting_on[nxt] -= 1
            if waiting_on[nxt] == 0:
                heapq.heappush(ready, position[nxt])
    if len(ordered) != len(items):
        stuck = sorted(k for k, n in waiting_on.items() if n > 0)
        raise CycleError(
            "these changes depend on each other in a cycle and cannot be ordered: "
            + ", ".join(stuck)
        )
    return ordered
