"""A rehearsal of a plan on a twin of the live organization (docs/rehearsal.md).

The twin is an emulator of the service holding what planning read (the GET answers its client
recorded, `docform.api.recording`), made by the package that registers itself in the entry
point group ``docform.twins`` (docform's sandbox). The plan's calls run there through the
applier apply uses, in the same order and with the same concurrency, over an in-process
transport: no call reaches the live service, and no apply lock is taken. Then the manifests are
planned again against the twin: the rehearsal converged when that plan is empty, and the rails
and policies are judged on what the twin then holds.

What the twin could not load (a kind whose answers no loader of the twin knows) is named, and
the changes of such kinds, with every change that waits for one, are not rehearsed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol

import httpx

from docform.engine.apply import CallEvent
from docform.engine.plan import Change, Plan
from docform.errors import DocformError
from docform.manifest import ManifestSet
from docform.manifest.lock import Lock
from docform.workflow.connect import Client
from docform.workflow.identity import CreatedIds
from docform.workflow.twin_fidelity import kinds_of_paths, unlike_kinds

TWIN_GROUP = "docform.twins"
INSTALL = "pip install 'docform[sandbox]'"


class RehearsalError(DocformError):
    """A rehearsal that cannot run (no twin installed)."""


class Twin(Protocol):
    """What a twin gives (`docform_sandbox.twin.Twin`)."""

    @property
    def root_url(self) -> str: ...
    @property
    def token(self) -> str: ...
    @property
    def not_loaded(self) -> Sequence[str]: ...
    def kept(self) -> Sequence[Any]: ...
    def transport(self) -> httpx.AsyncBaseTransport: ...
    def close(self) -> None: ...


class TwinMaker(Protocol):
    def build(self, reads: Iterable[Any]) -> Twin: ...


@dataclass(frozen=True)
class Refusal:
    """A call the twin refused: the change it belongs to, the call as planned, the answer."""

    change: str
    call: dict[str, Any]
    status: int | None
    message: str
    entries: tuple[str, ...] = ()
    """Where the manifests write the entries involved (``file:line address``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "change": self.change,
            "call": self.call,
            "answer": {"status": self.status, "message": self.message},
            "entries": list(self.entries),
        }


@dataclass
class Rehearsal:
    """How the plan's calls went on the twin, and what a plan against it found left."""

    calls: int = 0
    accepted: int = 0
    refused: list[Refusal] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)
    """Keys of the changes a plan against the twin still makes after the rehearsal."""
    broken: list[str] = field(default_factory=list)
    """The rails and policies the twin's organization breaks after the rehearsal."""
    not_rehearsed: list[str] = field(default_factory=list)
    """Keys of the changes not run: of kinds not loaded, or waiting for one."""
    kinds_not_loaded: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    """Why the rehearsal stopped short (an answer the twin could not give), if it did."""

    @property
    def converged(self) -> bool:
        return not self.refused and not self.remaining and self.error is None

    @property
    def ok(self) -> bool:
        return self.converged and not self.broken

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "accepted": self.accepted,
            "refused": [r.to_json() for r in self.refused],
            "converged": self.converged,
            "remaining": self.remaining,
            "broken": self.broken,
            "not_rehearsed": self.not_rehearsed,
            "kinds_not_loaded": self.kinds_not_loaded,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


def twin_maker() -> TwinMaker:
    """The installed twin maker; raises `RehearsalError` saying what to install when none is."""
    maker = _installed_twin_maker()
    if maker is None:
        raise RehearsalError(
            "rehearsing needs a twin of the organization, which docform's sandbox makes "
            f"(the package docform_sandbox, entry point group '{TWIN_GROUP}'), and it is not "
            f"installed: install docform with its sandbox ({INSTALL}), or plan without "
            "--rehearse (apply: --no-rehearse)."
        )
    return maker


@cache
def _installed_twin_maker() -> TwinMaker | None:
    """The twin maker an installed package registers, looked up once per process: the lookup
    reads the metadata of every installed package, and each rehearsal asks."""
    found = sorted(entry_points(group=TWIN_GROUP), key=lambda point: point.name)
    try:
        maker: TwinMaker = found[0].load()
    except (IndexError, ImportError):
        return None
    return maker


def held_back(changes: Sequence[Change], kinds: Iterable[str]) -> set[str]:
    """Keys of the changes of ``kinds``, and of every change that waits for one of them."""
    kinds = set(kinds)
    held = {c.key for c in changes if c.kind in kinds}
    grew = True
    while grew:
        more = {c.key for c in changes if c.key not in held and held & set(c.depends_on)}
        held |= more
        grew = bool(more)
    return held


async def rehearse(manifests: ManifestSet, plan: Plan, *, parallelism: int) -> Rehearsal:
    """Run ``plan`` on a twin of what planning read (``plan.reads``) and plan again there.

    A rehearsal that fails is checked for a twin unlike what planning read
    (`docform.workflow.twin_fidelity`): the kinds it answers otherwise are then named as not
    loaded, and the plan rehearsed again on a fresh twin without their changes. A rehearsal
    that goes through needs no such check, which reads every answer again."""
    started = time.monotonic()
    if plan.reads is None:
        raise RehearsalError("this plan recorded no reads to make a twin of; plan it again")
    maker = twin_maker()
    result = await _attempt(manifests, plan, parallelism, maker.build(plan.reads), [])
    if not result.ok:
        twin = maker.build(plan.reads)
        try:
            async with _connect(twin, True) as reader:
                unlike = await unlike_kinds(reader, plan.reads)
        finally:
            twin.close()
        if set(unlike) - set(result.kinds_not_loaded):
            result = await _attempt(manifests, plan, parallelism, maker.build(plan.reads), unlike)
    result.seconds = time.monotonic() - started
    plan.rehearsal = result
    return result


def _connect(twin: Twin, read_only: bool) -> Client:
    return Client(twin.root_url, twin.token, transport=twin.transport(), read_only=read_only)


async def _attempt(
    manifests: ManifestSet, plan: Plan, parallelism: int, twin: Twin, unlike: list[str]
) -> Rehearsal:
    """One run of the plan's calls on ``twin``, holding back the changes of the kinds it could
    not load or answers otherwise (``unlike``), then a plan against it."""
    from docform.workflow.read_back import recorded_by
    from docform.workflow.run import apply_changes

    missing = [*kinds_of_paths(twin.not_loaded), *unlike, *plan.not_planned]
    result = Rehearsal(kinds_not_loaded=list(dict.fromkeys(missing)))
    held = held_back(plan.changes, result.kinds_not_loaded)
    result.not_rehearsed = [c.key for c in plan.changes if c.key in held]
    runnable = [c for c in plan.changes if c.key not in held]
    result.calls = sum(len(c.calls) for c in runnable)
    listener = _Listener(runnable, manifests)
    made = CreatedIds(manifests.organization.id)

    def connect(read_only: bool) -> Client:
        return _connect(twin, read_only)

    try:
        report = await apply_changes(
            manifests, _with_changes(plan, runnable), parallelism=parallelism,
            on_event=listener.hear, on_created=made.created, connect=connect, verify=False,
        )  # fmt: skip
        result.accepted, result.refused = listener.accepted, listener.refused
        if not report.failed and not result.refused:
            # What the service took but makes later (202) is still planned, as apply says.
            later = held | {change.key for change, _ in report.pending}
            # Planned again as the next plan would be: with docform.lock as the apply left it.
            locked = {**plan.identities, **made.ids, **recorded_by(report.done)}
            sent = {c.address: plan.secret_sources[c.address] for c in report.done
                    if c.address in plan.secret_sources}  # fmt: skip
            after = _locked(manifests, locked, {**plan.kept_sources, **sent})
            await _plan_again(after, plan, result, connect, later, twin.kept())
        elif report.failed and not result.refused:
            result.error = report.failed[0][1]
    except DocformError as exc:
        result.error = str(exc)
    finally:
        twin.close()
    return result


def _with_changes(plan: Plan, changes: list[Change]) -> Plan:
    return replace(plan, changes=changes)


def _locked(
    manifests: ManifestSet, ids: dict[str, str], sources: dict[str, dict[str, str]]
) -> ManifestSet:
    """``manifests`` with docform.lock as the apply leaves it (`LockRecorder`): ``ids`` and
    the secrets' ``sources`` besides its own, in memory only."""
    org = manifests.organization.id
    lock = Lock(org, {**manifests.lock.ids_for(org), **ids}, sources)
    return replace(manifests, lock=lock)


async def _plan_again(
    manifests: ManifestSet,
    before: Plan,
    result: Rehearsal,
    connect: Any,
    held: set[str],
    kept: Sequence[Any],
) -> None:
    """Plan the manifests against the twin (narrowed as the plan was): what is left, and the
    rails and policies. The answers the calls left as they were (``kept``) are taken as
    recorded, and the others hold once what they have in common with the recorded ones
    (`docform.workflow.kept_answers`)."""
    from docform.engine.targets import narrow_plan
    from docform.workflow.kept_answers import KeptAnswers
    from docform.workflow.run import make_plan
    from docform.workflow.safety import assess_rails

    async with connect(True) as client:
        client.reads.keeping = False  # this plan is not rehearsed: nothing needs its answers
        again = await make_plan(manifests, KeptAnswers(client, kept, before.reads))
    targeting = before.targeting
    if targeting is not None:
        again = narrow_plan(again, targeting.targets, targeting.excludes, check=False)
    kinds = set(result.kinds_not_loaded)
    left = held_back(again.changes, kinds)
    result.remaining = [c.key for c in again.changes if c.key not in left and c.key not in held]
    given = before.rails
    options = {"force": given.forced, "allow": given.allowed} if given is not None else {}
    report = assess_rails(manifests, again, **options)
    # What the plan itself breaks, it reports; the rehearsal tells what its result adds, of
    # what the twin holds (not of the kinds it could not load, nor of the changes left out).
    known = {(v.rail, v.address) for v in given.blocking} if given is not None else set()
    unknown = left | held
    result.broken = [
        v.message
        for v in report.blocking
        if (v.rail, v.address) not in known
        and not (v.changes and set(v.changes) <= unknown)
        and (v.address or "").split(".")[0] not in kinds
    ]


class _Listener:
    """Hears each call the twin answered: counts those accepted, keeps those refused."""

    def __init__(self, changes: Sequence[Change], manifests: ManifestSet) -> None:
        self.by_key = {c.key: c for c in changes}
        self.written = {e.address: str(e.location) for e in manifests.entries()}
        self.heard: dict[str, int] = {}
        self.accepted = 0
        self.refused: list[Refusal] = []

    def hear(self, event: CallEvent) -> None:
        index = self.heard.get(event.change, 0)
        self.heard[event.change] = index + 1
        if event.ok:
            self.accepted += 1
            return
        change = self.by_key.get(event.change)
        call = {"method": event.method, "path": event.path}
        if change is not None and index < len(change.calls):
            call = change.calls[index].to_json()
        self.refused.append(
            Refusal(event.change, call, event.status, event.message, self._entries(change))
        )

    def _entries(self, change: Change | None) -> tuple[str, ...]:
        if change is None:
            return ()
        involved = [change.address, *(key.split("#")[0] for key in change.depends_on)]
        return tuple(
            f"{self.written[address]} {address}" if address in self.written else address
            for address in dict.fromkeys(involved)
        )
