"""A canary API token for the whole test suite, and the watch that fails any test showing it.

Every test runs with ``DOCFORM_API_TOKEN`` set to `CANARY_TOKEN` (a fresh random value per test
process, so nothing can hard-code it), and the end-to-end helpers hand it to docform. docform
must never print, log, save or raise it. Watched:

- every ``CliRunner.invoke`` result: its output, stdout, stderr and exception with traceback
  (the invoke raises at once, naming the command);
- each test's captured stdout, stderr and log records, docform's debug lines included (the
  test's report is turned into a failure naming where the token appeared);
- every file under the session's temporary directories (plan files, reports, sandboxes), read
  at the end of the session.

tests/test_secrets_canary.py runs deliberate leaks through each of these and checks that they
are caught.
"""

from __future__ import annotations

import secrets
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

CANARY_TOKEN = f"canary-{secrets.token_hex(16)}"
_invoke = CliRunner.invoke


class CanaryLeak(AssertionError):
    """The canary token appeared where docform shows or keeps things."""


def result_texts(result: Result) -> dict[str, str]:
    """Everything a CLI run showed or raised, by where it appeared."""
    texts = {"output": result.output, "stdout": result.stdout, "stderr": result.stderr}
    if result.exc_info is not None:
        texts["exception"] = "".join(traceback.format_exception(*result.exc_info))
    return texts


def watched_invoke(self: CliRunner, *args: Any, **kwargs: Any) -> Result:
    """``CliRunner.invoke`` that raises `CanaryLeak` when the run showed the canary token."""
    result = _invoke(self, *args, **kwargs)
    places = [name for name, text in result_texts(result).items() if CANARY_TOKEN in text]
    if places:
        command = " ".join(str(a) for a in (args[1] if len(args) > 1 else kwargs.get("args", [])))
        command = command.replace(CANARY_TOKEN, "<canary>")
        raise CanaryLeak(
            f"the canary API token appeared in the {' and '.join(places)} of `docform {command}`"
        )
    return result


def report_leaks(report: pytest.TestReport) -> None:
    """Fails a test whose captured output or logs of this phase hold the token; a test that
    failed anyway gets a note when its failure's text holds it."""
    phase = f" {report.when}"
    places = [
        title
        for title, content in report.sections
        if title.endswith(phase) and CANARY_TOKEN in content
    ]
    if report.failed and CANARY_TOKEN in report.longreprtext:
        places.append("the failure's text")
    if not places:
        return
    message = f"CanaryLeak: the canary API token appeared in: {', '.join(places)}"
    if report.failed:
        report.sections.append(("canary", message))
    elif not report.skipped:
        report.outcome = "failed"
        report.longrepr = message


def files_holding_canary(directory: Path) -> list[Path]:
    """The files under ``directory`` whose bytes hold the canary token."""
    needle = CANARY_TOKEN.encode()
    return sorted(path for path in directory.rglob("*") if path.is_file() and needle in _read(path))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def canary_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The session fixture's body: set the token, watch the CLI, then read the files written."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOCFORM_API_TOKEN", CANARY_TOKEN)
        patch.setattr(CliRunner, "invoke", watched_invoke)
        yield CANARY_TOKEN
    leaked = files_holding_canary(tmp_path_factory.getbasetemp())
    if leaked:
        raise CanaryLeak(
            "the canary API token was written to: " + ", ".join(str(p) for p in leaked)
        )
