"""Sandbox waits that cost no real time (`docform_sandbox.waits`), for tests of slow answers.

Each request the in-process transport hands the sandbox keeps its own clock: a wait of the
sandbox (its latency, a ``slow`` fault's late answer) moves that clock on at once instead of
passing, and once the clock is past the client's read timeout the answer is abandoned as a
real timeout abandons it (the request's task is cancelled where it waits) and the client gets
`httpx.ReadTimeout`. So what a slow answer does (the work done, the answer too late, the client
trying again or reporting) is what it does in real time; only the waiting is skipped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass
class RequestClock:
    """The time one request's answer has taken, and when its client gives up on it."""

    timeout: float | None
    elapsed: float = 0.0
    timed_out: bool = False


_request: ContextVar[RequestClock | None] = ContextVar("skipped_time_request", default=None)


class SkippedTime:
    """`docform_sandbox.waits.Waits` whose waits pass at once (see the module doc)."""

    def __init__(self) -> None:
        self.waited: list[float] = []
        """Every wait the sandbox asked for, in seconds."""

    async def sleep(self, seconds: float) -> None:
        self.waited.append(seconds)
        clock = _request.get()
        if clock is not None:
            clock.elapsed += seconds
            if clock.timeout is not None and clock.elapsed > clock.timeout:
                clock.timed_out = True
                task = asyncio.current_task()
                assert task is not None
                task.cancel()  # raised at the next await, as wait_for's timeout does
        await asyncio.sleep(0)

    async def within(self, answer: Awaitable[T], timeout: float | None) -> T:
        clock = RequestClock(timeout)
        token = _request.set(clock)
        try:
            task = asyncio.ensure_future(answer)  # runs in a copy of this context: sees clock
        finally:
            _request.reset(token)
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if clock.timed_out and current is not None and not current.cancelling():
                raise TimeoutError from None
            raise
