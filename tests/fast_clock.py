"""A clock faster than the real one, shared by a test's service and client (the `fast_clock`
fixture in conftest): rate-limit windows and the waits for them pass ten times faster, while
requests take the real time they take."""

from __future__ import annotations

import asyncio
import time


class FastClock:
    """The one clock of a test's service and client, running ``speed`` times faster than the
    real one: the service's one-second windows pass in a tenth of a second, and so do the
    client's waits for them, while requests take the real time they take."""

    def __init__(self, speed: float = 10.0, start: float = 2_000_000_000.25) -> None:
        self.speed, self.start, self.real_start = speed, start, time.monotonic()

    def time(self) -> float:
        return self.start + (time.monotonic() - self.real_start) * self.speed

    def monotonic(self) -> float:
        return self.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0) / self.speed)
