"""Live-state reading progress on a terminal: the kinds being read and objects so far."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.status import Status


class ReadProgress:
    """A one-line status on stderr while reading; silent when stderr is not a terminal."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.counts: dict[str, int] = {}
        self._status: Status | None = None

    def __enter__(self) -> ReadProgress:
        if self.console.is_terminal:
            self._status = self.console.status("Reading the live organization...")
            self._status.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.stop()

    def __call__(self, kind: str, count: int) -> None:
        self.counts[kind] = count
        if self._status is not None:
            read = ", ".join(f"{k} {n}" for k, n in self.counts.items())
            self._status.update(f"Reading the live organization: {read}")
