"""``ignore:`` in the settings: known, accepted differences that plan and drift leave alone.

A pattern names an address (``space.scratch``, ``space.*``; an unmanaged object is
``KIND.~ID`` or ``KIND.TITLE``: ``space.~sp_123``, ``member.bob@acme.test``) or an address
and one of its fields (``team.*.members``, ``organization.title``). ``*`` matches any run of
characters, dots included (a member's address holds an email), ``?`` one character. An address
pattern covers the object and everything inside it (``site.docs`` covers its sections), like
``--exclude``.

- an ignored field is left out of the comparison of a matched object (a create still writes
  it: the entry asks for the object as written);
- an ignored address drops its changes, and the changes that cannot run without them;
- an ignored unmanaged object is neither listed nor pruned.

Ignoring never hides anything silently: each ignored item is recorded in ``Plan.ignored`` and
every rendering counts them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

from docform.engine.kind import Kind
from docform.engine.match import unmatched_address
from docform.engine.objects import Matching, Pair, address_head, respelled
from docform.engine.plan import Change, Plan
from docform.engine.targets import dependents_of

SameField = Callable[[Kind, str, Any, Any], bool]
"""Whether a kind's field has the same value in an entry (want) and live (have)."""


@dataclass(frozen=True)
class Ignored:
    """One difference an ``ignore:`` pattern left out of the plan."""

    item: str
    address: str
    kind: str
    pattern: str
    action: str | None = None
    field: str | None = None
    id: str | None = None
    title: str | None = None
    because: str | None = None
    """For a change dropped only because it needs an ignored one: that change's key."""

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.item,
            "address": self.address,
            "kind": self.kind,
            "action": self.action,
            "field": self.field,
            "id": self.id,
            "title": self.title,
            "pattern": self.pattern,
            "because": self.because,
        }

    def describe(self) -> str:
        """One line for people: what was left out, and by which pattern."""
        if self.item == "field":
            what = f"{self.address}.{self.field} (differs)"
        elif self.item == "unmanaged":
            what = f"unmanaged {self.kind} {self.id} {json.dumps(self.title, ensure_ascii=False)}"
        else:
            what = f"{self.address} ({self.action})"
        if self.because:
            return f"{what}: needs {self.because}, ignored by {self.pattern}"
        return f"{what}: ignored by {self.pattern}"


class IgnoreRules:
    """The ``ignore:`` patterns of one manifest set (``locations``: where each is written)."""

    def __init__(self, patterns: Iterable[str], locations: Sequence[str] = ()) -> None:
        self.patterns = [respelled(pattern) for pattern in patterns]
        self.locations = list(locations)

    def unused(
        self, addresses: Iterable[str], fields: Iterable[str], used: Collection[str] = ()
    ) -> list[str]:
        """A warning for each pattern that matches none of ``addresses`` (entries and live
        objects, ``KIND.~ID`` and ``KIND.TITLE``) nor of ``fields`` (``ADDRESS.FIELD``), and
        is not among the ``used`` ones: a typo there would silently ignore nothing."""
        addresses, fields = list(addresses), list(fields)
        warnings = []
        for index, pattern in enumerate(self.patterns):
            if pattern in used:
                continue
            if any(fnmatchcase(a, pattern) or fnmatchcase(a, pattern + ".*") for a in addresses):
                continue
            if any(fnmatchcase(f, pattern) for f in fields):
                continue
            where = self.locations[index] if index < len(self.locations) else "docform.ignore"
            warnings.append(
                f"{where}: ignore pattern '{pattern}' matches nothing in the manifests or the "
                "live organization; correct it, or remove it from `ignore:`"
            )
        return warnings

    def address_pattern(self, address: str) -> str | None:
        """The first pattern covering ``address`` (or an object it is inside), else None."""
        for pattern in self.patterns:
            if fnmatchcase(address, pattern) or fnmatchcase(address, pattern + ".*"):
                return pattern
        return None

    def field_pattern(self, address: str, field: str) -> str | None:
        """The first pattern naming ``field`` of the object at ``address``, else None."""
        dotted = f"{address}.{field}"
        for pattern in self.patterns:
            if fnmatchcase(dotted, pattern):
                return pattern
        return None

    def set_aside(
        self, matchings: Sequence[tuple[Kind, Matching]], same: SameField
    ) -> list[Ignored]:
        """Before changes are made: take the live value of each ignored field of a matched
        object (so it never differs), and drop ignored unmanaged objects. Returns what was
        ignored; ``same(kind, field, want, have)`` is the planner's comparison."""
        if not self.patterns:
            return []
        ignored: list[Ignored] = []
        for kind, matching in matchings:
            for pair in (*matching.pairs, *matching.restores):
                ignored += self._set_fields_aside(kind, pair, same)
            ignored += self._set_unmanaged_aside(kind.name, matching)
        return ignored

    def _set_unmanaged_aside(self, kind: str, matching: Matching) -> list[Ignored]:
        kept, ignored = [], []
        for obs in matching.unmatched:
            address = unmatched_address(kind, obs)
            pattern = self.address_pattern(address) or self.address_pattern(
                f"{address_head(kind)}.{obs.title}"
            )
            if pattern is None:
                kept.append(obs)
            else:
                ignored.append(
                    Ignored("unmanaged", address, kind, pattern, id=obs.id, title=obs.title)
                )
        matching.unmatched = kept
        return ignored

    def _set_fields_aside(self, kind: Kind, pair: Pair, same: SameField) -> list[Ignored]:
        desired, observed = pair.desired, pair.observed
        if self.address_pattern(desired.address) is not None:
            return []  # its changes are dropped whole, by drop_changes
        fields = dict(desired.fields)
        ignored = []
        for name, want in desired.fields.items():
            pattern = self.field_pattern(desired.address, name)
            if pattern is None:
                continue
            have = observed.fields.get(name)
            fields[name] = have
            if not same(kind, name, want, have):
                ignored.append(
                    Ignored(
                        "field", desired.address, kind.name, pattern, field=name, id=observed.id
                    )
                )
        # A copy: the entry's own values still order its siblings (site structure).
        pair.desired = replace(desired, fields=fields)
        return ignored

    def drop_changes(self, plan: Plan) -> None:
        """After ordering: drop the changes of ignored addresses and, since they could not
        run without them, the changes that depend on those; each is recorded in the plan."""
        if not self.patterns:
            return
        dropped: dict[str, Ignored] = {}
        for change in plan.changes:
            pattern = self.address_pattern(change.address)
            if pattern is not None:
                dropped[change.key] = _ignored_change(change, pattern)
        by_key = {c.key: c for c in plan.changes}
        # In the order found, so the change each one needs is already recorded.
        for key, needed in dependents_of(dropped, plan.changes).items():
            pattern = dropped[needed].pattern
            dropped[key] = _ignored_change(by_key[key], pattern, because=needed)
        plan.changes = [c for c in plan.changes if c.key not in dropped]
        plan.ignored += [dropped[k] for k in sorted(dropped)]


def _ignored_change(change: Change, pattern: str, because: str | None = None) -> Ignored:
    return Ignored(
        "change",
        change.address,
        change.kind,
        pattern,
        action=change.action,
        id=change.live_id,
        because=because,
    )
