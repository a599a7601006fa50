"""What apply prints: a line per finished call, and the closing report."""

from __future__ import annotations

import json

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
