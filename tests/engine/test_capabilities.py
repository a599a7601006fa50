"""Abilities beyond a kind's core (engine/capabilities.py): which kinds have which, and that a
kind with an ability's methods names it among its bases, so the type checker holds the methods
to the protocol."""

from __future__ import annotations

import inspect

import pytest

from docform.engine import capabilities
from docform.engine.kind import Kind
from docform.kind_registry import KIND_CLASSES

ABILITIES = [
    value
    for value in vars(capabilities).values()
    if inspect.isclass(value) and value.__module__ == capabilities.__name__
]


def _methods(ability: type) -> set[str]:
    return {
        name
        for name, value in vars(ability).items()
        if inspect.isfunction(value) and not name.startswith("__")
    }


@pytest.mark.parametrize("kind_class", KIND_CLASSES, ids=[c.name for c in KIND_CLASSES])
def test_a_kind_with_an_ability_s_methods_names_the_ability(kind_class: type[Kind]) -> None:
    for ability in ABILITIES:
        has_methods = all(hasattr(kind_class, name) for name in _methods(ability))
        assert has_methods == issubclass(kind_class, ability), (kind_class.name, ability)


def test_the_core_kind_has_no_ability() -> None:
    assert not [a.__name__ for a in ABILITIES if _methods(a) & set(dir(Kind))]


def test_which_kinds_have_which_ability() -> None:
    having = {
        ability.__name__: sorted(c.name for c in KIND_CLASSES if issubclass(c, ability))
        for ability in ABILITIES
    }
    rest = [
        "collection",
        "external_link",
        "section",
        "section_group",
        "site",
        "site_space",
        "space",
    ]
    # A new kind may have any of them; these kinds keep theirs.
    known = {
        "ExplainsCreates": ["agent_instructions", "member"],
        "ExplainsDeletes": ["access", "integration_target"],
        "ComparesOwnWay": [
            "adaptive_content",
            "advertising",
            "context_connection",
            "customization",
            "git_sync",
            "integration",
            "integration_target",
            "mcp_server",
            "override",
            "styleguide",
        ],
        "Nests": ["collection", "section_group"],
        "LimitsMoves": ["site_space"],
        "Restores": ["space"],
        "TellsWhatIsLost": ["space"],
        "SetsAside": ["git_sync"],
        "OrdersSiblings": ["external_link", "navigation", "section", "section_group", "site_space"],
        "HasRails": ["git_sync", "member", "team"],
        "HasRailsAcrossKinds": ["saml", "team"],
        "WarnsAcrossKinds": ["adaptive_content", "git_sync", "member"],
        "GuardsCaller": ["member"],
        "PointsToWhatItHides": ["share_link", "visitor_auth"],
        "NamesByKey": ["team"],
        "FinishesOnRefusal": rest,
        "LocksOtherThanId": ["link_invite"],
        "ReadsBystanders": ["access", "redirect", "site", "site_space"],
        "TellsAudience": [
            "access",
            "collection",
            "link_invite",
            "member",
            "share_link",
            "site",
            "space",
            "team",
            "visitor_auth",
        ],
        "ReadsAudience": ["access"],
        "ExplainsPending": ["member"],
        "ReadsPartsOfEach": ["team"],
    }
    expected: dict[str, set[str]] = {}
    for ability, kinds in known.items():
        for name in kinds:
            expected.setdefault(name, set()).add(ability)
    for name, abilities in expected.items():
        assert {a for a, kinds in having.items() if name in kinds} == abilities, name
