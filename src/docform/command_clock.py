"""When the running command started, so that a deadline can hold for the whole command.

A command opens several API clients one after another (plan, apply, the read-back); a deadline
kept by each client would restart with each. The CLI starts the clock as each command starts
(`start`); without it the clock runs from when docform was imported.
"""

from __future__ import annotations

import time

_started = time.monotonic()


def start() -> None:
    """Start the clock of a new command (the CLI's group does, once per invocation)."""
    global _started
    _started = time.monotonic()


def elapsed() -> float:
    """Seconds since the running command started."""
    return time.monotonic() - _started
