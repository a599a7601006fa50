"""CPU work in a worker thread beside the event loop that reads the API.

Loading the manifests and matching each kind run in worker threads while the event loop sends
reads and takes their answers. A thread running Python keeps the interpreter lock until the
switch interval forces it to hand the lock over (Python's default: 5 ms), and the event loop
needs the lock at every wake-up: for a connection that opened, for each part of each answer.
So while such a thread runs, each of those steps waits up to 5 ms, and with 16 reads in flight
the answers pile up unread: on the benchmark organization at 50 ms latency, 25 answers came
through in the first 0.75 s of a plan instead of 83 with a 0.2 ms interval.

So while any such work runs in the docform command, the switch interval is shortened
(`docform.tuning.prompt_switching`, which says what it costs).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from docform import tuning

P = ParamSpec("P")
T = TypeVar("T")


async def beside_the_loop(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in a worker thread (`asyncio.to_thread`), the event loop
    taking the interpreter lock promptly while it runs (see the module doc)."""
    with tuning.prompt_switching():
        return await asyncio.to_thread(function, *args, **kwargs)
