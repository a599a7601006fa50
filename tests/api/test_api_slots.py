"""`docform.api.slots.Slots`: a bounded number of holders, waiters let in by priority."""

from __future__ import annotations

import asyncio

import pytest

from docform.api.slots import Slots


async def _enter_in_turn(slots: Slots, waiters: list[tuple[str, int]]) -> list[str]:
    """Holds the only slot while ``waiters`` queue, then records the order they get it in."""
    entered: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await slots.acquire(priority)
        entered.append(name)
        slots.release()

    await slots.acquire()
    tasks = [asyncio.ensure_future(wait(name, priority)) for name, priority in waiters]
    await asyncio.sleep(0)  # every waiter is queued now
    slots.release()
    await asyncio.gather(*tasks)
    return entered


def test_waiters_enter_by_priority_then_by_arrival() -> None:
    waiters = [("team-a", 0), ("team-b", 0), ("members-page-2", -9), ("spaces-page-2", -4)]
    order = asyncio.run(_enter_in_turn(Slots(1), waiters))
    assert order == ["members-page-2", "spaces-page-2", "team-a", "team-b"]


def test_no_more_than_the_limit_hold_a_slot_at_once() -> None:
    async def scenario() -> int:
        slots, holding, most = Slots(3), 0, 0

        async def hold() -> None:
            nonlocal holding, most
            await slots.acquire()
            holding += 1
            most = max(most, holding)
            await asyncio.sleep(0)
            holding -= 1
            slots.release()

        await asyncio.gather(*(hold() for _ in range(20)))
        return most

    assert asyncio.run(scenario()) == 3


def test_a_waiter_that_gives_up_does_not_keep_a_slot() -> None:
    async def scenario() -> list[str]:
        slots = Slots(1)
        await slots.acquire()
        quitter = asyncio.ensure_future(slots.acquire(-1))
        await asyncio.sleep(0)
        quitter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await quitter
        return await _enter_after_release(slots)

    assert asyncio.run(scenario()) == ["next"]


async def _enter_after_release(slots: Slots) -> list[str]:
    entered: list[str] = []

    async def wait() -> None:
        await slots.acquire()
        entered.append("next")

    task = asyncio.ensure_future(wait())
    await asyncio.sleep(0)
    slots.release()
    await asyncio.wait_for(task, timeout=5)
    return entered
