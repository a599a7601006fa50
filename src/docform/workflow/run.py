"""Planning one manifest set end to end: read the live state, matching each kind as soon as
it is read, then plan against it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from docform import runtime
from docform.api.scopes import user_token_only
from docform.api.stats import CallStats
from docform.engine.apply import ApplyReport, CallEvent, Created, Recover, apply_plan
from docform.engine.bystanders import take_bystanders
from docform.engine.capabilities import PointsToWhatItHides
from docform.engine.client import ServiceClient
from docform.engine.duplicates import CreateGuard
from docform.engine.kind import Kind
from docform.engine.live import LiveReader, Progress
from docform.engine.plan import Change, Plan
from docform.engine.planner import plan_from_matcher
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.rails import (
    RailReport,
    check_caller,
    enforce,
)
from docform.engine.snapshot import read_live_state
from docform.engine.stop import ApplyStop
from docform.errors import DocformError
from docform.kind_registry import build_kinds
from docform.manifest import ManifestSet
from docform.runtime import beside_the_loop
from docform.workflow.audience import door_notes
from docform.workflow.connect import Client, OpenClient, api_url, open_client
from docform.workflow.early import EarlyView, load_seen_early
from docform.workflow.identity import CreatedIds
from docform.workflow.read_back import read_after_apply, read_back_audience
from docform.workflow.receipt import checksum_prints, secret_sources
from docform.workflow.saved import secret_resolver


async def make_plan(
    manifests: ManifestSet,
    client: ServiceClient,
    *,
    progress: Progress | None = None,
    finishing: bool = False,
) -> Plan:
    """The plan that makes the organization of ``manifests`` match them, read through ``client``.

    ``client`` should be read-only: planning never writes. ``finishing``: see `match_kind`.
    """
    loaded: asyncio.Future[ManifestSet] = asyncio.get_running_loop().create_future()
    loaded.set_result(manifests)
    org_id = manifests.organization.id
    return await plan_while_loading(org_id, loaded, client, progress=progress, finishing=finishing)


async def plan_while_loading(
    org_id: str,
    loading: Awaitable[ManifestSet],
    client: ServiceClient,
    *,
    progress: Progress | None = None,
    finishing: bool = False,
) -> Plan:
    """`make_plan` of the manifests ``loading`` gives, for organization ``org_id``: the reads
    that need no manifest start at once, the others (`needs_manifests`) once they are loaded.
    A failed load fails the plan with its error, cancelling the reads."""
    kinds = build_kinds(org_id)
    with runtime.collecting_rarely():
        matcher = ProgressiveMatcher(kinds, None, finishing=finishing)

        async def take_manifests() -> ManifestSet:
            # Shielded: a failed read cancels this, but the caller still reports the load's
            # own outcome (its problems come first).
            manifests = await asyncio.shield(loading)
            if manifests.organization.id != org_id:
                raise RuntimeError(f"planned {org_id}, but the manifests describe another")
            # The kinds read so far are matched now: in a thread, as `read_live_state` does.
            locked = manifests.lock.ids_for(org_id)
            sources = manifests.lock.sources_for(org_id)
            items = matcher.objects_read() + sum(map(len, manifests.sections.values()))
            await beside_the_loop(
                items, runtime.frozen_after(matcher.take_manifests), manifests, locked, sources
            )
            return manifests

        taken = asyncio.ensure_future(take_manifests())

        async def before_read(kind: Kind) -> None:
            if needs_manifests(kind):
                await asyncio.shield(taken)

        wanted = {kind.name: matcher.pinned_ids(kind) for kind in kinds}
        try:
            live = await read_live_state(
                client, org_id, kinds, wanted, progress, runtime.frozen_after(matcher.kind_read),
                matcher.manages, before_read,
            )  # fmt: skip
            manifests = await taken
        finally:
            if not taken.done():
                taken.cancel()
            elif not taken.cancelled():
                taken.exception()  # the caller reports a failed load from ``loading`` itself
        prune = manifests.settings.prune.model_dump()
        plan = plan_from_matcher(matcher, manifests, live, org_id, prune, user_token_only)
        reader = LiveReader(client, org_id, live, manages=matcher.manages)
        await take_bystanders(plan, kinds, reader)
        if manifests.lock.organization == org_id:
            plan.notes[:0] = manifests.lock.notes
        if secret_sources(plan):
            plan.secret_prints = checksum_prints(plan, secret_resolver(manifests))
    runtime.plan_made()
    stats = getattr(client, "stats", None)  # a client counting its calls (`CallStats`)
    plan.requests = stats.requests if isinstance(stats, CallStats) else 0
    plan.reads = getattr(client, "reads", None)  # a client recording its reads
    return plan


def needs_manifests(kind: Kind) -> bool:
    """Whether ``kind``'s read looks at the manifests: at the entries that manage the objects
    of the kinds it reads after (`LiveReader.managed`), or at the ids they pin."""
    return bool(kind.read_after) or kind.reads_pinned_ids


OpenReader = Callable[[ManifestSet | EarlyView], Client]
"""Opens the read-only client of a manifest set, or of the organization and API an
`EarlyView` names before the set is loaded."""


async def load_and_plan(
    directory: Path, open_reader: OpenReader, *, progress: Progress | None = None
) -> tuple[ManifestSet, Plan, CallStats]:
    """Load the manifest set of ``directory`` and plan it: the manifests, the plan and the
    client's call counts. ``open_reader(view)`` opens the read-only client for a `ManifestSet`
    or an `EarlyView`.

    The reads start while the manifests load, when the files naming the organization and the
    API name them plainly (`docform.workflow.early`); the outcome is the same as loading first
    and planning after: a set with problems raises its `ManifestError`, cancelling the reads.
    """
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[EarlyView | None] = loop.create_future()

    def see(view: EarlyView | None) -> None:
        if not seen.done():
            seen.set_result(view)

    def tell(view: EarlyView | None) -> None:
        loop.call_soon_threadsafe(see, view)

    # Always in a thread, whatever the set's size: the reads start while it loads.
    loading = asyncio.ensure_future(runtime.in_a_thread(load_seen_early, directory, tell))
    first: set[asyncio.Future[Any]] = {seen, loading}
    await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
    view = seen.result() if seen.done() else None
    early = _early_reader(open_reader, view)
    if early is None or view is None:
        manifests = await loading
        async with open_reader(manifests) as client:
            plan = await make_plan(manifests, client, progress=progress)
        return manifests, plan, client.stats
    async with early:
        try:
            plan = await plan_while_loading(view.organization.id, loading, early, progress=progress)
        except BaseException:
            await asyncio.wait({loading})
            failure = None if loading.cancelled() else loading.exception()
            if failure is not None:
                raise failure from None
            raise
    return loading.result(), plan, early.stats


def _early_reader(open_reader: OpenReader, view: EarlyView | None) -> Client | None:
    """The client for ``view``, or None: without a view, or when opening it fails (loading
    first, then opening the client, reports that failure where it always did)."""
    if view is None:
        return None
    try:
        return open_reader(view)
    except DocformError:
        return None


async def plan_manifests(
    manifests: ManifestSet, *, progress: Progress | None = None
) -> tuple[Plan, CallStats]:
    """Plan with a read-only client of the manifests' API; returns the plan and call counts."""

    async with open_client(manifests, read_only=True) as client:
        plan = await make_plan(manifests, client, progress=progress)
    return plan, client.stats


"""Opens a client of the organization: read-only when given True."""


async def apply_changes(
    manifests: ManifestSet,
    plan: Plan,
    *,
    parallelism: int,
    on_event: Callable[[CallEvent], None] | None = None,
    on_created: Created | None = None,
    on_start: Callable[[Change], None] | None = None,
    stop: ApplyStop | None = None,
    connect: OpenClient | None = None,
    verify: bool = True,
) -> ApplyReport:
    """Run ``plan`` with a writing client of the manifests' API; returns the apply report.

    Call `docform.workflow.safety.check_safety` first: this runs whatever it is given.
    ``on_created``, ``on_event``, ``on_start`` and ``stop``: see `apply_plan`. ``connect``
    opens the clients instead of the manifests' API, and then no apply lock is taken and no
    create is read for others' (`CreateGuard` ``alone``): a twin's
    (`docform.workflow.rehearsal`), which no other apply shares. ``verify``: read back what
    the apply changed, and the audience it left (a rehearsal plans again instead); the plan
    then keeps its changes and what it predicted, not what planning read
    (`Plan.release_reads`).
    """
    if connect is not None:
        return await _apply_with(manifests, plan, parallelism, connect, verify, on_event,
                                 on_created, on_start, stop, alone=True)  # fmt: skip

    # The operating system's file lock (filelock) loads for an apply only, not for a plan.
    from docform.workflow.apply_lock import apply_lock

    def live(read_only: bool) -> Client:
        return open_client(manifests, read_only=read_only)

    with apply_lock(api_url(manifests), manifests.organization.id):
        return await _apply_with(manifests, plan, parallelism, live, verify, on_event,
                                 on_created, on_start, stop)  # fmt: skip


async def _apply_with(
    manifests: ManifestSet,
    plan: Plan,
    parallelism: int,
    connect: OpenClient,
    verify: bool,
    on_event: Callable[[CallEvent], None] | None,
    on_created: Created | None,
    on_start: Callable[[Change], None] | None,
    stop: ApplyStop | None,
    *,
    alone: bool = False,
) -> ApplyReport:
    """``alone``: the clients ``connect`` opens reach an organization no other apply writes
    to (a twin's), so creates are not read for others made at the same time. With ``verify``,
    once the calls are made the plan lets go of what planning read (`Plan.release_reads`) but
    for what stays true of it, and the kinds the apply changed are read again."""
    made = CreatedIds(manifests.organization.id)
    on_created = made.also_telling(on_created)
    report = await _make_calls(manifests, plan, parallelism, connect, on_event, on_created,
                               on_start, stop, alone=alone)  # fmt: skip
    if not (report.ok and verify):
        return report
    report.verification = await read_after_apply(manifests, plan, report, made.ids, connect)
    found = report.verification.identities
    if report.verification.error is None:
        report.notes += door_notes(plan.doors, report.verification.facts)
    ids = {**plan.identities, **found}
    report.notes += await read_back_audience(manifests, plan, ids, connect=connect)
    return report


async def _make_calls(
    manifests: ManifestSet,
    plan: Plan,
    parallelism: int,
    connect: OpenClient,
    on_event: Callable[[CallEvent], None] | None,
    on_created: Created,
    on_start: Callable[[Change], None] | None,
    stop: ApplyStop | None,
    *,
    alone: bool,
) -> ApplyReport:
    """The calls of ``plan``, guarded (`CreateGuard`); what they read is gone on return."""
    recover = recover_by_planning(manifests, lambda: connect(True))
    async with connect(False) as client:
        # Nothing is planned from what the apply reads: before each create the kind's whole
        # list (`CreateGuard`), which a client keeping its answers would hold once per create.
        client.reads.keeping = False
        kinds = build_kinds(manifests.organization.id)
        caller = await check_caller(plan, kinds, client)
        enforce(RailReport(caller.violations))
        guard = CreateGuard(plan, kinds, manifests, client, alone=alone)
        report = await apply_plan(
            plan.changes,
            client,
            parallelism=parallelism,
            resolve_secret=secret_resolver(manifests),
            on_event=on_event,
            recover=recover,
            on_created=on_created,
            before_create=guard.raced,
            after_create=guard.settle,
            on_start=on_start,
            stop=stop,
            kinds=kinds,
        )
        report.notes += caller.notes + guard.notes + where_to_find(report.done, kinds)
    return report


def recover_by_planning(manifests: ManifestSet, reader: Callable[[], Client]) -> Recover:
    """For a create whose answer was lost: plan again (with the client ``reader()`` opens)
    and return the object if it now exists, in the shape its create call answers."""
    id_paths = {k.name: k.created_id for k in build_kinds(manifests.organization.id)}

    async def recover(change: Change) -> dict[str, Any] | None:
        async with reader() as client:
            fresh = await make_plan(manifests, client, finishing=True)
        found = fresh.live_objects.get(change.address)
        return None if found is None else as_create_answer(found, id_paths[change.kind])

    return recover


def as_create_answer(live: dict[str, Any], id_path: str) -> dict[str, Any]:
    """A live object in the shape its create call answers, so placeholders find its id
    (an invite answers ``{"users": [id]}``, not the member)."""
    if id_path == "id":
        return live
    head, *rest = id_path.split(".")
    value: Any = live["id"]
    for part in reversed(rest):
        value = [value] if part.isdigit() else {part: value}
    return {**live, head: value}


def where_to_find(done: Sequence[Change], kinds: Sequence[Kind]) -> list[str]:
    """For each change made that the service answered with something docform never shows (a
    share link's URL, a signing key): where the user finds it."""
    by_name = {kind.name: kind for kind in kinds}
    notes: list[str] = []
    for change in done:
        kind = by_name.get(change.kind)
        if isinstance(kind, PointsToWhatItHides) and (note := kind.where_to_find(change)):
            notes.append(note)
    return notes
