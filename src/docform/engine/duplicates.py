"""Not creating what another apply created meanwhile, and the way out when one did.

The API offers no lock, so two applies to one organization (two CI jobs, a person and a job)
can both plan "create team Platform" and both create it. Three defences, from the cheapest:

- `docform.workflow.apply_lock` keeps applies from one machine from overlapping;
- `CreateGuard`: just before the first create of a kind, the kind's live objects are read
  again (one read per kind, only for kinds the plan creates) and a create whose object has
  appeared since the plan is not sent: it fails, naming the object, so the apply reports that
  it raced with another one;
- when duplicates exist anyway, `ambiguous_match` tells the user which one to keep (the
  oldest), how to pin it and what to delete.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.client import ServiceClient
from docform.engine.kind import AddressIndex, Desired, Kind, Observed
from docform.engine.live import LiveReader, LiveState
from docform.engine.manifests import ManifestView
from docform.engine.plan import Change, Plan


class CreateGuard:
    """Tells, just before a create is sent, whether its object appeared since ``plan``."""

    def __init__(
        self, plan: Plan, kinds: Sequence[Kind], manifests: ManifestView, client: ServiceClient
    ) -> None:
        self._kinds = {kind.name: kind for kind in kinds}
        self._desired: dict[str, Desired] = {}
        kind_of: dict[str, str] = {}
        for kind in kinds:
            for desired in kind.desired(manifests):
                self._desired[desired.address] = desired
                kind_of[desired.address] = kind.name
        self._planned_ids = {tuple(key.split(":", 1)) for key in plan.fingerprints}
        self._index = AddressIndex()
        state = LiveState()
        for address, raw in plan.live_objects.items():
            if address in kind_of:
                self._index.record(kind_of[address], raw["id"], address)
                state.objects.setdefault(kind_of[address], []).append(raw)
        self._reader = LiveReader(client, plan.organization, state)
        self._reads: dict[str, asyncio.Task[list[dict[str, Any]]]] = {}

    async def raced(self, change: Change) -> str | None:
        """Why ``change`` (a create) must not be sent, or None to send it."""
        kind, desired = self._kinds.get(change.kind), self._desired.get(change.address)
        if kind is None or desired is None or not kind.guard_creates:
            return None
        if kind.name not in self._reads:
            self._reads[kind.name] = asyncio.ensure_future(kind.read(self._reader, ()))
        for raw in await self._reads[kind.name]:
            if (kind.name, raw["id"]) in self._planned_ids:
                continue
            observed = kind.observe(raw, self._index)
            if observed is not None and desired.key in (observed.key, *observed.other_keys):
                return raced_message(change, observed)
        return None


def raced_message(change: Change, observed: Observed) -> str:
    return (
        f"{change.key}: not created: a live {change.kind} matching it ({observed.id}) appeared "
        "after the plan was made, so another apply (or someone) created it meanwhile. Nothing "
        "was created twice; run docform plan again to see the organization as it is now, and "
        "make applies to one organization run one at a time (see docs/security.md)."
    )


def ambiguous_match(where: str, kind: str, key: str, candidates: Sequence[Observed]) -> str:
    """The problem of an entry that ``candidates`` (two or more live objects) all match: the
    oldest is the one to keep (others are usually duplicates of a raced apply)."""
    ordered = sorted(candidates, key=_age_order)
    keep, others = ordered[0], ordered[1:]
    created = _created_at(keep.raw)
    since = f", created {created}" if created else ""
    ids = ", ".join(o.id for o in ordered)
    return (
        f"{where}: {len(candidates)} live {kind}s match {key} (ids {ids}); keep the oldest "
        f"({keep.id}{since}): pin it with `id: {keep.id}` in this entry, then delete "
        f"{_listed(o.id for o in others)} in the service (or, with prune of {kind}s on, "
        "let the next apply delete them)"
    )


def _age_order(observed: Observed) -> tuple[int, str, str]:
    created = _created_at(observed.raw)
    return (0 if created else 1, created or "", observed.id)


def _created_at(raw: Mapping[str, Any]) -> str | None:
    created = raw.get("createdAt")
    return created if isinstance(created, str) and created else None


def _listed(ids: Iterable[str]) -> str:
    listed = list(ids)
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
