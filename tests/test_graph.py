"""Ordering changes by dependency (engine/graph.py)."""

import pytest

from docform.engine.graph import CycleError, topological_order


def order(items, deps):
    return topological_order(items, lambda x: x, lambda x: deps.get(x, []))


def test_dependencies_come_first():
    assert order(["space", "collection"], {"space": ["collection"]}) == ["collection", "space"]


def test_independent_items_keep_their_given_order():
    assert order(["c", "a", "b"], {}) == ["c", "a", "b"]


def test_ties_are_broken_by_given_order_not_by_name():
    result = order(["z", "y", "x", "root"], {"z": ["root"], "y": ["root"], "x": ["root"]})
    assert result == ["root", "z", "y", "x"]


def test_dependencies_outside_the_items_are_ignored():
    assert order(["a"], {"a": ["already-done"]}) == ["a"]


def test_a_cycle_is_an_error_naming_its_members():
    with pytest.raises(CycleError) as err:
        order(["a", "b", "c"], {"a": ["b"], "b": ["a"]})
    assert str(err.value) == (
        "these changes depend on each other in a cycle and cannot be ordered: a, b"
    )
