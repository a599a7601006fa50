"""Property: `deeper_than` (level by level, with built-ins only) says what a plain recursive
walk of the same decoded JSON says, for every value and limit."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.untrusted.json_depth import deeper_than

PLAIN = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON = st.recursive(
    PLAIN,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=40,
)


def depth(value: Any) -> int:
    """How many levels of lists or objects holding something ``value`` nests (0 for a plain
    value or an empty one)."""
    children = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(value, dict | list) or not children:
        return 0
    return 1 + max(map(depth, children))


@settings(max_examples=fuzz_examples(300))
@given(JSON, st.integers(min_value=0, max_value=8))
def test_deeper_than_agrees_with_a_recursive_walk(value: Any, limit: int) -> None:
    assert deeper_than(value, limit) == (depth(value) > limit)


def test_a_chain_one_past_the_limit_is_deeper_and_one_at_it_is_not() -> None:
    at_limit: Any = 1
    for level in range(64):
        at_limit = [at_limit] if level % 2 else {"a": at_limit}
    assert depth(at_limit) == 64
    assert not deeper_than(at_limit, 64)
    assert deeper_than([at_limit], 64)
    assert deeper_than({"a": [], "b": [at_limit]}, 64)
