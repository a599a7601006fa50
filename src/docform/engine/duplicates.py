"""Not creating what another apply created meanwhile, and the way out when one did.

The API offers no lock, so two applies to one organization (two CI jobs, a person and a job)
can both plan "create team Platform" and both create it. Three defences, from the cheapest:

- `docform.workflow.apply_lock` keeps applies from one machine from overlapping;
- `CreateGuard.raced`: just before each create, the kind's live objects are read again (a
  read that started after the create asked, shared by the creates of one wave:
  `docform.engine.fresh_reads`) and a create whose object has appeared since the plan is not
  sent: it fails, naming the object, so the apply reports that it raced with another one;
- `CreateGuard.settle`: after each create, the kind is read again; when another apply created
  the same object at the same time, both keep the oldest (`createdAt`, then id) and the one
  whose object is newer deletes its own and goes on with the oldest (for kinds the API gives
  no `createdAt`, the lowest id). The holder of the one to keep waits a little for the others
  to go, and goes on with another if it stays: its creator read before the kept one could be
  read, so it never saw it (a creation time is given before the object shows in a list);
- an apply stopped between its create and the delete of its newer twin (killed, or its
  machine lost) leaves both: the next plan settles them as `CreateGuard.settle` would have
  (`left_twins`), keeping the oldest and deleting the others, when every one was created
  within `TWIN_WINDOW` after the one kept; the deletes show in the plan, with why, under the
  rails;
- other duplicates (made apart in time, or of a kind the API gives no creation time):
  `ambiguous_match` tells the user which one to keep (the oldest), how to pin it and what to
  delete.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from docform.engine.client import ServiceClient
from docform.engine.fresh_reads import FreshReads
from docform.engine.kind import AddressIndex, Desired, Kind, Observed
from docform.engine.live import Earlier, LiveReader, LiveState
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Change, Plan
from docform.errors import ServiceCallError

TWIN_WINDOW = timedelta(minutes=5)
"""How long after one object of a key another may have been created and still be taken for
its twin from applies run at once: their creates follow their plans within an apply's run,
while an object a person made on purpose with the same key is unlikely that soon after."""

VANISHED_REREADS = 3
"""How many times a read for twins is taken anew when an object it listed answered 404 as
its parts were read (its creator deleted it meanwhile)."""


class CreateGuard:
    """Tells, just before a create is sent, whether its object appeared since ``plan``, and
    settles a create made at the same time as another apply's.

    ``alone``: no other apply can write where this one does (a rehearsal's twin), so no create
    can race another's and none is read for; a create the service answers without its object
    is still read for, to find its id."""

    def __init__(
        self,
        plan: Plan,
        kinds: Sequence[Kind],
        manifests: ManifestView,
        client: ServiceClient,
        *,
        alone: bool = False,
    ) -> None:
        self._alone = alone
        self._kinds = {kind.name: kind for kind in kinds}
        self._client = client
        self._plan, self._manifests = plan, manifests
        self._prepared = False
        self._clock = itertools.count()
        self._reads: dict[str, FreshReads] = {}
        self.notes: list[str] = []
        """What the apply did about objects another apply created at the same time."""
        self.yield_waits: Sequence[float] = (0.5, 1.0, 2.0)

    def _prepare(self) -> None:
        """What creates are compared with, worked out at the first create guarded: an apply
        ``alone`` guards only those the service answers without their object, if any."""
        if self._prepared:
            return
        self._prepared = True
        plan, client = self._plan, self._client
        self._desired: dict[str, Desired] = {}
        kind_of: dict[str, str] = {}
        for kind in self._kinds.values():
            for desired in kind.desired(self._manifests):
                self._desired[desired.address] = desired
                kind_of[desired.address] = kind.name
        self._planned_ids = {tuple(key.split(":", 1)) for key in plan.fingerprints}
        self._index = AddressIndex()
        self._state = LiveState()
        for address, raw in plan.live_objects.items():
            if address in kind_of:
                self._index.record(kind_of[address], raw["id"], address)
                self._state.objects.setdefault(kind_of[address], []).append(raw)
        # Only keys are compared: the parts planning read of an object (a team's members)
        # are not read again, only those of objects that appeared since.
        self._known: dict[str, Mapping[str, Any]] = {
            raw["id"]: raw for raw in plan.live_objects.values() if "id" in raw
        }
        known = Earlier(self._known, frozenset(), frozenset())
        self._reader = LiveReader(client, plan.organization, self._state, earlier=known)

    async def raced(self, change: Change) -> str | None:
        """Why ``change`` (a create) must not be sent, or None to send it."""
        guarded = self._guarded(change)
        if guarded is None or self._alone:
            return None
        kind, desired = guarded
        for observed in await self._twins(kind, desired, self._fresh(kind).moment()):
            return raced_message(change, observed)
        return None

    async def settle(self, change: Change, answer: Any) -> Any:
        """What ``change``, a create whose calls are all made, goes on with: ``answer``, or
        the oldest of the objects other applies created at the same time (its own deleted)."""
        guarded = self._guarded(change)
        ours = answer.get("id") if isinstance(answer, Mapping) else None
        if guarded is not None and answer is None and guarded[0].created_unanswered:
            return await self._found_by_key(change, *guarded)
        if guarded is None or self._alone:
            return answer
        if guarded[0].created_id != "id" or not isinstance(ours, str):
            return answer
        kind, desired = guarded
        twins = await self._twins(kind, desired, self._fresh(kind).moment(), ours)
        mine = next((o for o in twins if o.id == ours), None)
        if mine is None:
            return answer  # the read does not show it (yet): nothing to compare
        keep = await self._kept(kind, desired, mine, twins)
        self._remember(kind, keep, change.address)
        if keep is mine:
            return answer
        for call in kind.delete_calls(mine):
            doc = call.to_json()
            await self._client.answered(doc["method"], doc["path"], json=doc["body"])
        self.notes.append(_settled_note(change, mine, keep))
        return dict(keep.raw)

    async def _found_by_key(self, change: Change, kind: Kind, desired: Desired) -> Any:
        """A create the service answers without its object (a batch's 204, as a glossary's):
        the object the entry's key now finds (the oldest, should there be twins), so that its
        id is recorded; None when the read does not show it (yet)."""
        found = await self._twins(kind, desired, self._fresh(kind).moment())
        if not found:
            return None
        keep = min(found, key=_age_order)
        self._remember(kind, keep, change.address)
        return dict(keep.raw)

    async def _kept(
        self, kind: Kind, desired: Desired, mine: Observed, twins: list[Observed]
    ) -> Observed:
        """Of ``twins`` (``mine`` among them), the one every apply keeps: one that holds the
        entry's key itself before one the service gave another key (a path already taken, so
        a twin made at the same time got ``api-2``), then the oldest."""

        def order(o: Observed) -> tuple[bool, tuple[int, str, str]]:
            return (o.key != desired.key, _age_order(o))

        keep = min(twins, key=order)
        peers = [o for o in twins if (o.key == desired.key) == (mine.key == desired.key)]
        if keep is not mine or len(peers) == 1:
            return keep
        # The first (oldest, or lowest id) is kept by whoever sees both; the other creator
        # may not have: it read before this one was visible (a creation time is given before
        # the object can be read, so the older one can be the later to show), and then it
        # went on with its own, which stays.
        # A lower twin seen while waiting is kept by its own creator, so this one gives way
        # at once: two holders waiting on each other must not both give way to the other.
        for wait in self.yield_waits:
            await self._client.pause(wait)
            twins = await self._twins(kind, desired, self._fresh(kind).moment(), mine.id)
            peers = [o for o in twins if o.key == mine.key]
            if all(o.id == mine.id for o in peers):
                return mine
            lowest = min(peers, key=order)
            if lowest.id != mine.id:
                return lowest
        others = [o for o in twins if o.id != mine.id and o.key == mine.key]
        return min(others, key=order) if others else mine

    def _guarded(self, change: Change) -> tuple[Kind, Desired] | None:
        kind = self._kinds.get(change.kind)
        if kind is None or not kind.guard_creates:
            return None
        if self._alone and not kind.created_unanswered:
            return None
        if change.calls and change.calls[0].method not in ("POST", "PUT"):
            return None  # it finishes what another create of this apply made (a PATCH)
        self._prepare()
        desired = self._desired.get(change.address)
        return None if desired is None else (kind, desired)

    def _fresh(self, kind: Kind) -> FreshReads:
        if kind.name not in self._reads:
            read = partial(kind.read, self._reader, ())
            self._reads[kind.name] = FreshReads(read, self._clock)
        return self._reads[kind.name]

    async def _twins(
        self, kind: Kind, desired: Desired, moment: int, ours: str | None = None
    ) -> list[Observed]:
        """The live objects of a read started after ``moment`` that ``desired`` matches by
        key, but for those the plan matched to other entries; with ``ours`` (the id of the
        object this apply made for it), that one whatever its key."""
        twins = []
        for raw in await self._fresh_after(kind, moment):
            if (kind.name, raw["id"]) in self._planned_ids:
                continue
            observed = kind.observe(raw, self._index)
            if observed is None:
                continue
            if observed.id == ours or desired.key in (observed.key, *observed.other_keys):
                twins.append(observed)
        return twins

    async def _fresh_after(self, kind: Kind, moment: int) -> list[dict[str, Any]]:
        """A read started after ``moment``; taken anew when an object it listed vanished before
        its parts were read (the next read does not list it)."""
        for attempt in range(VANISHED_REREADS):
            try:
                return await self._fresh(kind).after(moment)
            except ServiceCallError as exc:
                if exc.status != 404 or attempt == VANISHED_REREADS - 1:
                    raise
                moment = self._fresh(kind).moment()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _remember(self, kind: Kind, kept: Observed, address: str) -> None:
        """``kept`` is ``address``'s object from now on: the reads of what lies inside it and
        the keys of what refers to it see it."""
        self._index.record(kind.name, kept.id, address)
        self._state.objects.setdefault(kind.name, []).append(dict(kept.raw))
        self._known[kept.id] = kept.raw
        self._planned_ids.add((kind.name, kept.id))


def _settled_note(change: Change, mine: Observed, keep: Observed) -> str:
    return (
        f"{change.address}: another apply created this {change.kind} at the same time "
        f"({keep.id}, the older); this apply deleted its own ({mine.id}) and went on with "
        f"{keep.id}. Make applies to one organization run one at a time (see docs/security.md)."
    )


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


def left_twins(kind: Kind, key: tuple[Any, ...], candidates: Sequence[Observed]) -> list[Observed]:
    """``candidates`` (live objects of one key) ordered as every apply keeps them, the one
    to keep first, when they are twins that applies at once left: a kind whose creates are
    settled by `CreateGuard.settle` that holds no content (a twin space may hold pages someone
    wrote), every one created within `TWIN_WINDOW` after the first.
    Else an empty list (the user decides)."""
    if not kind.guard_creates or kind.created_id != "id":
        return []
    if kind.guard_replacement and kind.guard_weak:
        return []  # content (a space, a collection, a share link): never deleted on a guess
    ordered = sorted(candidates, key=lambda o: (o.key != key, _age_order(o)))
    times = [_created_time(o.raw) for o in ordered]
    first = times[0]
    if first is None or any(t is None or not first <= t <= first + TWIN_WINDOW for t in times):
        return []
    return ordered


def settled_note(where: str, kind: str, keep: Observed, twins: Sequence[Observed]) -> str:
    return (
        f"{where}: {len(twins) + 1} live {kind}s match it, all created within "
        f"{_minutes(TWIN_WINDOW)} of the oldest: twins that applies run at once left (one was "
        f"stopped before it deleted its own). The plan keeps {keep.id}, the oldest, and deletes "
        f"{_listed(o.id for o in twins)}; make applies to one organization run one at a time "
        "(see docs/security.md)"
    )


def twin_delete_reason(kind: str, kept: str) -> str:
    return (
        f"a twin of {kind} {kept}, created with it by applies run at once (within "
        f"{_minutes(TWIN_WINDOW)}): the older is kept"
    )


def twin_notes(kind: Kind, matching: Matching) -> list[str]:
    """Unmatched objects with the natural key of an entry matched by its id (pinned, or
    recorded in docform.lock): twins of that entry's object, as two applies at once leave
    when one is stopped before it deletes its newer one. Those `left_twins` tells apart are
    settled (deleted by the plan); for the others, each note says which to keep."""
    by_key: dict[tuple[Any, ...], list[Observed]] = {}
    for obs in matching.unmatched:
        by_key.setdefault(obs.key, []).append(obs)
    notes = []
    for pair in matching.pairs:
        twins = by_key.get(pair.desired.key, []) if pair.reason in ("id", "lock") else []
        # A pin is the user's word (made to tell duplicates apart): its twins are only named.
        locked = twins and pair.reason == "lock"
        settled = left_twins(kind, pair.desired.key, [pair.observed, *twins]) if locked else []
        if settled and settled[0].id == pair.observed.id:
            where = f"{pair.desired.location}: {pair.desired.address}"
            notes.append(settled_note(where, kind.name, pair.observed, twins))
            matching.twins.update({o.id: pair.observed.id for o in twins})
            continue
        if twins:
            ordered = sorted([pair.observed, *twins], key=_age_order)
            others = [o.id for o in ordered if o.id != pair.observed.id]
            notes.append(
                f"{pair.desired.location}: {pair.desired.address} is {kind.name} "
                f"{pair.observed.id} "
                f"(by its {'pinned id' if pair.reason == 'id' else 'id in docform.lock'}), but "
                f"{_listed(others)} {'has' if len(others) == 1 else 'have'} its natural key too. "
                "If they are twins (two applies at once leave them when one is stopped "
                f"mid-way), keep the oldest, {ordered[0].id}: pin it with `id: "
                f"{ordered[0].id}`, then delete the others in the service (or turn on prune "
                f"of {kind.name}s)"
            )
    return notes


def _age_order(observed: Observed) -> tuple[int, str, str]:
    created = _created_at(observed.raw)
    return (0 if created else 1, created or "", observed.id)


def _created_time(raw: Mapping[str, Any]) -> datetime | None:
    created = _created_at(raw)
    try:
        moment = datetime.fromisoformat(created) if created else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def _minutes(span: timedelta) -> str:
    return f"{int(span.total_seconds() // 60)} minutes"


def _created_at(raw: Mapping[str, Any]) -> str | None:
    created = raw.get("createdAt")
    return created if isinstance(created, str) and created else None


def _listed(ids: Iterable[str]) -> str:
    listed = list(ids)
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
