"""After an apply: read back what it touched and find what still differs from the manifests.

An apply whose every call succeeded has still not converged when the service placed or kept
something other than planned (siblings that reached it in another order, a value it
normalised, a site's default section that moved when a section group was created). So once the
calls are made, the kinds the apply changed are planned again, with the kinds that refer to a
kind whose objects it made, deleted, moved or restored (a space's site spaces and grants), and
the kinds all those need to be matched (their references) or read (a site's structure needs its
site): any change still planned for any kind read is reported, and the apply does not say
"complete".
A kind read but not changed is judged too: a change of one object can move a field of another
(the site's default section is a field of its sections, order a field of siblings).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docform.api.scopes import user_token_only
from docform.engine.audience import Fact
from docform.engine.capabilities import ReadsPartsOfEach
from docform.engine.client import ServiceClient
from docform.engine.doors import live_facts
from docform.engine.kind import Kind
from docform.engine.live import Earlier
from docform.engine.manifests import ManifestView
from docform.engine.plan import Change
from docform.engine.planner import plan_from_matcher
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.snapshot import read_live_state
from docform.engine.targets import Targeting, narrow_plan
from docform.errors import DocformError
from docform.manifest import ManifestSet


@dataclass
class Verification:
    """What a read after the apply found: the changes still planned, or why it could not read."""

    remaining: list[Change] = field(default_factory=list)
    error: str | None = None
    identities: dict[str, str] = field(default_factory=dict)
    """The live id of each entry the read matched, those the apply created included."""
    facts: list[Fact] = field(default_factory=list)
    """What the objects read tell of who reaches what (`docform.engine.doors.live_facts`)."""

    @property
    def settled(self) -> bool:
        return not self.remaining and self.error is None


RESHAPING = frozenset({"create", "delete", "move", "restore"})
"""Actions after which what refers to the object may have changed with it (a space deleted
takes its site spaces and grants, a section created makes its first site space)."""


def kinds_to_read(
    kinds: Sequence[Kind], changed: set[str], reshaped: set[str] | None = None
) -> list[Kind]:
    """``changed`` kinds, the kinds that refer to a ``reshaped`` one (one whose objects the
    apply made, deleted, moved or restored), transitively, and every kind those refer to or
    are read after, transitively, in the order of ``kinds``."""
    by_name = {kind.name: kind for kind in kinds}
    affected = set(reshaped or ())
    while True:
        referring = {k.name for k in kinds if affected & set(k.references)} - affected
        if not referring:
            break
        affected |= referring
    needed: set[str] = set()
    stack = [name for name in changed | affected if name in by_name]
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        kind = by_name[name]
        stack.extend(n for n in (*kind.references, *kind.read_after) if n in by_name)
    return [kind for kind in kinds if kind.name in needed]


async def verify_applied(
    manifests: ManifestSet,
    client: ServiceClient,
    kinds: Sequence[Kind],
    applied: Sequence[Change],
    *,
    targeting: Targeting | None = None,
    locked: Mapping[str, str] | None = None,
    sources: Mapping[str, Mapping[str, str]] | None = None,
    earlier: Earlier | None = None,
    also_read: Collection[str] = (),
) -> Verification:
    """Plan again the kinds of ``applied`` and those they need (read with ``client``, which
    should be read-only) and return every change still planned. ``targeting``: the apply's
    ``--target`` / ``--exclude``, which narrow the new plan as they narrowed the applied one
    (what they left out was not applied, so it is no sign of an apply that did not settle);
    ``locked``: the ids the applied plan matched its entries to, matched the same way again;
    ``sources``: the secret sources sent by the apply or before it (`Plan.kept_sources`);
    ``earlier``: what of planning's read stays true (`earlier_read`): the parts of an object
    the apply left alone are not read again;
    ``also_read``: kinds to read though the apply did not change them (the doors it checks)."""
    subset = _read_after(kinds, applied, also_read)
    if not subset:
        return Verification()
    org_id = manifests.organization.id
    matcher = ProgressiveMatcher(subset, manifests, locked=locked, sources=sources)
    wanted = {kind.name: matcher.pinned_ids(kind) for kind in subset}
    try:
        live = await read_live_state(
            client, org_id, subset, wanted, None, matcher.kind_read, matcher.manages,
            earlier=earlier,
        )  # fmt: skip
        prune = manifests.settings.prune.model_dump()
        plan = plan_from_matcher(matcher, manifests, live, org_id, prune, user_token_only)
    except DocformError as exc:
        return Verification(error=str(exc))
    if targeting is not None:
        plan = narrow_plan(plan, targeting.targets, targeting.excludes, check=False)
    by_name = {kind.name: kind for kind in subset}
    facts = live_facts((by_name[name], matching) for name, matching in plan.matchings)
    return Verification(list(plan.changes), identities=dict(plan.identities), facts=facts)


def _read_after(
    kinds: Sequence[Kind], applied: Sequence[Change], also_read: Collection[str]
) -> list[Kind]:
    """The kinds the read after ``applied`` plans again (none when nothing was applied)."""
    changed = {change.kind for change in applied} | set(also_read)
    if not changed:
        return []
    reshaped = {change.kind for change in applied if change.action in RESHAPING}
    return kinds_to_read(kinds, changed, reshaped)


def earlier_read(
    manifests: ManifestView,
    kinds: Sequence[Kind],
    live_objects: Mapping[str, Mapping[str, Any]],
    applied: Sequence[Change],
    also_read: Collection[str] = (),
) -> Earlier | None:
    """What of planning's read (``live_objects``, `Plan.live_objects`) stays true after
    ``applied``, for the read after it: the parts read apart (`ReadsPartsOfEach`) of the
    objects it did not change, of the kinds that read reads and that refer to no kind it
    changed. A kind read whole, with one list, takes nothing from it. Only those are kept, so
    that the plan can let go of the rest of what it read before that read
    (`Plan.release_reads`)."""
    if not live_objects:
        return None
    subset = _read_after(kinds, applied, also_read)
    changed = {change.kind for change in applied}
    stale = frozenset(k.name for k in subset if changed & set(k.references))
    touched = frozenset(c.live_id for c in applied if c.live_id is not None)
    objects: dict[str, Mapping[str, Any]] = {}
    for kind in subset:
        if kind.name in stale or not isinstance(kind, ReadsPartsOfEach):
            continue
        for desired in kind.desired(manifests):
            raw = live_objects.get(desired.address)
            if raw is not None and "id" in raw and str(raw["id"]) not in touched:
                objects[str(raw["id"])] = kind.parts_read_apart(raw)
    return Earlier(objects, touched, stale)
