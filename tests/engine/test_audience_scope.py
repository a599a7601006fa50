"""Properties: a plan's audience diff, which compares only the objects whose audience may differ
(`docform.engine.audience_plan.may_differ`), is the one comparing every object either side
knows, whatever the two sides' roles, teams, grants, nesting (cycles included), default levels,
doors and gates; and the roles of some people on an object are theirs among everyone's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.engine.audience import (
    DEFAULT,
    GRANT,
    INSIDE,
    LABEL,
    ROLE,
    Fact,
    Reach,
    audience_changes,
    default_level,
    door,
    gate,
    in_team,
    inside,
    label,
    org_role,
    person_grant,
    team_grant,
)
from docform.engine.audience_plan import plan_audience

OBJECTS = st.sampled_from(("space.a", "space.b", "collection.c", "collection.d", "site.s"))
PEOPLE = st.sampled_from(("ann@acme.test", "bob@acme.test", "~u3"))
TEAMS = st.sampled_from(("team.x", "team.y"))
ROLES = st.sampled_from(("admin", "edit", "read", "guest", None))
LEVELS = st.sampled_from(("edit", "read", "guest", "inherit", None))

FACTS = st.one_of(
    st.builds(org_role, PEOPLE, ROLES),
    st.builds(in_team, TEAMS, PEOPLE),
    st.builds(team_grant, OBJECTS, TEAMS, ROLES),
    st.builds(person_grant, OBJECTS, PEOPLE, ROLES),
    st.builds(inside, OBJECTS, OBJECTS),
    st.builds(door, OBJECTS, st.sampled_from(("anyone", "link holders")), st.none() | st.just("g")),
    st.builds(gate, OBJECTS, st.just("g")),
    st.builds(default_level, OBJECTS, LEVELS),
    st.builds(label, TEAMS, st.sampled_from(("Support", "Sales"))),
)


def one_side(facts: list[Fact]) -> list[Fact]:
    """``facts`` as a kind tells them: one role, container, default level and label per
    subject and one role per grant (the last drawn), as many team members, doors and gates as
    drawn."""
    kept: dict[tuple[str | None, ...], Fact] = {}
    for fact in facts:
        single = fact.what in (ROLE, INSIDE, DEFAULT, LABEL)
        key = (fact.what, fact.subject) if single else (fact.what, fact.subject, fact.other)
        if fact.what != GRANT and not single:
            key += (fact.role,)
        kept[key] = fact
    return list(kept.values())


def shown(changes: list[Any]) -> list[Any]:
    return [(c.to_json(), c.predicted()) for c in changes]


@settings(max_examples=fuzz_examples(200))
@given(st.lists(FACTS, max_size=12), st.lists(FACTS, max_size=6), st.lists(FACTS, max_size=6))
def test_looking_where_it_can_differ_finds_every_difference(
    shared: list[Fact], before: list[Fact], after: list[Fact]
) -> None:
    old, new = one_side([*shared, *before]), one_side([*shared, *after])
    everywhere = audience_changes(Reach(old), Reach(new)) if set(old) != set(new) else []
    assert shown(plan_audience(old, new)) == shown(everywhere)


@settings(max_examples=fuzz_examples(100))
@given(st.lists(FACTS, max_size=16), st.sets(PEOPLE), OBJECTS)
def test_the_roles_of_some_people_are_theirs_among_everyone(
    facts: list[Fact], among: set[str], on: str
) -> None:
    reach = Reach(one_side(facts))
    everyone = reach.everyone(on)
    assert reach.everyone(on, among) == {p: r for p, r in everyone.items() if p in among}
