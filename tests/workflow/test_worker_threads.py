"""Worker threads beside the event loop shorten the interpreter's switch interval while they
run (when the process's tuning is on, as the docform command turns it on), and put Python's own
back when the last one ends; a program using docform as a library keeps its own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from docform import tuning
from docform.tuning import SWITCH_INTERVAL_S
from docform.worker_threads import beside_the_loop


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


def test_without_the_tuning_a_worker_leaves_the_interval_alone() -> None:
    assert not tuning.enabled()
    before = sys.getswitchinterval()
    assert asyncio.run(beside_the_loop(sys.getswitchinterval)) == before


def printed_around_the_command(before: str, after: str) -> list[str]:
    """The lines a fresh interpreter prints running ``before``, then `docform --version` the way
    the installed command runs it, then ``after`` (both with ``tuning`` and ``gc`` imported)."""
    code = (
        "import gc\n"
        "from docform import tuning\n"
        "from docform.cli import cli\n"
        f"{before}\n"
        "try:\n"
        "    cli.main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"{after}\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_the_docform_command_turns_the_tuning_on() -> None:
    """Only the command's own process is tuned: importing docform changes nothing."""
    lines = printed_around_the_command("print(tuning.enabled())", "print(tuning.enabled())")
    assert (lines[0], lines[-1]) == ("False", "True"), lines


def test_the_docform_command_collects_garbage_rarely_from_its_start() -> None:
    """The command's start builds objects that live as long as it does (`docform.tuning.enable`):
    its young generation is collected every PLANNING_GC_THRESHOLD allocations from the start,
    and turning the tuning off gives back the thresholds set before."""
    lines = printed_around_the_command(
        "gc.set_threshold(700, 11, 12)",
        "print(gc.get_threshold())\ntuning.enable(False)\nprint(gc.get_threshold())",
    )
    assert lines[-2:] == [f"({tuning.PLANNING_GC_THRESHOLD}, 11, 12)", "(700, 11, 12)"], lines
