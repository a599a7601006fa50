"""``apply --json``: the apply as JSON lines on stdout, one event per line, for programs.

Every line is one JSON object with a ``type``: ``version`` first, then ``plan`` (the plan
JSON document, rails and policies included), a ``warning`` per safety rail a reviewer's
``--allow`` or ``--force`` let through, a ``call`` per finished API call, a ``note`` per note of
the apply, and always a ``summary`` last, also when there is nothing to change or the apply
is refused or fails (then with its ``error``). Nothing else goes to stdout. The format is
versioned (`FORMAT_VERSION`) and documented in docs/json-formats.md.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from docform import __version__
from docform.engine.plan import Plan

FORMAT_VERSION = "1.0"


class ApplyEvents:
    """Writes the events of one ``apply --json`` to ``out`` (stdout)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.planned: int | None = None
        self.report: Any = None

    def emit(self, kind: str, **fields: Any) -> None:
        print(json.dumps({"type": kind, **fields}), file=self.out, flush=True)

    def start(self) -> None:
        self.emit("version", format_version=FORMAT_VERSION, docform=__version__)

    def plan(self, plan: Plan) -> None:
        self.planned = len(plan.changes)
        self.emit("plan", plan=plan.to_json())

    def note(self, text: str) -> None:
        self.emit("note", message=text)

    def warning(self, text: str) -> None:
        self.emit("warning", message=text)

    def summary(self, exit_code: int, error: str | None = None) -> None:
        """The last event: what was planned and made, and how the command ends."""
        report = self.report
        fields: dict[str, Any] = {
            "ok": exit_code == 0,
            "exit_code": exit_code,
            "error": error,
            "planned": self.planned,
            "made": len(report.done) if report is not None else 0,
            "failed": [key_and_why(c, why) for c, why in report.failed] if report else [],
            "pending": [key_and_why(c, why) for c, why in report.pending] if report else [],
            "not_attempted": [c.key for c in report.not_attempted] if report else [],
        }
        self.emit("summary", **fields)


def key_and_why(change: Any, why: str) -> dict[str, str]:
    return {"change": change.key, "message": why}
