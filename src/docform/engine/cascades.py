"""What goes with a delete: every object the API takes down or changes along with it, listed
under the delete (`Change.takes`) and judged by the rails.

Two relations carry a delete further:
- containment: an object whose natural key names the deleted one (a space in a collection, a
  site space in a section) goes with it. What lives in what is judged as the plan leaves it
  when the delete is made: an object whose move comes first (in plan order) has left by then.
- a field naming it (`Kind.deleted_with`): a site space showing a deleted space is deleted, a
  SAML provider's default team is cleared, a redirect is left pointing at nothing.

An object the plan deletes itself is not listed under another delete. Everything else is, and
breaks the ``cascade`` rail (``protect`` for a protected entry), except an unmanaged object
that is only a link inside what is deleted (`Kind.unmanaged_go_with_container`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from docform.engine.dependencies import refs_in
from docform.engine.kind import Desired, Gone, Kind, Observed
from docform.engine.match import Matching, unmatched_address
from docform.engine.plan import Change, Violation

CONTAINED = "deleted with it"


@dataclass(frozen=True)
class Casualty:
    """An object a delete takes with it, and what becomes of it."""

    address: str
    title: str | None
    fate: str
    entry: Desired | None
    """The manifest entry managing it; None when it is unmanaged."""
    judged: bool
    """Whether the rails judge it (not an unmanaged link lost with what holds it)."""
    where: str | None = None
    """Why planning did not read it, for a bystander (`docform.engine.objects.Bystander`)."""

    def to_json(self) -> dict[str, str | bool | None]:
        return {
            "address": self.address,
            "human_key": self.title,
            "fate": self.fate,
            "managed": self.entry is not None,
        }

    @property
    def named(self) -> str:
        if self.title and not self.address.endswith(self.title):
            return f"{self.address} ({self.title})"
        return self.address


def judge_deletes(
    changes: Sequence[Change], matchings: Sequence[tuple[Kind, Matching]]
) -> tuple[list[Violation], set[str], list[Gone]]:
    """List under each delete of ``changes`` what goes with it; returns the rails this breaks,
    the addresses of the unmanaged objects listed (no longer "left alone"), and every object
    that goes: deleted, or contained in what is (where bystanders are looked for)."""
    position = {c.key: i for i, c in enumerate(changes)}
    deletes = {c.address: c for c in changes if c.action == "delete"}
    if not deletes:
        return [], set(), []  # nothing is deleted: skip mapping what lies in what
    world = _World(changes, matchings)
    taken: dict[str, list[Casualty]] = {address: [] for address in deletes}
    # Deletes made after the same moves see the same tree (usually: every move, once).
    by_moves: dict[frozenset[str], set[str]] = {}
    for delete in deletes.values():
        done = frozenset(k for k in world.moves.values() if position[k] < position[delete.key])
        by_moves.setdefault(done, set()).add(delete.address)
    for done, wanted in by_moves.items():
        for casualty, container in world.contained(done, wanted):
            taken[container].append(casualty)
    # What is contained in a delete is gone too: a field naming it reaches further (a site
    # space showing a space of a deleted collection).
    gone = {address: address for address in deletes}
    gone |= {c.address: container for container, found in taken.items() for c in found}
    for casualty, deleted in world.referring(gone):
        taken[deleted].append(casualty)
    violations: list[Violation] = []
    listed: set[str] = set()
    for address, casualties in taken.items():
        delete = deletes[address]
        casualties.sort(key=lambda c: c.address)
        delete.takes = [c.to_json() for c in casualties]
        violations += [violation(c, delete) for c in casualties if c.judged]
        listed |= {c.address for c in casualties if c.entry is None}
    return violations, listed, world.gone(gone)


class _World:
    """Every object of a plan: what it lives in before and after the plan's moves, and the
    fields through which another object's delete reaches it."""

    def __init__(self, changes: Sequence[Change], matchings: Sequence[tuple[Kind, Matching]]):
        self.deleted = {c.address for c in changes if c.action == "delete"}
        self.moves = {c.address: c.key for c in changes if c.action == "move"}
        self.before: dict[str, set[str]] = {}
        self.after: dict[str, set[str]] = {}
        self.objects: dict[str, tuple[Kind, Observed, Desired | None]] = {}
        for kind, matching in matchings:
            for obs in matching.unmatched:
                address = unmatched_address(kind.name, obs)
                self.before[address] = refs_in(obs.key)
                self.objects[address] = (kind, obs, None)
            for pair in matching.pairs:
                address = pair.desired.address
                self.before[address] = refs_in(pair.observed.key)
                self.after[address] = refs_in(pair.desired.key)
                self.objects[address] = (kind, pair.observed, pair.desired)

    def contained(self, done: frozenset[str], wanted: set[str]) -> Iterator[tuple[Casualty, str]]:
        """Each kept object inside one of the ``wanted`` deleted objects, with the nearest,
        once the moves ``done`` are made."""
        for address, (kind, obs, entry) in self.objects.items():
            if address in self.deleted:
                continue
            nearest = self._nearest_deleted(address, done)
            if nearest in wanted:
                judged = entry is not None or not kind.unmanaged_go_with_container
                yield Casualty(address, _title(obs, entry), CONTAINED, entry, judged), nearest

    def referring(self, gone: Mapping[str, str]) -> Iterator[tuple[Casualty, str]]:
        """Each kept object with a field naming one that is ``gone`` (address -> the delete
        that takes it) that the API carries the delete through (`Kind.deleted_with`), with
        that delete."""
        for address, (kind, obs, entry) in self.objects.items():
            if address in gone or not kind.deleted_with:
                continue
            for name, fate in kind.deleted_with.items():
                for named in sorted(refs_in(obs.fields.get(name)) & gone.keys()):
                    what = fate if fate == CONTAINED else f"{name} {fate}"
                    yield Casualty(address, _title(obs, entry), what, entry, True), gone[named]

    def gone(self, gone: Mapping[str, str]) -> list[Gone]:
        """Each object of ``gone`` (address -> the delete that takes it) with its live id."""
        found = []
        for address, delete in gone.items():
            if address in self.objects:
                kind, obs, _ = self.objects[address]
                found.append(Gone(kind.name, obs.id, delete))
        return found

    def _nearest_deleted(self, address: str, done: frozenset[str]) -> str | None:
        seen: set[str] = set()
        level = self._container(address, done)
        while level:
            hit = sorted(level & self.deleted)
            if hit:
                return hit[0]
            seen |= level
            level = {o for a in level for o in self._container(a, done)} - seen
        return None

    def _container(self, address: str, done: frozenset[str]) -> set[str]:
        if self.moves.get(address) in done:
            return self.after.get(address, set())
        return self.before.get(address, set())


def _title(obs: Observed, entry: Desired | None) -> str | None:
    if entry is not None:
        return None  # the address names the entry already
    return obs.title or None


def violation(casualty: Casualty, delete: Change) -> Violation:
    """The rail ``casualty`` breaks: ``protect`` for a protected entry, else ``cascade``."""
    container = delete.address_with_key
    entry = casualty.entry
    if entry is not None and entry.protect:
        effect = "delete it too" if casualty.fate == CONTAINED else f"leave its {casualty.fate}"
        return Violation(
            "protect",
            f"{entry.location}: {casualty.address} is protected, and deleting {container} "
            f"would {effect}; move it out first or remove `protect: true`",
            forceable=False,
            address=casualty.address,
            changes=(delete.key,),
        )
    if casualty.fate.startswith(CONTAINED):
        what = f"would also delete {casualty.named}"
    else:
        what = f"would leave {casualty.named} with its {casualty.fate}"
    if casualty.where:
        why = f"which {casualty.where}; change it there first, or accept it with --allow"
    else:
        why = "which the plan does not delete; manage it, move it out, or prune its kind too"
    return Violation(
        "cascade",
        f"deleting {container} {what}, {why}",
        address=delete.address,
        changes=(delete.key,),
    )
