"""The doors a plan opens and closes, kept so that apply can look at them again afterwards.

A door is a way in beyond the members (`docform.engine.audience.door`): anyone, for a public
site; whoever holds an active share link or an open link invite; whoever a site's visitor
sign-in admits. The service lists none of those people, so what apply can check is that each
door is open or closed as the plan said, by reading again, through their own routes, the
objects that open them (the site's visibility, its share links, its visitor authentication,
the organization's link invites) and putting their facts together the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from docform.engine.audience import DOOR, GATE, Fact, Reach, Seen, live_side, planned_side
from docform.engine.capabilities import TellsAudience
from docform.engine.kind import Kind, Observed
from docform.engine.match import Matching, unmatched_address


@dataclass
class DoorCheck:
    """What apply holds the doors to: the kinds whose objects open or gate a door, and the
    doors open on each object whose doors the plan changes, once it is applied."""

    kinds: frozenset[str] = frozenset()
    predicted: dict[str, frozenset[str]] = field(default_factory=dict)


Sides = list[tuple[str, TellsAudience, list[Seen], list[Seen]]]
"""Per kind that tells of who reaches what: its name, itself, and its objects as they stand
live and as planned."""


def kind_sides(
    matchings: Iterable[tuple[Kind, Matching]],
    deleted: set[str],
    changed: set[str] | None = None,
) -> Sides:
    """The live side and the planned side of each kind that tells of who reaches what
    (``deleted``: the addresses the plan deletes; ``changed``: when only the changes of these
    addresses are made, see `planned_side`)."""
    sides: Sides = []
    for kind, matching in matchings:
        if not isinstance(kind, TellsAudience):
            continue

        def where(obs: Observed, name: str = kind.name) -> str:
            return unmatched_address(name, obs)

        live = live_side(matching, where)
        sides.append((kind.name, kind, live, planned_side(matching, where, deleted, changed)))
    return sides


def all_as_they_stand(sides: Sides) -> bool:
    """Whether every kind's objects stand after the plan as they do live: then no audience
    and no door differs, and none need be told."""
    return all(planned == live for _, _, live, planned in sides)


def sides_facts(sides: Sides) -> Iterator[tuple[str, list[Fact], list[Fact]]]:
    """Per kind, its name and the facts of its live side and of its planned side."""
    for name, kind, live, planned in sides:
        old = list(kind.audience_facts(live))
        # Objects that stand as they are tell the same facts: told once, for both sides.
        new = old if planned == live else list(kind.audience_facts(planned))
        yield name, old, new


def kind_facts(
    matchings: Iterable[tuple[Kind, Matching]],
    deleted: set[str],
    changed: set[str] | None = None,
) -> Iterator[tuple[str, list[Fact], list[Fact]]]:
    """Per kind that tells of who reaches what: its name and the facts of its live side and
    of its planned side (`kind_sides`, `sides_facts`)."""
    return sides_facts(kind_sides(matchings, deleted, changed))


def live_facts(matchings: Iterable[tuple[Kind, Matching]]) -> list[Fact]:
    """The facts of the live side alone (as a read after apply finds it)."""
    return [fact for _, old, _ in kind_facts(matchings, set()) for fact in old]


def door_check(per_kind: Sequence[tuple[str, list[Fact], list[Fact]]]) -> DoorCheck:
    """The doors to check after apply: those of each object where they differ before and
    after the plan."""
    kinds = frozenset(
        name for name, old, new in per_kind if any(f.what in (DOOR, GATE) for f in (*old, *new))
    )
    before = Reach(f for _, old, _ in per_kind for f in old if f.what in (DOOR, GATE))
    after = Reach(f for _, _, new in per_kind for f in new if f.what in (DOOR, GATE))
    predicted = {
        on: frozenset(after.open_doors(on))
        for on in sorted({*before.doors, *after.doors, *before.gates, *after.gates})
        if before.open_doors(on) != after.open_doors(on)
    }
    return DoorCheck(kinds if predicted else frozenset(), predicted)


def door_differences(check: DoorCheck, observed: Iterable[Fact]) -> list[str]:
    """Each door open or closed otherwise than ``check`` predicted, per object."""
    found = Reach(observed)
    lines = []
    for on, predicted in check.predicted.items():
        now = found.open_doors(on)
        lines += [f"{on}: {who}: the plan predicted open, read back closed"
                  for who in sorted(predicted - now)]  # fmt: skip
        lines += [f"{on}: {who}: the plan predicted closed, read back open"
                  for who in sorted(now - predicted)]  # fmt: skip
    return lines
