"""How deeply a decoded JSON value nests, checked without recursion.

Both sides of the API refuse values nested absurdly deep: code that walks a value (shape checks,
diffs, fingerprints, the sandbox's handlers) recurses into it and would hit Python's recursion
limit on what a hostile peer sends.
"""

from __future__ import annotations

from itertools import chain, compress
from typing import Any

_IS_DICT = frozenset({dict}).__contains__
_IS_LIST = frozenset({list}).__contains__
_IS_CONTAINER = frozenset({dict, list}).__contains__


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (as ``json.loads`` makes it: dicts, lists and plain values) holds
    lists or objects more than ``limit`` levels down."""
    # Level by level, with built-ins only (no Python code per value): checked on every
    # answer, this walks every value docform reads. Each level's values are sifted once for
    # containers, and only those (far fewer than the plain values) are split by type.
    dicts, lists = _containers([value])
    for _ in range(limit):
        children = list(
            chain(chain.from_iterable(map(dict.values, dicts)), chain.from_iterable(lists))
        )
        dicts, lists = _containers(children)
        if not dicts and not lists:
            return False
    return any(dicts) or any(lists)


def _containers(values: list[Any]) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    containers = list(compress(values, map(_IS_CONTAINER, map(type, values))))
    types = list(map(type, containers))
    return list(compress(containers, map(_IS_DICT, types))), list(
        compress(containers, map(_IS_LIST, types))
    )
