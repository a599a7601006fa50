"""Reads of one kind's live objects that started after a given moment, shared where they can be.

Around a create, an apply needs to know what exists *now*: before it (has another apply made
the object meanwhile?) and after it (did another apply make the same object at the same
time?). A read answers that only when it started after the moment in question. Creates of one
kind mostly run side by side, so every create that asks while no read has started yet waits for
the same next read, and a read in flight serves only those that asked before it started: one
list read per kind per wave of creates, never one that began too early.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

Read = Callable[[], Awaitable[list[dict[str, Any]]]]


class FreshReads:
    """Reads of one kind; `after` gives the objects of a read that started after ``moment``."""

    def __init__(self, read: Read, clock: itertools.count[int]) -> None:
        self._read = read
        self._clock = clock
        self._latest: tuple[int, asyncio.Future[list[dict[str, Any]]]] | None = None
        self._next: asyncio.Future[list[dict[str, Any]]] | None = None

    def moment(self) -> int:
        """Now, for a later `after`."""
        return next(self._clock)

    async def after(self, moment: int) -> list[dict[str, Any]]:
        """The live objects as a read that started after ``moment`` found them."""
        if self._latest is not None and self._latest[0] > moment:
            return await asyncio.shield(self._latest[1])
        if self._next is None:
            self._next = asyncio.ensure_future(self._start_next())
        return await asyncio.shield(self._next)

    async def _start_next(self) -> list[dict[str, Any]]:
        if self._latest is not None and not self._latest[1].done():
            await asyncio.wait([self._latest[1]])
        started = next(self._clock)
        self._next = None
        task = asyncio.ensure_future(self._read())
        self._latest = (started, task)
        return await task
