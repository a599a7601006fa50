"""The running process (`docform.runtime`): worker threads beside the event loop shorten the
interpreter's switch interval while they run (when the knobs are on, as the docform command
turns them on) and put Python's own back when the last one ends; a program using docform as a
library keeps its own; a small step runs on the event loop unless another is in a thread; and
the command's clock starts with each command."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest

from docform import runtime
from docform.runtime import INLINE_BELOW, SWITCH_INTERVAL_S, beside_the_loop

LARGE = INLINE_BELOW
"""A step large enough for a worker thread."""


@pytest.mark.usefixtures("tuned")
def test_the_interval_is_short_while_a_worker_runs_and_restored_after() -> None:
    before = sys.getswitchinterval()

    async def run() -> tuple[float, float]:
        inside = await beside_the_loop(LARGE, sys.getswitchinterval)
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
        slow = asyncio.ensure_future(beside_the_loop(LARGE, second))
        await beside_the_loop(LARGE, int)
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
        asyncio.run(beside_the_loop(LARGE, fail))
    assert sys.getswitchinterval() == before


def test_without_the_knobs_a_worker_leaves_the_interval_alone() -> None:
    assert not runtime.enabled()
    before = sys.getswitchinterval()
    assert asyncio.run(beside_the_loop(LARGE, sys.getswitchinterval)) == before


@pytest.mark.usefixtures("tuned")
def test_a_small_step_runs_on_the_loop_unless_another_is_in_a_thread() -> None:
    runtime.plan_made()
    before = sys.getswitchinterval()
    loop_thread = threading.get_ident()
    large_started = threading.Event()
    small_done = threading.Event()

    def large() -> int:
        large_started.set()
        small_done.wait(5)
        return threading.get_ident()

    def small() -> tuple[int, float]:
        return threading.get_ident(), sys.getswitchinterval()

    async def run() -> tuple[tuple[int, float], tuple[int, float], int, tuple[int, float]]:
        alone = await beside_the_loop(INLINE_BELOW - 1, small)
        running = asyncio.ensure_future(beside_the_loop(LARGE, large))
        await asyncio.to_thread(large_started.wait, 5)
        beside = await beside_the_loop(0, small)
        small_done.set()
        return alone, beside, await running, await beside_the_loop(0, small)

    alone, beside, large_thread, after = asyncio.run(run())
    assert alone == (loop_thread, before)
    assert beside[0] not in (loop_thread, large_thread)
    assert beside[1] == pytest.approx(min(SWITCH_INTERVAL_S, before))
    assert large_thread != loop_thread
    assert after == (loop_thread, before)


def test_a_process_runs_its_first_plan_in_threads_whatever_its_size() -> None:
    code = (
        "import asyncio, threading\n"
        "from docform import runtime\n"
        "def where():\n"
        "    return threading.get_ident() == threading.main_thread().ident\n"
        "print(asyncio.run(runtime.beside_the_loop(0, where)))\n"
        "runtime.plan_made()\n"
        "print(asyncio.run(runtime.beside_the_loop(0, where)))\n"
    )
    assert printed_by(code) == ["False", "True"]


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
    lines = printed_by(code)
    assert (lines[0], lines[-1]) == ("False", "True (700, 11, 12) 0"), lines


def printed_by(code: str) -> list[str]:
    """The lines ``code`` prints, run in a new Python process (the knobs act on a process)."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_command_clock_runs_from_the_commands_start() -> None:
    runtime.start_command()
    time.sleep(0.01)
    first = runtime.command_elapsed()
    assert first >= 0.01
    runtime.start_command()
    assert runtime.command_elapsed() < first
