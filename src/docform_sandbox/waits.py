"""How the sandbox spends time: the latency of every answer (``--latency-ms``), the late answer
of a ``slow`` fault, and, in-process, the client's read timeout that such an answer runs into
(`docform_sandbox.transport`). Real time unless the sandbox is handed other `Waits`: a test
hands waits that add up on each request's own clock instead of passing (tests/skipped_time.py),
so that a slow answer still comes after the read timeout, and costs no real time to do so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Protocol, TypeVar

T = TypeVar("T")


class Waits(Protocol):
    async def sleep(self, seconds: float) -> None:
        """Holds the request being answered back ``seconds``."""
        ...

    async def within(self, answer: Awaitable[T], timeout: float | None) -> T:
        """``answer``, or `TimeoutError` (the answer abandoned) if it takes longer than
        ``timeout`` seconds (None: no limit)."""
        ...


class RealTime:
    """The waits of a sandbox as a user runs it: they pass in real time."""

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def within(self, answer: Awaitable[T], timeout: float | None) -> T:
        return await asyncio.wait_for(answer, timeout)
