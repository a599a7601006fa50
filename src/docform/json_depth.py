"""How deeply a decoded JSON value nests, checked without recursion.

Both sides of the API refuse values nested absurdly deep: code that walks a value (shape checks,
diffs, fingerprints, the sandbox's handlers) recurses into it and would hit Python's recursion
limit on what a hostile peer sends.
"""

from __future__ import annotations

from typing import Any


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` holds lists or objects more than ``limit`` levels down."""
    # Only containers are carried to the next level: the scalars, most of an answer, are
    # looked at once, as they are met.
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(limit):
        level = [
            child
            for item in level
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return any(level)
