"""Ordering changes by dependency (engine/graph.py)."""

import pytest

from docform.engine.graph import CycleError, topological_order
from docform.engine.live import ReadError
from docform.engine.snapshot import read_waves
from docform.kind_registry import build_kinds
from docform.kinds.site import SiteKind


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


# -- the order kinds are read in (engine/snapshot.py) ------------------------------------------


def test_kinds_read_per_site_wait_for_the_sites_and_keep_their_order() -> None:
    # A new kind joins the wave its reads wait for; these stay, in this order (those there are).
    waves = read_waves(build_kinds("org_acme"))
    known = [
        [
            "organization",
            "member",
            "team",
            "collection",
            "space",
            "site",
            "openapi",
            "saml",
            "link_invite",
            "translation",
            "custom_font",
            "glossary_entry",
            "integration",
        ],
        [
            "customization",
            "adaptive_content",
            "advertising",
            "styleguide",
            "agent_settings",
            "section",
            "section_group",
            "navigation",
            "site_space",
            "redirect",
            "visitor_auth",
            "share_link",
            "context_connection",
            "mcp_server",
            "channel",
            "access",
            "custom_hostname",
            "agent_instructions",
            "integration_target",
            "git_sync",
        ],
        # Links come out of the structures the navigation read (no request of their own).
        ["external_link", "override"],
    ]
    kinds = {kind.name for wave in waves for kind in wave}
    known = [[name for name in wave if name in kinds] for wave in known]
    named = {name for wave in known for name in wave}
    assert [[kind.name for kind in wave if kind.name in named] for wave in waves] == known


def test_kinds_that_wait_on_each_other_to_be_read_name_the_cycle() -> None:
    class First(SiteKind):
        name = "first"
        read_after = ("second",)

    class Second(SiteKind):
        name = "second"
        read_after = ("first",)

    with pytest.raises(ReadError) as caught:
        read_waves([First("org_acme"), Second("org_acme"), *build_kinds("org_acme")])
    assert str(caught.value) == "kinds wait on each other to be read: first -> second -> first"
