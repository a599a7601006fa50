"""Worker threads beside the event loop shorten the interpreter's switch interval while they
run, and put Python's own back when the last one ends."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from docform.worker_threads import SWITCH_INTERVAL_S, beside_the_loop


def test_the_interval_is_short_while_a_worker_runs_and_restored_after() -> None:
    before = sys.getswitchinterval()

    async def run() -> tuple[float, float]:
        inside = await beside_the_loop(sys.getswitchinterval)
        return inside, sys.getswitchinterval()

    inside, after = asyncio.run(run())
    assert inside == pytest.approx(min(SWITCH_INTERVAL_S, before))
    assert after == before == sys.getswitchinterval()


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


def test_a_failing_worker_still_puts_the_interval_back() -> None:
    before = sys.getswitchinterval()

    def fail() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        asyncio.run(beside_the_loop(fail))
    assert sys.getswitchinterval() == before
