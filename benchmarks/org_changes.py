"""A chosen number of mixed changes made to the benchmark organization's manifests.

The live organization keeps its base shape; the changed manifests differ from it by exactly
``count`` plan changes: creates, updates, moves, membership changes and deletes. Each change
records the fewest API calls the API allows for it, one after the other (``calls``), which is
what `ideal.py` schedules.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from org_shape import Org, email

# Share of each action among the changes; creates and deletes also cover the rest of a count.
MIX = {"membership": 0.30, "update": 0.25, "create": 0.15, "move": 0.15, "delete": 0.15}
NEW_TEAM_SHARE = 0.2
"""Share of the creates that are teams (two calls: create it, then set its owner)."""


@dataclass(frozen=True)
class Expected:
    """One change the plan should hold, and the fewest calls that make it."""

    address: str
    action: str
    calls: int = 1


def change_org(org: Org, count: int, seed: int = 11) -> tuple[Org, list[Expected]]:
    """A copy of ``org`` changed by ``count`` changes, and the changes it expects."""
    rng = random.Random(seed)
    changed = copy.deepcopy(org)
    shares = {action: int(count * share) for action, share in MIX.items()}
    shares["create"] += count - sum(shares.values())
    expected: list[Expected] = []
    # Spaces shown on the site stay where they are, and spaces whose entries write access stay
    # (a plan reads their grants, which the ideal counts); others are touched once at most.
    shown = org.on_site()
    free = [n for n, space in org.spaces.items() if n not in shown and "access" not in space]
    rng.shuffle(free)
    expected += _membership(changed, rng, shares["membership"])
    expected += _updates(changed, rng, shares["update"], free)
    expected += _moves(changed, rng, shares["move"], free)
    expected += _deletes(changed, shares["delete"], free)
    expected += _creates(changed, rng, shares["create"])
    return changed, expected


def _membership(org: Org, rng: random.Random, count: int) -> list[Expected]:
    """Per team: one member leaves, one joins, and one changes role, in one call."""
    out = []
    for name in rng.sample(list(org.teams), min(count, len(org.teams))):
        members = org.teams[name]["members"]
        ordinary = [e for e, role in members.items() if role == "member"]
        if len(ordinary) >= 2:
            del members[ordinary[0]]
            members[ordinary[1]] = "owner"
        newcomer = next(
            email(i) for i in rng.sample(range(org.shape.members), 50) if email(i) not in members
        )
        members[newcomer] = "member"
        out.append(Expected(f"team.{name}", "membership"))
    return out


def _updates(org: Org, rng: random.Random, count: int, free: list[str]) -> list[Expected]:
    """Half member role changes, half space renames (their ids are pinned)."""
    out = []
    roles = count // 2
    for address in rng.sample(list(org.members)[1:], roles):
        org.members[address] = "edit" if org.members[address] != "edit" else "read"
        out.append(Expected(f"member.{address}", "update"))
    for name in _take(free, count - roles):
        org.spaces[name]["title"] += " (renamed)"
        out.append(Expected(f"space.{name}", "update"))
    return out


def _moves(org: Org, rng: random.Random, count: int, free: list[str]) -> list[Expected]:
    collections = list(org.collections)
    out = []
    for name in _take(free, count):
        space = org.spaces[name]
        space["collection"] = rng.choice([c for c in collections if c != space.get("collection")])
        out.append(Expected(f"space.{name}", "move"))
    return out


def _deletes(org: Org, count: int, free: list[str]) -> list[Expected]:
    """Spaces no manifest lists any more, deleted because ``prune.spaces`` is on."""
    out = []
    for name in _take(free, count):
        space_id = org.spaces.pop(name)["id"]
        out.append(Expected(f"space.~{space_id}", "delete"))
    return out


def _creates(org: Org, rng: random.Random, count: int) -> list[Expected]:
    teams = int(count * NEW_TEAM_SHARE)
    collections = list(org.collections)
    out = []
    for i in range(teams):
        people = rng.sample(range(org.shape.members), 5)
        members = {email(p): "member" for p in people}
        members[email(people[0])] = "owner"
        org.teams[f"newteam{i:04d}"] = {"title": f"New team {i:04d}", "members": members}
        out.append(Expected(f"team.newteam{i:04d}", "create", calls=2))
    spaces = count - teams
    collection = rng.choice(collections)
    for i in range(spaces):
        # Two new spaces (or three) to a collection: a collection that lost its one space and
        # gains one is a likely replacement (engine/replacements.py), which apply refuses.
        if i % 2 == 0 and i + 1 < spaces and i > 0:
            collection = rng.choice(collections)
        entry = {"title": f"New space {i:04d}", "editMode": "live", "collection": collection}
        org.spaces[f"newspace{i:04d}"] = entry
        out.append(Expected(f"space.newspace{i:04d}", "create"))
    return out


def _take(names: list[str], count: int) -> list[str]:
    if count > len(names):
        raise ValueError(
            f"the organization has only {len(names)} spaces left to change, not {count}: "
            "ask for fewer changes or a larger organization"
        )
    taken = names[:count]
    del names[:count]
    return taken
