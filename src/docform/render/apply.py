"""What apply prints: a line per finished call, and the closing report."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from docform.engine.apply import ApplyReport, CallEvent
from docform.engine.plan import Change
from docform.render.values import ACTION_SYMBOLS, field_sides
from docform.untrusted.lookalikes import escape_controls, escape_for_terminal
from docform.workflow.verify import Verification


def render_event(event: CallEvent, *, as_json: bool) -> str:
    if as_json:
        return json.dumps(
            {
                "type": "call",
                "change": event.change,
                "method": event.method,
                "path": event.path,
                "ok": event.ok,
                "status": event.status,
                "message": event.message,
                "pending": event.pending,
            }
        )
    mark = "ok  " if event.ok else "FAIL"
    line = f"{mark} {event.method} {event.path}  ({event.change})"
    return escape_controls(line + (f": {event.message}" if event.message else ""))


def render_report(report: ApplyReport) -> str:
    """What the apply did, in lines, every part of them readable as it is."""
    return escape_for_terminal("\n".join([_report(report), *_pending(report)]))


def _pending(report: ApplyReport) -> list[str]:
    """The changes the service took but has not made: never counted as made."""
    if not report.pending:
        return []
    n = len(report.pending)
    them = "them" if n != 1 else "it"
    lines = [
        f"Pending: {n} change{'s' if n != 1 else ''} the service accepted but has not made; "
        f"the next plan shows {them} until the service makes {them}:"
    ]
    lines += [f"  pending: {change.key}: {reason}" for change, reason in report.pending]
    return lines


def _report(report: ApplyReport) -> str:
    n = len(report.done)
    made = f"{n} change{'s' if n != 1 else ''}"
    if report.ok:
        return f"Apply complete: {made} made."
    stopped = report.failed or report.not_attempted or report.abandoned
    if not stopped:
        return _unsettled(report.verification, made)
    counts = [f"{len(report.done)} done"]
    if report.failed or not report.interrupted:
        counts.append(f"{len(report.failed)} failed")
    if report.abandoned:
        counts.append(f"{len(report.abandoned)} abandoned in flight")
    counts.append(f"{len(report.not_attempted)} not attempted")
    title = "Apply interrupted" if report.interrupted else "Apply stopped"
    lines = [f"{title}: {', '.join(counts)}."]
    lines += [f"  failed: {change.key}: {message}" for change, message in report.failed]
    lines += [f"  abandoned: {change.key}" for change in report.abandoned]
    lines += [f"  not attempted: {change.key}" for change in report.not_attempted]
    if report.abandoned:
        lines.append(
            "An abandoned change may have been made in part or in full; the next plan shows "
            "what of it is left."
        )
    lines.append("Run 'docform plan' to see what remains; apply again to finish.")
    return "\n".join(lines)


class ApplyProgress:
    """Changes as they are made. On a terminal: a bar of the changes done out of all, the
    changes in flight and the failures, with a line per finished change (and its time) or
    failed call printed above it, so that the scrollback is the record. Elsewhere:
    one line per finished call unless ``show_calls`` is off (``--json``: one JSON object per
    line, always)."""

    def __init__(
        self,
        changes: Sequence[Change],
        *,
        as_json: bool,
        console: Console | None = None,
        show_calls: bool = True,
    ) -> None:
        self.console = console or Console()
        self.as_json = as_json
        self.show_calls = show_calls or as_json
        self.calls = {change.key: len(change.calls) for change in changes}
        self.calls_done: dict[str, int] = {}
        self.in_flight: set[str] = set()
        self.started_at: dict[str, float] = {}
        self.done = 0
        self.failed = 0
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ApplyProgress:
        if self.console.is_terminal and not self.as_json:
            self._bar = Progress(
                TextColumn("Applying"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} changes{task.fields[state]}"),
                TimeElapsedColumn(),
                console=self.console,
            )
            self._bar.start()
            self._task = self._bar.add_task("apply", total=len(self.calls), state="")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._show()
            self._bar.stop()

    def started(self, change: Change) -> None:
        self.in_flight.add(change.key)
        self.started_at.setdefault(change.key, time.monotonic())
        self._show()

    def __call__(self, event: CallEvent) -> None:
        finished = self._count(event)
        if self._bar is not None:
            self._show()
            if not event.ok:
                self._bar.console.print(render_event(event, as_json=False), highlight=False)
            elif finished:
                # Above the bar, one line per change, so the scrollback is the record.
                self._bar.console.print(self._finished_line(event.change), highlight=False)
        elif self.show_calls:
            print(render_event(event, as_json=self.as_json), flush=True)

    def notice(self, text: str) -> None:
        """A line for the user while the bar runs (on stderr without a bar)."""
        if self._bar is not None:
            self._bar.console.print(text, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def _count(self, event: CallEvent) -> bool:
        """Count ``event``; whether it finished its change."""
        if not event.ok:
            self.failed += 1
            self.in_flight.discard(event.change)
            return False
        self.calls_done[event.change] = self.calls_done.get(event.change, 0) + 1
        if self.calls_done[event.change] != self.calls.get(event.change):
            return False
        self.done += 1
        self.in_flight.discard(event.change)
        return True

    def _finished_line(self, key: str) -> str:
        """``+ space.handbook#create: done in 0.4s`` (the time since its first call began)."""
        began = self.started_at.get(key)
        took = f" in {time.monotonic() - began:.1f}s" if began is not None else ""
        address, _, action = key.rpartition("#")
        mark = ACTION_SYMBOLS.get(action, "~")
        return escape_controls(f"{mark} {address}: {action} done{took}")

    def _show(self) -> None:
        if self._bar is None or self._task is None:
            return
        state = f", {len(self.in_flight)} in flight" if self.in_flight else ""
        state += f", {self.failed} failed" if self.failed else ""
        self._bar.update(self._task, completed=self.done, state=state)


def _unsettled(verification: Verification, made: str) -> str:
    """The report of an apply whose calls all succeeded but whose read-back did not match."""
    if verification.error is not None:
        return (
            f"Apply made all {made}, but reading them back failed, so whether the live "
            f"organization now matches the manifests is not known: {verification.error}\n"
            "Run 'docform plan' to check."
        )
    lines = [f"Apply made all {made}, but the live organization still differs from the manifests:"]
    for change in verification.remaining:
        lines.append(f"  {ACTION_SYMBOLS[change.action]} {change.address}  ({change.action})")
        for field in change.fields:
            before, after = field_sides(field)
            lines.append(f"      {field.path}: {before} -> {after}")
    lines.append("Run 'docform plan' to see what remains; apply again to make it.")
    return "\n".join(lines)
