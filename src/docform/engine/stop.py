"""Stopping an apply early (Ctrl-C), in two steps.

Asked once, no new change starts and the changes in progress finish, so that each change is
either made whole or not started: the report is exact and the next plan shows what remains.
Asked again, the calls in flight are abandoned: they may or may not have reached the service,
which the report says, and the next plan shows which.
"""

from __future__ import annotations

import asyncio


class ApplyStop:
    """A request to stop, shared by whoever asks (a signal handler) and the running apply."""

    def __init__(self) -> None:
        self.asked = 0
        self._abandon = asyncio.Event()

    def ask(self) -> None:
        """Once: finish what is in progress and start nothing new; twice: abandon it too."""
        self.asked += 1
        if self.asked >= 2:
            self._abandon.set()

    @property
    def stopping(self) -> bool:
        return self.asked > 0

    async def abandoned(self) -> None:
        """Returns once the calls in flight are to be abandoned."""
        await self._abandon.wait()
