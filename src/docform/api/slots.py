"""`Slots`: at most N calls in flight, and the waiting calls let in by priority, then by arrival.

Reading a large organization queues hundreds of independent one-page lists (the members of each
team) next to a few long lists whose pages can only be read one after the other (10,000
members are ten pages, each needing the cursor of the one before). First come, first served
would put every next page behind the whole queue, so the long list would finish last, one
queue's length per page. Letting the longest remaining chain go first is the schedule that
finishes soonest (highest level first), so a list's next page waits for no more than the calls
already running.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools


class Slots:
    """Like `asyncio.Semaphore`, but a lower ``priority`` number is let in first."""

    def __init__(self, limit: int) -> None:
        self._free = limit
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    async def acquire(self, priority: int = 0) -> None:
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._arrivals), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # the slot was handed over just as the caller gave up
            raise

    def release(self) -> None:
        """Hand the slot to the first waiting call still waiting, else free it."""
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1
