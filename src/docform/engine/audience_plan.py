"""The audience diff of a plan (`docform.engine.audience`), looking only where it can differ.

An object's audience is made of the grants, default levels, doors and gates on it and on the
collections it lies in, and of the members of the teams those grants name. A plan of a large
organization changes a few of the thousands of objects it knows, and their audiences are the
only ones that can change: the objects a fact that differs between the two sides is about, the
objects granted to a team whose members differ, and everything that lies in one of them on
either side. The organization's own lines (members' roles) are always compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set

from docform.engine.audience import (
    DEFAULT,
    DOOR,
    GATE,
    GRANT,
    IN_TEAM,
    INSIDE,
    AudienceChange,
    Fact,
    Reach,
    audience_changes,
)

ABOUT_AN_OBJECT = frozenset({GRANT, INSIDE, DOOR, GATE, DEFAULT})
"""The facts whose subject is the object whose audience they shape."""


def plan_audience(
    facts_before: Sequence[Fact], facts_after: Sequence[Fact]
) -> list[AudienceChange]:
    """The audience diff of a plan, from the facts of its live side and its planned side."""
    before, after = set(facts_before), set(facts_after)
    if before == after:
        return []
    old, new = Reach(facts_before), Reach(facts_after)
    return audience_changes(old, new, may_differ(old, new, before ^ after))


def may_differ(old: Reach, new: Reach, differing: Iterable[Fact]) -> set[str]:
    """The objects whose audience may differ between ``old`` and ``new``, whose facts differ
    by ``differing``; the audience of any other object is the same on both sides."""
    teams: set[str] = set()
    found: set[str] = set()
    for fact in differing:
        if fact.what in ABOUT_AN_OBJECT:
            found.add(fact.subject)
        elif fact.what == IN_TEAM:
            teams.add(fact.subject)
    principals = {f"team:{team}" for team in teams}
    for reach in (old, new):
        found |= {on for on, grants in reach.grants.items() if not principals.isdisjoint(grants)}
    return _and_inside(found, [old.parents, new.parents])


def _and_inside(objects: Set[str], parents: Sequence[dict[str, str]]) -> set[str]:
    """``objects`` and everything that lies in one of them, by any of the ``parents`` maps
    (object -> what it lies in), however deep."""
    children: dict[str, list[str]] = {}
    for side in parents:
        for child, parent in side.items():
            children.setdefault(parent, []).append(child)
    found = set(objects)
    waiting = list(objects)
    while waiting:
        for child in children.get(waiting.pop(), ()):
            if child not in found:
                found.add(child)
                waiting.append(child)
    return found
