"""Unique values handed from one object to another: a section's path given to a sibling that
takes it while the section takes another.

The API refuses a value another object of the same container still holds (409), so the change
that takes a value waits for the change that gives it up (an update to another value, or a
delete). Where the hand-overs form a circle (two sections swapping paths), none could go first:
one object is moved to a temporary value by a ``release`` change, which the plan shows like any
other, and the circle becomes a chain.

A kind marks such fields `Unique` (`docform.engine.field_rules`): unique among the objects
whose natural keys agree but for the last part (a section's path within its site).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed
from docform.engine.match import Matching, unmatched_address
from docform.engine.plan import Change, FieldChange
from docform.errors import DocformError

TAKING = ("create", "update")


@dataclass(frozen=True)
class Handover:
    """``taker`` (a change key) takes ``value`` of ``field`` from ``holder`` (an address),
    once ``freer`` (the holder's change that gives it up) is made."""

    taker: str
    holder: str
    freer: str
    field: str
    value: Any


def order_handovers(
    changes: Sequence[Change], matchings: Sequence[tuple[Kind, Matching]], index: AddressIndex
) -> list[Change]:
    """Make each change that takes a unique value wait for the change that frees it; returns
    the ``release`` changes that break circles (to add to the plan)."""
    releases: list[Change] = []
    for kind, matching in matchings:
        if kind.rules.unique:
            releases += _kind_handovers(kind, matching, changes, index)
    return releases


def _kind_handovers(
    kind: Kind, matching: Matching, changes: Sequence[Change], index: AddressIndex
) -> list[Change]:
    mine = [c for c in changes if c.kind == kind.name]
    if not mine:
        return []
    live = _LiveValues(kind, matching)
    by_key = {c.key: c for c in mine}
    handovers: dict[str, Handover] = {}
    for change in mine:
        if change.action not in TAKING:
            continue
        scope = live.scope_of(change.address)
        for name in kind.rules.unique:
            if name not in (change.after or {}):
                continue
            found = live.handover(change, scope, name, by_key)
            if found is not None:
                handovers[change.key] = found
                change.depends_on = sorted({*change.depends_on, found.freer})
    releases = []
    for circle in _circles(handovers):
        releases.append(_release(kind, circle, handovers, by_key, live, index))
    return releases


class _LiveValues:
    """Who holds which unique value now, and which change gives it up."""

    def __init__(self, kind: Kind, matching: Matching) -> None:
        self.kind = kind
        self.pairs: dict[str, tuple[Observed, Desired]] = {}
        self.scopes: dict[str, Hashable] = {}
        self.holders: dict[tuple[Hashable, str, Any], str] = {}
        self.titles: dict[str, str] = {}
        self.locations = {d.address: d.location for d in matching.desired}
        for pair in matching.pairs:
            address = pair.desired.address
            self.pairs[address] = (pair.observed, pair.desired)
            self._hold(address, pair.observed)
        for obs in matching.unmatched:
            self._hold(unmatched_address(kind.name, obs), obs)
        for desired in matching.creates:
            self.scopes[desired.address] = desired.key[:-1]

    def _hold(self, address: str, obs: Observed) -> None:
        self.titles[address] = obs.title
        scope = obs.key[:-1]
        self.scopes[address] = scope
        for name in self.kind.rules.unique:
            value = obs.fields.get(name)
            if isinstance(value, Hashable) and value is not None:
                self.holders[(scope, name, value)] = address

    def scope_of(self, address: str) -> Hashable:
        return self.scopes.get(address)

    def handover(
        self, change: Change, scope: Hashable, name: str, by_key: Mapping[str, Change]
    ) -> Handover | None:
        value = (change.after or {})[name]
        if not isinstance(value, Hashable):
            return None
        holder = self.holders.get((scope, name, value))
        if holder is None or holder == change.address:
            return None
        freers = (by_key.get(f"{holder}#{action}") for action in ("delete", "move", "update"))
        freer = next((c for c in freers if c is not None), None)
        if freer is None or (freer.action == "update" and name not in (freer.after or {})):
            raise self._kept(change, holder, name, value)
        return Handover(change.key, holder, freer.key, name, value)

    def _kept(self, change: Change, holder: str, name: str, value: Any) -> DocformError:
        """The error of a change taking a unique value that its holder keeps: the API would
        refuse it (409) half way through the apply."""
        where = self.locations.get(change.address, change.address)
        title = self.titles.get(holder)
        named = f"{holder} ({title})" if title and not holder.endswith(title) else holder
        kept = "which no manifest manages" if "~" in holder else "whose entry keeps it"
        return DocformError(
            f"{where}: {change.address}: {name}: {json.dumps(value)} is held by {named}, {kept} "
            f"and the plan keeps: the API would refuse it (409); write another {name}, or free "
            "it there first"
        )

    def values_in(self, scope: Hashable, name: str) -> set[Any]:
        return {v for (s, n, v) in self.holders if s == scope and n == name}


def _circles(handovers: Mapping[str, Handover]) -> list[list[str]]:
    """Each circle of changes that wait for one another through hand-overs, once, in a
    deterministic order (from its smallest key)."""
    found: list[list[str]] = []
    seen: set[str] = set()
    for start in sorted(handovers):
        trail: list[str] = []
        key: str | None = start
        while key is not None and key in handovers and key not in seen and key not in trail:
            trail.append(key)
            key = handovers[key].freer
        if key is not None and key in trail:
            circle = trail[trail.index(key) :]
            first = circle.index(min(circle))
            found.append(circle[first:] + circle[:first])
        seen.update(trail)
    return found


def _release(
    kind: Kind,
    circle: list[str],
    handovers: dict[str, Handover],
    by_key: Mapping[str, Change],
    live: _LiveValues,
    index: AddressIndex,
) -> Change:
    """The change that moves the first object of ``circle`` to a temporary value, so that the
    change waiting for its value can go first."""
    holder_change = by_key[circle[0]]
    taker = next(h for h in handovers.values() if h.freer == holder_change.key)
    obs, desired = live.pairs[holder_change.address]
    name, current = taker.field, taker.value
    temporary = _temporary(current, live.values_in(obs.key[:-1], name) | _wanted(by_key, name))
    release = Change(
        address=holder_change.address,
        kind=kind.name,
        action="release",
        action_reason=(
            f"{by_key[taker.taker].address} takes its {name} {json.dumps(current)} while it "
            f"takes another's: it holds {json.dumps(temporary)} in between"
        ),
        before={name: current},
        after={name: temporary},
        fields=[FieldChange(name, current, temporary)],
        calls=kind.change_calls(
            ChangeContext("update", obs, desired, {name: temporary}, index.resolve)
        ),
        live_id=obs.id,
    )
    by_key[taker.taker].depends_on = sorted(
        {*(k for k in by_key[taker.taker].depends_on if k != holder_change.key), release.key}
    )
    holder_change.depends_on = sorted({*holder_change.depends_on, release.key})
    handovers[taker.taker] = Handover(taker.taker, taker.holder, release.key, name, current)
    return release


def _wanted(by_key: Mapping[str, Change], name: str) -> set[Any]:
    return {c.after[name] for c in by_key.values() if c.after and name in c.after}


def _temporary(value: Any, taken: set[Any]) -> Any:
    """A value no object of the container holds or takes: ``VALUE-moving``, then numbered."""
    if not isinstance(value, str):
        raise TypeError(f"a hand-over circle of a non-text value {value!r} cannot be broken")
    candidate, n = f"{value}-moving", 1
    while candidate in taken:
        n += 1
        candidate = f"{value}-moving-{n}"
    return candidate
