"""Executing a plan: changes in dependency order, independent ones concurrently.

Calls are executed from their JSON form, so a plan made a second ago and a plan saved to a file
run through the same code. Values unknown at plan time are filled in here: placeholders from
the answers of earlier calls, secrets from their references (never stored in the plan).

A change one of whose calls the service answers 202 Accepted is *pending*: the service took it
but has not made it (it may wait for someone's approval). It is reported apart, never as done,
and the next plan shows it again until the service makes it.

On a hard failure, or when asked to stop (`ApplyStop`: Ctrl-C), no new change starts, running
ones finish, and the report says exactly what was done, what failed and what was not attempted;
asked to stop twice, the changes in progress are abandoned and the report names them.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docform.engine.capabilities import ExplainsPending, FinishesOnRefusal
from docform.engine.client import ServiceClient
from docform.engine.kind import Kind
from docform.engine.outputs import ApplyError, Outputs
from docform.engine.plan import PLACEHOLDER_IN_PATH, Change
from docform.engine.stop import ApplyStop
from docform.errors import DocformError, ServiceCallError
from docform.untrusted.paths import id_misfit
from docform.untrusted.redact import hide_in_logs, redact_text, secret_fragments

ACCEPTED = 202
"""The status of a call the service takes but does not carry out now."""
SecretResolver = Callable[[str], str]
"""Returns the value of a secret from its reference as written in the manifest."""
BeforeCreate = Callable[[Change], Awaitable[str | None]]
"""Just before a create: why it must not be sent (its object appeared meanwhile), or None."""
AfterCreate = Callable[[Change, Any], Awaitable[Any]]
"""Once a create's calls are made, with its answer: the answer to go on with (another's)."""
Recover = Callable[[Change], Awaitable[Any]]
Created = Callable[[Change, Any], None]
"""Told of each object a create made, with the create call's answer, as soon as it answers."""


@dataclass
class CallEvent:
    """One finished call, for progress displays and ``--json`` lines."""

    change: str
    method: str
    path: str
    ok: bool
    status: int | None = None
    message: str = ""
    pending: bool = False
    """Answered 202 Accepted: taken by the service but not made (`ApplyReport.pending`)."""


@dataclass
class ApplyReport:
    done: list[Change] = field(default_factory=list)
    pending: list[tuple[Change, str]] = field(default_factory=list)
    """Changes the service accepted (202) but has not made, with what it does instead."""
    failed: list[tuple[Change, str]] = field(default_factory=list)
    not_attempted: list[Change] = field(default_factory=list)
    abandoned: list[Change] = field(default_factory=list)
    """In progress when the apply was told to stop at once: made, partly made or not at all."""
    interrupted: bool = False
    verification: Any = None
    """What reading back the changed kinds found (`docform.workflow.verify.Verification`)."""
    notes: list[str] = field(default_factory=list)
    """What the apply has to tell beyond its changes (why a rail had nothing to check)."""

    @property
    def ok(self) -> bool:
        settled = self.verification is None or self.verification.settled
        done = not self.failed and not self.not_attempted and not self.abandoned
        return done and settled


async def apply_plan(
    changes: Sequence[Change],
    client: ServiceClient,
    *,
    parallelism: int = 8,
    resolve_secret: SecretResolver | None = None,
    on_event: Callable[[CallEvent], None] | None = None,
    recover: Recover | None = None,
    on_created: Created | None = None,
    before_create: BeforeCreate | None = None,
    after_create: AfterCreate | None = None,
    on_start: Callable[[Change], None] | None = None,
    stop: ApplyStop | None = None,
    kinds: Sequence[Kind] = (),
) -> ApplyReport:
    """Run every change's calls; returns what was done, what failed and what was not tried.

    ``recover`` looks for the object of a create whose answer was lost and returns it (as the
    API would have answered), or None when it really does not exist, so it is created again.
    ``on_created`` hears of each create's answer before the change's next call is made (and,
    with no answer, of a change with a `Change.lock_after` once its calls are made), so
    what a change creates can be recorded even if a later call of it fails. ``on_start`` hears
    of each change as its first call starts; ``stop`` stops the apply early. ``kinds`` say
    which failed calls answered that their work is already done (`FinishesOnRefusal`).
    """
    secrets = _resolve_secrets(changes, resolve_secret)
    runner = _Runner(client, secrets, on_event)
    runner.kinds = {kind.name: kind for kind in kinds}
    runner.held = sorted({v for c in changes for call in c.calls for v in call.held.values()})
    hide_in_logs(runner.held)
    runner.recover = recover
    runner.on_created = on_created or (lambda change, answer: None)
    runner.before_create = before_create
    runner.after_create = after_create
    runner.on_start = on_start or (lambda change: None)
    runner.stop = stop or ApplyStop()
    return await runner.run(list(changes), max(1, parallelism))


def _resolve_secrets(
    changes: Sequence[Change], resolve_secret: SecretResolver | None
) -> dict[str, str]:
    """Every secret the plan needs, read before the first call so a missing one changes nothing."""
    bodies = [call.to_json()["body"] for change in changes for call in change.calls]
    refs = {ref for body in bodies for ref in _secret_refs(body)}
    if refs and resolve_secret is None:
        raise ApplyError("this plan holds a secret reference but no manifests to read it from")
    return {ref: resolve_secret(ref) for ref in sorted(refs)} if resolve_secret else {}


def _secret_refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        if set(value) == {"$secret"}:
            return [value["$secret"]]
        return [ref for v in value.values() for ref in _secret_refs(v)]
    if isinstance(value, list):
        return [ref for v in value for ref in _secret_refs(v)]
    return []


class _Runner:
    def __init__(
        self,
        client: ServiceClient,
        secrets: Mapping[str, str],
        on_event: Callable[[CallEvent], None] | None,
    ) -> None:
        self.client = client
        self.secrets = secrets
        # The service may echo a secret it was sent (an invalid certificate, a source URL
        # with its token) in an error: no message of this apply may show one.
        self._fragments = secret_fragments(secrets.values())
        self.held: list[str] = []
        self.on_event = on_event or (lambda event: None)
        self.outputs = Outputs()
        self.report = ApplyReport()
        self.recover: Recover | None = None
        self.on_created: Created = lambda change, answer: None
        self.before_create: BeforeCreate | None = None
        self.after_create: AfterCreate | None = None
        self.kinds: dict[str, Kind] = {}
        self.on_start: Callable[[Change], None] = lambda change: None
        self.stop = ApplyStop()

    async def run(self, changes: list[Change], parallelism: int) -> ApplyReport:
        """Start each change once the changes it depends on are done, at most ``parallelism``
        at a time; among ready changes the longest chain of calls goes first, since its calls
        can only run one after another (the schedule that finishes soonest)."""
        by_key = {c.key: c for c in changes}
        waiting_on = {c.key: {d for d in c.depends_on if d in by_key} for c in changes}
        dependents: dict[str, list[str]] = {key: [] for key in by_key}
        for key, deps in waiting_on.items():
            for dep in deps:
                dependents[dep].append(key)
        rank = _chain_ranks(changes, dependents)
        ready = [rank[key] for key, deps in waiting_on.items() if not deps]
        heapq.heapify(ready)
        running: dict[asyncio.Task[bool], Change] = {}
        abandon = asyncio.ensure_future(self.stop.abandoned())
        failed = False
        while ready or running:
            while ready and not (failed or self.stop.stopping) and len(running) < parallelism:
                key = heapq.heappop(ready)[2]
                del waiting_on[key]
                self.on_start(by_key[key])
                running[asyncio.ensure_future(self._run_change(by_key[key]))] = by_key[key]
            if not running:
                break
            finished, _ = await asyncio.wait(
                [*running, abandon], return_when=asyncio.FIRST_COMPLETED
            )
            for task in running.keys() & finished:
                change = running.pop(task)
                if not task.result():
                    failed = True
                    continue
                for key in dependents[change.key]:
                    waiting_on[key].discard(change.key)
                    if not waiting_on[key]:
                        heapq.heappush(ready, rank[key])
            if abandon.done():
                await self._abandon(running)
                break
        abandon.cancel()
        # Changes run side by side fail in any order; the report lists them as the plan does.
        position = {change.key: index for index, change in enumerate(changes)}
        self.report.failed.sort(key=lambda failure: position[failure[0].key])
        self.report.not_attempted = [by_key[k] for k in waiting_on]
        self.report.interrupted = self.stop.stopping
        return self.report

    async def _abandon(self, running: dict[asyncio.Task[bool], Change]) -> None:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        # A change that ended before its cancellation landed is in `done` or `failed` already.
        self.report.abandoned = [change for task, change in running.items() if task.cancelled()]

    async def _run_change(self, change: Change) -> bool:
        if not await self._may_create(change):
            return False
        created: Any = None
        accepted = False
        for i, call in enumerate(change.calls):
            doc = call.to_json()
            try:
                doc["path"] = self._fill_path(doc["path"], call.held)
                body = self._fill(doc["body"])
                sent = {**doc, "path": fill_held(doc["path"], call.held)}
                status, answer = await self._send(change, i, sent, body)
                message = ""
            except DocformError as exc:
                if self._already_done(change, exc):
                    status, answer = getattr(exc, "status", None), None
                    message = "already in place"
                else:
                    self._emit(change, doc, ok=False, exc=exc)
                    # A later call of a create can fail because another apply made the same
                    # object at the same time (a path it holds): then that one is kept.
                    if created is not None and await self._settle(change, created, failed=True):
                        self.report.done.append(change)
                        return True
                    self.report.failed.append((change, self._redacted(exc)))
                    return False
            # Later calls of a create (a PATCH of the parent, a sort) answer with other objects;
            # placeholders name fields of the object the first call made.
            if i == 0 and change.action in ("create", "restore"):
                self.outputs.record(change.address, answer)
                if change.action == "create":
                    self.on_created(change, answer)
                    created = answer
            if status == ACCEPTED:
                accepted, message = True, f"pending: {self._pending_reason(change)}"
            self._emit(change, doc, ok=True, status=status, message=message, pending=accepted)
        if change.action == "create" and not await self._settle(change, created):
            return False
        if accepted:
            self.report.pending.append((change, self._pending_reason(change)))
            return True
        if change.lock_after is not None:
            self.on_created(change, None)
        self.report.done.append(change)
        return True

    async def _may_create(self, change: Change) -> bool:
        """False, with the change reported failed, when a create's object appeared since the
        plan (another apply raced this one)."""
        if change.action != "create" or self.before_create is None or not change.calls:
            return True
        try:
            reason = await self.before_create(change)
        except DocformError as exc:
            reason = f"{change.key}: not created: reading what exists now failed: {exc}"
        if reason is None:
            return True
        self._emit(change, change.calls[0].to_json(), ok=False, exc=ApplyError(reason))
        self.report.failed.append((change, self._redacted(ApplyError(reason))))
        return False

    async def _settle(self, change: Change, answer: Any, *, failed: bool = False) -> bool:
        """Whether the create ``change`` stands, going on with another apply's object when
        that one made the same object at the same time (`docform.engine.duplicates`). When a
        later call of it ``failed``: whether another apply's object was taken instead."""
        if self.after_create is None:
            return not failed
        try:
            kept = await self.after_create(change, answer)
        except DocformError as exc:
            if not failed:
                why = f"{change.key}: made, but checking for a twin made meanwhile failed: {exc}"
                self.report.failed.append((change, self._redacted(ApplyError(why))))
            return False
        if kept is not answer:
            self.outputs.record(change.address, kept)
            self.on_created(change, kept)
        return kept is not answer or not failed

    async def _send(
        self, change: Change, i: int, doc: dict[str, Any], body: Any
    ) -> tuple[int | None, Any]:
        """One call and its status; a create whose answer was lost is looked for before it is
        sent again (found so, it has no status of its own: None)."""
        try:
            retry = change.calls[i].retry
            return await self.client.answered(doc["method"], doc["path"], json=body, retry=retry)
        except DocformError as exc:
            if not (change.action == "create" and i == 0 and _answer_lost(exc)):
                raise
            if self.recover is None:
                raise
            found = await self.recover(change)
            if found is not None:
                return None, found
            return await self.client.answered(doc["method"], doc["path"], json=body, retry=False)

    def _pending_reason(self, change: Change) -> str:
        kind = self.kinds.get(change.kind)
        if isinstance(kind, ExplainsPending):
            return kind.pending_reason(change)
        return "the service accepted it (202) but has not made it yet"

    def _already_done(self, change: Change, exc: DocformError) -> bool:
        kind = self.kinds.get(change.kind)
        status = exc.status if isinstance(exc, ServiceCallError) else None
        return isinstance(kind, FinishesOnRefusal) and kind.already_done(change, status, str(exc))

    def _fill_path(self, path: str, held: Mapping[str, str]) -> str:
        """Created objects' ids put in; held secrets stay named (`fill_held` puts them in)."""
        return PLACEHOLDER_IN_PATH.sub(
            lambda m: m.group(0) if m.group(1) in held else self._path_id(m.group(1)), path
        )

    def _path_id(self, ref: str) -> str:
        """A created object's id, for a path: one safe segment, or the call is not made."""
        value = self.outputs.lookup(ref)
        problem = id_misfit(value) if isinstance(value, str) else f"is {value!r}, not an id"
        if problem:
            raise ApplyError(f"the value {ref} from the service's answer {problem}; not sent")
        return str(value)

    def _fill(self, value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {"$placeholder"}:
                return self.outputs.lookup(value["$placeholder"])
            if set(value) == {"$secret"}:
                return self.secrets[value["$secret"]]
            return {k: self._fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._fill(v) for v in value]
        return value

    def _emit(
        self,
        change: Change,
        doc: dict[str, Any],
        *,
        ok: bool,
        exc: Exception | None = None,
        status: int | None = None,
        message: str = "",
        pending: bool = False,
    ) -> None:
        self.on_event(
            CallEvent(
                change=change.key,
                method=doc["method"],
                path=doc["path"],
                ok=ok,
                status=getattr(exc, "status", None) if exc else status,
                message=self._redacted(exc) if exc else message,
                pending=pending,
            )
        )

    def _redacted(self, exc: Exception) -> str:
        return redact_text(str(exc), [*self._fragments, *self.held])


def _chain_ranks(
    changes: Sequence[Change], dependents: Mapping[str, list[str]]
) -> dict[str, tuple[int, int, str]]:
    """Sort keys of the changes: the longest chain of calls through a change and what waits on
    it first, then plan order. ``changes`` are in plan order, so dependents come later."""
    longest: dict[str, int] = {}
    for change in reversed(changes):
        after = max((longest.get(k, 0) for k in dependents[change.key]), default=0)
        longest[change.key] = len(change.calls) + after
    return {c.key: (-longest[c.key], i, c.key) for i, c in enumerate(changes)}


def _answer_lost(exc: Exception) -> bool:
    """The call may or may not have run: no answer came back (dropped connection, timeout), or
    the service failed (5xx) possibly after it had written."""
    return (isinstance(exc, ServiceCallError) and exc.answer_lost) or (
        getattr(exc, "status", None) or 0
    ) >= 500


def fill_held(path: str, held: Mapping[str, str]) -> str:
    """``path`` with the held secrets it names (``${NAME}``) put in, for sending only."""
    for name, value in held.items():
        path = path.replace("${" + name + "}", value)
    return path
