"""Likely replacements: a plan that creates an entry while it deletes (or leaves unmanaged) a live
object of the same kind that looks like the entry's former self.

docform never guesses a rename, so such a pair stays a create and a delete; but it is marked
``-/+`` (replace) with what keeps the object instead (an ``id:`` pin or ``formerly:``), because a
rename that lost its tie to the object is the usual cause, and for a space the delete loses its
content. A live object resembles an entry when, of the same kind, it has

1. the same name (title, path, label...; case ignored) in any container it could have moved
   from (in its own, for a kind whose objects never move: `Kind.container_key_parts`), or
2. a further key the entry's ``formerly`` also holds (a site space showing the same space), or
3. most of the fields the entry writes besides its key hold what the object holds (renamed
   and moved at once), for kinds whose objects can be renamed, or
4. it is the only unmatched object in the container where the entry is the only create, for
   kinds whose objects can be renamed (weak evidence: a rail only where content is at stake,
   `Kind.guard_weak`).

Each entry is paired with at most one object and each object with at most one entry; where a
rule finds several candidates, that rule pairs nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docform.engine.dependencies import refs_in
from docform.engine.kind import Desired, Kind, Observed, Ref
from docform.engine.match import Matching, unmatched_address
from docform.engine.plan import Change, Plan
from docform.engine.rails import Violation
from docform.engine.values import same_value


@dataclass(frozen=True)
class Replacement:
    """An entry the plan creates and the live object it probably replaces."""

    kind: Kind
    desired: Desired
    observed: Observed
    weak: bool = False
    """Found only because the two are the only create and the only leftover of a container:
    a rail only for kinds whose content a wrong guess would lose (`Kind.guard_weak`)."""
    telling: bool = False
    """Found by what only the object's former self would share with the entry (a former key,
    most of its fields), not by its name or place alone."""

    def note(self, *, deleted: bool) -> str:
        fate = "deletes" if deleted else "leaves unmanaged"
        what = f"{self.kind.name} {self.observed.id} {json.dumps(self.observed.title)}"
        return (
            f"{self.desired.address} is created while the plan {fate} {what}, which looks like "
            f"its former self; if it is, {self.hint()}"
        )

    def violations(self, *, deleted: bool, repointed: Sequence[str] = ()) -> list[Violation]:
        """The rails this replacement breaks; ``repointed``: the changes that point managed
        objects at the created entry instead of the live object (a site space's ``space``)."""
        if not deleted:
            return self._left_violations(repointed)
        changes = (
            f"{self.desired.address}#create",
            f"{unmatched_address(self.kind.name, self.observed)}#delete",
        )
        what = f"{self.kind.name} {self.observed.id} {json.dumps(self.observed.title)}"
        if self.desired.protect:
            message = (
                f"{self.desired.location}: {self.desired.address} is protected, and the plan "
                f"deletes {what}, which looks like its live object; {self.hint()}"
            )
            return [Violation("protect", message, False, self.desired.address, changes)]
        if self.kind.guard_replacement and (self.kind.guard_weak or not self.weak):
            message = (
                f"the plan deletes {what} and creates {self.desired.address} in its place, "
                f"and {self.kind.replacement_loses}; {self.hint()}, or accept the replacement "
                f"with --allow replacement:{self.desired.address}"
            )
            return [Violation("replacement", message, True, self.desired.address, changes)]
        return []

    def _left_violations(self, repointed: Sequence[str]) -> list[Violation]:
        """A telling replacement of an object the plan leaves unmanaged, that the plan points
        managed objects away from: nothing is deleted, but what showed the live object (a site
        space showing a space) would show a new, empty one while the old one stays unseen."""
        if not (self.telling and repointed and self.kind.guard_replacement):
            return []
        what = f"{self.kind.name} {self.observed.id} {json.dumps(self.observed.title)}"
        message = (
            f"the plan creates {self.desired.address} while it leaves {what} unmanaged, which "
            f"looks like its former self: {', '.join(sorted(repointed))} would be pointed at "
            f"the new {self.kind.name} instead; {self.hint()}, or accept the new one with "
            f"--allow replacement:{self.desired.address}"
        )
        changes = (f"{self.desired.address}#create", *(f"{a}#update" for a in repointed))
        return [Violation("replacement", message, True, self.desired.address, changes)]

    def hint(self) -> str:
        """What keeps the live object: its id pinned, or a former key."""
        if self.kind.replacement_hint is not None:
            return self.kind.replacement_hint.format(live=self.observed.title)
        pin = f"pin `id: {self.observed.id}` in {self.desired.location}"
        former = _former_key(self.desired, self.observed)
        if former is None:
            return f"{pin} to keep it"
        return f"{pin} or add `formerly: [{former}]` to keep it"


def mark_replacements(plan: Plan, matchings: Sequence[tuple[Kind, Matching]]) -> None:
    """Mark each likely replacement on its changes, note it, and add the rails it breaks."""
    changes = {c.key: c for c in plan.changes}
    for found in find_replacements(matchings):
        create = changes.get(f"{found.desired.address}#create")
        if create is None:  # set aside by `ignore:`
            continue
        gone = unmatched_address(found.kind.name, found.observed)
        delete = changes.get(f"{gone}#delete")
        create.replacement = {
            "create": create.address,
            "delete": delete.address if delete else None,
            "id": found.observed.id,
            "hint": found.hint(),
        }
        if delete is not None:
            delete.replacement = create.replacement
        plan.notes.append(found.note(deleted=delete is not None))
        repointed = [] if delete else _repointing(plan.changes, found)
        plan.violations += found.violations(deleted=delete is not None, repointed=repointed)


def _repointing(changes: Sequence[Change], found: Replacement) -> list[str]:
    """The managed objects whose update points a field from ``found``'s live object to the
    entry it creates (a site space's ``space``)."""
    old, new = unmatched_address(found.kind.name, found.observed), found.desired.address
    return [
        c.address
        for c in changes
        if c.action == "update"
        and any(
            old in refs_in((c.before or {}).get(name)) and new in refs_in(value)
            for name, value in (c.after or {}).items()
        )
    ]


def find_replacements(matchings: Sequence[tuple[Kind, Matching]]) -> list[Replacement]:
    found: list[Replacement] = []
    for kind, matching in matchings:
        if matching.creates and matching.unmatched:
            found += _kind_replacements(kind, matching.creates, matching.unmatched)
    return found


def _kind_replacements(
    kind: Kind, creates: Sequence[Desired], unmatched: Sequence[Observed]
) -> list[Replacement]:
    # Each rule, the live objects it can hold for (looked up by what it compares: a plan of
    # many creates and deletes would otherwise try every pair), whether it is weak, and
    # whether it is telling (`Replacement`).
    by_name = _by(unmatched, lambda o: [_name(o.key)])
    by_former_key = _by(unmatched, lambda o: o.other_keys)
    by_container = _by(unmatched, lambda o: [o.key[:-1]])
    rules: list[tuple[Rule, Among, bool, bool]] = [
        (_same_name(kind), lambda d: by_name.get(_name(d.key), ()), False, False),
        (
            lambda d, o: bool(set(d.formerly) & set(o.other_keys)),
            lambda d: _any_of(by_former_key, d.formerly),
            False,
            True,
        ),
    ]
    if kind.renamable:
        rules.append((_fields_mostly_agree(), lambda d: unmatched, False, True))
        rules.append(
            (
                _only_ones_in_container(kind, creates, unmatched),
                lambda d: by_container.get(d.key[:-1], ()),
                True,
                False,
            )
        )
    paired: dict[str, Replacement] = {}
    taken: set[str] = set()
    for rule, among, weak, telling in rules:
        for d in creates:
            if d.address in paired:
                continue
            candidates = [o for o in among(d) if o.id not in taken and rule(d, o)]
            if len(candidates) == 1:
                paired[d.address] = Replacement(kind, d, candidates[0], weak, telling)
                taken.add(candidates[0].id)
    return [paired[d.address] for d in creates if d.address in paired]


Rule = Callable[[Desired, Observed], bool]
Among = Callable[[Desired], Iterable[Observed]]
"""The live objects a rule can hold for, of a created entry."""


def _by(
    objects: Sequence[Observed], keys: Callable[[Observed], Iterable[Hashable]]
) -> dict[Hashable, list[Observed]]:
    """``objects`` under each of their ``keys``."""
    found: dict[Hashable, list[Observed]] = {}
    for o in objects:
        for key in keys(o):
            found.setdefault(key, []).append(o)
    return found


def _any_of(index: Mapping[Hashable, list[Observed]], keys: Iterable[Hashable]) -> list[Observed]:
    """The objects under any of ``keys``, each once."""
    return list({id(o): o for key in keys for o in index.get(key, ())}.values())


def _same_name(kind: Kind) -> Callable[[Desired, Observed], bool]:
    def rule(d: Desired, o: Observed) -> bool:
        moves = bool(kind.container_key_parts) or d.key[:-1] == o.key[:-1]
        return moves and _name(d.key) == _name(o.key)

    return rule


def _only_ones_in_container(
    kind: Kind, creates: Sequence[Desired], unmatched: Sequence[Observed]
) -> Callable[[Desired, Observed], bool]:
    def container(key: tuple[Any, ...]) -> tuple[Any, ...]:
        return key[:-1]

    created: dict[tuple[Any, ...], int] = defaultdict(int)
    left: dict[tuple[Any, ...], int] = defaultdict(int)
    for d in creates:
        created[container(d.key)] += 1
    for o in unmatched:
        left[container(o.key)] += 1

    def rule(d: Desired, o: Observed) -> bool:
        here = container(d.key)
        return here == container(o.key) and created[here] == 1 and left[here] == 1

    return rule


def _fields_mostly_agree() -> Callable[[Desired, Observed], bool]:
    """Renamed and moved at once: of the fields the entry writes besides its key, most hold
    what the live object holds (a space's emoji, a team's members)."""
    compared_of: dict[str, list[str]] = {}

    def compared(d: Desired) -> list[str]:
        if d.address not in compared_of:
            compared_of[d.address] = [
                name
                for name, value in d.fields.items()
                if name not in d.key_fields and value is not None and not _is_reference(value)
            ]
        return compared_of[d.address]

    def rule(d: Desired, o: Observed) -> bool:
        names = compared(d)
        agree = sum(same_value(d.fields[n], o.fields.get(n)) for n in names)
        return bool(names) and agree * 2 > len(names)

    return rule


def _is_reference(value: Any) -> bool:
    return isinstance(value, Ref)


def _name(key: tuple[Any, ...]) -> Any:
    last = key[-1] if key else None
    return last.casefold() if isinstance(last, str) else last


def _former_key(d: Desired, o: Observed) -> str | None:
    """``formerly`` item that matches ``o``: its name when only that differs, else a mapping
    of the key fields; None when the key holds what a manifest cannot name."""
    fields = d.key_fields
    if not fields or len(o.key) != len(d.key):
        return None
    first = len(d.key) - len(fields)
    if o.key[:first] != d.key[:first]:
        return None
    if o.key[:-1] == d.key[:-1]:
        return json.dumps(o.key[-1], ensure_ascii=False)
    written = [_written(part) for part in o.key[first:]]
    if any(part is _UNNAMED for part in written):
        return None
    pairs = ", ".join(
        f"{f}: {json.dumps(v, ensure_ascii=False)}" for f, v in zip(fields, written, strict=True)
    )
    return "{" + pairs + "}"


_UNNAMED = object()


def _written(part: Any) -> Any:
    """A key part as a manifest writes it: a reference by the entry's manifest name."""
    if part is None or isinstance(part, str):
        return part
    if isinstance(part, Ref):
        return part.address.rsplit(".", 1)[-1]
    return _UNNAMED
