"""`docform apply` at the terminal (cli/apply.py, cli/common.py, render/apply.py): asking before
it changes anything, progress, and Ctrl-C in the middle of an apply."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from docform.cli import cli
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import SERVE_TOKEN, plan_json, run, served_app
from terminal import on_a_terminal

# Every write answered late (done at once, its answer held back), reads at once: an apply is
# slow enough to watch with changes in flight, and nothing else waits.
WRITES_LATE = ",".join(f"slow:1@{method}:/**" for method in ("POST", "PUT", "PATCH", "DELETE"))
NOT_A_TERMINAL = (
    "Error: apply asks before it changes anything, and standard input is not a terminal, so "
    "nobody can answer; nothing was applied. Review the plan above, then run the same command "
    "with --yes (or apply a reviewed plan: 'docform apply PLANFILE', or --checksum SHA)\n"
)


# -- asking ------------------------------------------------------------------------------------


def test_apply_without_yes_and_without_a_terminal_says_yes_is_needed(sandbox, basic):
    result = run(["apply", basic], sandbox)
    assert result.exit_code == 1
    assert result.stderr.endswith(NOT_A_TERMINAL)
    assert len(plan_json(basic, sandbox)["changes"]) == 14


def test_apply_in_a_pipeline_without_yes_says_yes_is_needed(sandbox, basic):
    env = {**os.environ, "DOCFORM_API_URL": f"sandbox:{sandbox}", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "docform", "apply", str(basic)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.endswith(NOT_A_TERMINAL)
    assert "Aborted" not in done.stderr


def test_apply_answered_no_changes_nothing(sandbox, basic):
    result = run(["apply", basic], sandbox, answer="n\n")
    assert result.exit_code == 1
    assert result.stderr.endswith("Error: not confirmed: nothing was applied\n")
    assert len(plan_json(basic, sandbox)["changes"]) == 14


# -- progress ------------------------------------------------------------------------------------


def test_progress_on_a_terminal_counts_changes_and_stays_as_a_record(sandbox, basic):
    # Every write answered late, so that the bar is drawn while changes are in flight (each
    # finished change's line is printed above the bar as it stands, the other change running).
    env = {**os.environ, "DOCFORM_API_URL": f"sandbox:{sandbox}", "COLUMNS": "100"}
    env |= {"DOCFORM_SANDBOX_FAULTS": WRITES_LATE, "DOCFORM_SANDBOX_SLOW_SECONDS": "0.05"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "docform", "apply", str(basic), "--yes", "--parallelism", "2"]
    screen = on_a_terminal(command, env)
    lines = [line.strip() for line in re.split(r"[\r\n]+", screen) if line.strip()]
    applying = [line for line in lines if line.startswith("Applying")]
    assert applying, screen
    assert re.fullmatch(r"Applying \S+ 14/14 changes \d:\d\d:\d\d", applying[-1]), applying
    in_flight = [line for line in applying if re.search(r" \d+/14 changes, [12] in flight ", line)]
    assert in_flight, applying
    done = lines.index("Apply complete: 14 changes made.")
    assert lines[done - 1] == applying[-1]  # then the notes, each on a line of its own
    assert all(line.startswith("Note: ") for line in lines[done + 1 :]), lines[done:]
    # Above the bar, one line per finished change with its time: the scrollback is the record.
    finished = [line for line in lines if re.fullmatch(r"[-+~>] \S+: \w+ done in \d+\.\ds", line)]
    assert len(finished) == len({line.split(":")[0] for line in finished}) == 14, screen


# -- Ctrl-C ------------------------------------------------------------------------------------


@pytest.fixture
def served(sandbox: Path) -> Iterator[tuple[str, threading.Event]]:
    """A served sandbox that answers an apply's first write at once and holds the answers of
    the later ones back (each write done at once, as a slow service would) until the test sets
    the event it yields with its root URL: an apply interrupted once its first change is done
    has changes in flight, however fast or slow the machine. Served from a thread of the test
    process: the server is not what these tests look at, the docform process is."""
    writes: list[str] = []

    def answering_writes_late(app: App, released: threading.Event) -> App:
        async def answering(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] == "GET":
                await app(scope, receive, send)
                return
            writes.append(scope["path"])
            first = len(writes) == 1

            async def held(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and not first:
                    await _until(released)
                await send(message)

            await app(scope, receive, held)

        return answering

    with served_until_released(sandbox, answering_writes_late) as served:
        yield served


App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@contextmanager
def served_until_released(
    sandbox: Path, holding: Callable[[App, threading.Event], App]
) -> Iterator[tuple[str, threading.Event]]:
    """The sandbox served from a thread, its app wrapped by ``holding`` with an event that
    releases what it holds back; yields its root URL and that event, set at the end whatever
    the test did, so that the server can stop."""
    released = threading.Event()
    store = Store(sandbox)
    app = create_app(store, SandboxConfig((SERVE_TOKEN,)))
    try:
        with served_app(holding(app, released)) as root:
            try:
                yield root, released
            finally:
                released.set()
    finally:
        store.close()


async def _until(released: threading.Event) -> None:
    while not released.is_set():
        await asyncio.sleep(0.01)


def interrupted_apply(
    directory: Path,
    served: tuple[str, threading.Event],
    presses: int,
    sent: signal.Signals = signal.SIGINT,
) -> tuple[int, str, str]:
    """``docform apply DIR --yes`` as a process against the `served` sandbox, given Ctrl-C (or
    ``sent``) ``presses`` times once its first change is done, each press once it said what
    it does about the one before; then its held changes are let through. Returns its exit
    code, stdout and stderr."""
    root, released = served
    env = {**os.environ, "DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": SERVE_TOKEN}
    command = [sys.executable, "-m", "docform", "apply", str(directory), "--yes"]
    # Unbuffered: a line read here takes nothing more off the pipe, which `communicate` reads.
    process = subprocess.Popen(
        [*command, "--parallelism", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )
    assert process.stdout is not None and process.stderr is not None
    # A process that never says what the test waits for is killed: the reads below then end.
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    try:
        shown: list[bytes] = []
        while not (shown and shown[-1].startswith(b"ok ")):
            shown.append(line := process.stdout.readline())
            assert line, f"apply ended before its first call: {b''.join(shown).decode()}"
        said: list[bytes] = []
        for _ in range(presses):
            process.send_signal(sent)
            said.append(line := process.stderr.readline())
            assert line, f"apply said nothing of the signal: {b''.join(said).decode()}"
        released.set()
        stdout, stderr = process.communicate(timeout=60)
    finally:
        watchdog.cancel()
    return (
        process.returncode,
        b"".join([*shown, stdout]).decode(),
        b"".join([*said, stderr]).decode(),
    )


def changes_left(directory: Path, root: str) -> set[str]:
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": SERVE_TOKEN}
    done = CliRunner().invoke(cli, ["plan", str(directory), "--json"], env=env)
    assert done.exit_code == 0, done.output
    return {f"{c['address']}#{c['action']}" for c in json.loads(done.stdout)["changes"]}


def test_ctrl_c_lets_running_changes_finish_and_says_what_is_left(served, basic):
    code, _, stderr = interrupted_apply(basic, served, presses=1)
    assert code == 1
    lines = stderr.splitlines()
    assert re.fullmatch(
        r"Stopping: no new change starts; waiting for the \d in flight to finish\. Press Ctrl-C "
        r"again to abandon them\.",
        lines[0],
    ), stderr
    found = re.fullmatch(r"Apply interrupted: (\d+) done, (\d+) not attempted\.", lines[1])
    assert found, stderr
    done, not_attempted = int(found[1]), int(found[2])
    assert done >= 1 and done + not_attempted == 14
    listed = {line.removeprefix("  not attempted: ") for line in lines[2:-1]}
    assert lines[-1] == "Run 'docform plan' to see what remains; apply again to finish."
    assert changes_left(basic, served[0]) == listed
    assert "Warning" not in stderr and "Traceback" not in stderr


def test_ctrl_c_twice_abandons_the_changes_in_flight_and_names_them(served, basic):
    code, _, stderr = interrupted_apply(basic, served, presses=2)
    assert code == 1
    lines = stderr.splitlines()
    assert lines[1] == "Abandoning the changes in flight.", stderr
    found = re.fullmatch(
        r"Apply interrupted: (\d+) done, (\d+) abandoned in flight, (\d+) not attempted\.",
        lines[2],
    )
    assert found, stderr
    assert sum(int(n) for n in found.groups()) == 14
    abandoned = [line for line in lines if line.startswith("  abandoned: ")]
    assert len(abandoned) == int(found[2])
    assert (
        "An abandoned change may have been made in part or in full; the next plan shows what of "
        "it is left."
    ) in lines
    assert "Warning" not in stderr and "Traceback" not in stderr


def test_sigterm_from_a_ci_runner_stops_apply_like_ctrl_c(served, basic):
    code, _, stderr = interrupted_apply(basic, served, presses=1, sent=signal.SIGTERM)
    assert code == 1
    assert stderr.startswith("Stopping: no new change starts"), stderr
    assert re.search(r"^Apply interrupted: \d+ done, \d+ not attempted\.$", stderr, re.M)


@pytest.fixture
def served_holding_reads(sandbox: Path) -> Iterator[tuple[str, threading.Event]]:
    """A served sandbox that holds every API request back until the test is over, so that a
    plan is still reading whenever it is interrupted; yields its root URL and an event set
    once the first request has come."""
    arrived = threading.Event()

    def holding_reads(app: App, released: threading.Event) -> App:
        async def holding(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"].startswith("/v1/"):
                arrived.set()
                await _until(released)
            await app(scope, receive, send)

        return holding

    with served_until_released(sandbox, holding_reads) as (root, _released):
        yield root, arrived


def test_ctrl_c_while_reading_the_live_organization_says_interrupted(served_holding_reads, basic):
    """Planning only reads: Ctrl-C cancels the reads, and nothing but one line is printed
    (no "Aborted.", no warning about a coroutine never awaited)."""
    served, arrived = served_holding_reads
    env = {**os.environ, "DOCFORM_API_URL": served, "DOCFORM_API_TOKEN": SERVE_TOKEN}
    process = subprocess.Popen(
        [sys.executable, "-m", "docform", "plan", str(basic)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    while not arrived.wait(timeout=0.05):
        assert process.poll() is None, process.communicate()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert (process.returncode, stdout) == (1, "")
    assert stderr.strip() == "Interrupted."
