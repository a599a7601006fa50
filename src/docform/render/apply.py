"""What apply prints: a line per finished call, and the closing report."""

from __future__ import annotations

import json

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from docform.engine.apply import ApplyReport, CallEvent


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
    if report.ok:
        n = len(report.done)
        return f"Apply complete: {n} change{'s' if n != 1 else ''} made."
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
