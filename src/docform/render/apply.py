"""What apply prints: a line per finished call, and the closing report."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from docform.engine.apply import ApplyReport, CallEvent
from docform.render.values import ACTION_SYMBOLS, field_sides


def render_event(event: CallEvent, *, as_json: bool) -> str:
    if as_json:
        return json.dumps(
            {
                "change": event.change,
                "method": event.method,
                "path": event.path,
                "ok": event.ok,
                "status": event.status,
                "message": event.message,
            }
        )
    mark = "ok  " if event.ok else "FAIL"
    line = f"{mark} {event.method} {event.path}  ({event.change})"
    return line + (f": {event.message}" if event.message else "")


def render_report(report: ApplyReport) -> str:
    n = len(report.done)
    made = f"{n} change{'s' if n != 1 else ''}"
    if report.ok:
        return f"Apply complete: {made} made."
    if not report.failed and not report.not_attempted:
        return _unsettled(report.verification, made)
    lines = [f"Apply stopped: {len(report.done)} done, {len(report.failed)} failed, "
             f"{len(report.not_attempted)} not attempted."]  # fmt: skip
    lines += [f"  failed: {change.key}: {message}" for change, message in report.failed]
    lines += [f"  not attempted: {change.key}" for change in report.not_attempted]
    lines.append("Run 'docform plan' to see what remains; apply again to finish.")
    return "\n".join(lines)


class ApplyProgress:
    """Finished calls as they happen: a bar with counts on a terminal, else one line each
    (``--json``: one JSON object per line)."""

    def __init__(self, total: int, *, as_json: bool, console: Console | None = None) -> None:
        self.console = console or Console()
        self.as_json = as_json
        self.total = total
        self.failed = 0
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ApplyProgress:
        if self.console.is_terminal and not self.as_json:
            self._bar = Progress(
                TextColumn("Applying"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[failed]}"),
                console=self.console,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("apply", total=self.total, failed="")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def __call__(self, event: CallEvent) -> None:
        self.failed += not event.ok
        if self._bar is not None and self._task is not None:
            failed = f"{self.failed} failed" if self.failed else ""
            self._bar.update(self._task, advance=1, failed=failed)
            if not event.ok:
                self._bar.console.print(render_event(event, as_json=False), highlight=False)
            return
        print(render_event(event, as_json=self.as_json), flush=True)


def _unsettled(verification: Any, made: str) -> str:
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
