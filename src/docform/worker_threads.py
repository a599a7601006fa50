"""CPU work in a worker thread beside the event loop that reads the API.

Loading the manifests and matching each kind run in worker threads while the event loop sends
reads and takes their answers. A thread running Python keeps the interpreter lock until the
switch interval forces it to hand the lock over (Python's default: 5 ms), and the event loop
needs the lock at every wake-up: for a connection that opened, for each part of each answer.
So while such a thread runs, each of those steps waits up to 5 ms, and with 16 reads in flight
the answers pile up unread: on the benchmark organization at 50 ms latency, 25 answers came
through in the first 0.75 s of a plan instead of 83 with a 0.2 ms interval.

So while any such work runs, the switch interval is `SWITCH_INTERVAL_S`, and Python's own is
put back when the last one ends. The interval only matters while two threads want the lock:
when the loop is idle in ``select``, the worker runs undisturbed. When the service answers at
once the loop is never idle, and the shorter interval costs CPU (about 0.9 s a plan of the
benchmark organization at 0 ms latency, paid for by making loading and matching cheaper;
BENCHMARKS.md, issue 19).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

SWITCH_INTERVAL_S = 0.0002

_lock = threading.Lock()
_running = 0
_saved_interval = 0.0


async def beside_the_loop(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in a worker thread (`asyncio.to_thread`), the event loop
    taking the interpreter lock promptly while it runs (see the module doc)."""
    with _prompt_switching():
        return await asyncio.to_thread(function, *args, **kwargs)


@contextmanager
def _prompt_switching() -> Iterator[None]:
    global _running, _saved_interval
    with _lock:
        if _running == 0:
            _saved_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL_S, _saved_interval))
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                sys.setswitchinterval(_saved_interval)
