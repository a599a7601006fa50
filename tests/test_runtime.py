"""The running process (`docform.runtime`): worker threads beside the event loop shorten the
interpreter's switch interval while they run (when the knobs are on, as the docform command
turns them on) and put Python's own back when the last one ends; a program using docform as a
library keeps its own, and the command's clock starts with each command."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest

from docform import runtime
from docform.runtime import SWITCH_INTERVAL_S, beside_the_loop


@pytest.mark.usefixtures("tuned")
def test_the_interval_is_short_while_a_worker_runs_and_restored_after() -> None:
    before = sys.getswitchinterval()

    async def run() -> tuple[float, float]:
        inside = await beside_the_loop(sys.getswitchinterval)
        return inside, sys.getswitchinterval()

    inside, after = asyncio.run(run())
    assert inside == pytest.approx(min(SWITCH_INTERVAL_S, before))
    assert after == before == sys.getswitchinterval()


@pytest.mark.usefixtures("tuned")
def test_overlapping_workers_keep_it_short_until_the_last_ends() -> None:
    before = sys.getswitchinterval()
    first_ended = threading.Event()

    def second() -> float:
        first_ended.wait(5)
        return sys.getswitchinterval()

    async def run() -> float:
        slow = asyncio.ensure_future(beside_the_loop(second))
        await beside_the_loop(int)
        first_ended.set()
        return await slow

    assert asyncio.run(run()) == pytest.approx(min(SWITCH_INTERVAL_S, before))
    assert sys.getswitchinterval() == before


@pytest.mark.usefixtures("tuned")
def test_a_failing_worker_still_puts_the_interval_back() -> None:
    before = sys.getswitchinterval()

    def fail() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        asyncio.run(beside_the_loop(fail))
    assert sys.getswitchinterval() == before


def test_without_the_knobs_a_worker_leaves_the_interval_alone() -> None:
    assert not runtime.enabled()
    before = sys.getswitchinterval()
    assert asyncio.run(beside_the_loop(sys.getswitchinterval)) == before


def test_the_docform_command_turns_the_knobs_on_and_leaves_the_collector_alone() -> None:
    """Only the command's own process has its knobs on: importing docform changes nothing."""
    code = (
        "import gc\n"
        "from docform import runtime\n"
        "from docform.cli import cli\n"
        "gc.set_threshold(700, 11, 12)\n"
        "print(runtime.enabled())\n"
        "try:\n"
        "    cli.main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(runtime.enabled(), gc.get_threshold(), gc.get_freeze_count())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (lines[0], lines[-1]) == ("False", "True (700, 11, 12) 0"), lines


def test_the_command_clock_runs_from_the_commands_start() -> None:
    runtime.start_command()
    time.sleep(0.01)
    first = runtime.command_elapsed()
    assert first >= 0.01
    runtime.start_command()
    assert runtime.command_elapsed() < first
