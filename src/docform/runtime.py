"""The running docform process: when its command started, and the process knobs that earn
their place.

- The command's clock (`start_command`, `command_elapsed`): a command opens several API clients
  one after another (plan, apply, the read-back), and a deadline kept by each client would
  restart with each; the CLI starts the clock as each command starts, and without it the
  clock runs from when docform was imported.
- CPU work beside the event loop (`beside_the_loop`): loading the manifests and matching each
  kind run in worker threads while the event loop sends reads and takes their answers. A
  thread running Python keeps the interpreter lock until the switch interval forces it to hand
  the lock over, and the event loop needs the lock at every wake-up (a connection that opened,
  each part of each answer); with Python's interval the answers pile up unread while a worker
  runs. So while any such work runs in the docform command, the interval is shortened
  (`prompt_switching`). Once the process has made a plan (`plan_made`), a matching step
  through fewer than `INLINE_BELOW` items (the live objects read so far, the manifest
  entries) runs on the event loop itself, unless a step runs in a worker thread then (the
  small one could wait on the loop for a lock the thread holds): the hand-over to a thread
  and back, and the threads each `asyncio.run` starts and joins, cost more than such a step.
  The first plan of a process stays in threads whatever its size: it builds what later ones
  reuse (models' validators, each kind's rules), which makes its steps long however few their
  items (BENCHMARKS.md, "Process knobs"). Loading the manifests is always in a thread
  (`in_a_thread`): the reads start while it runs.
- Fewer cyclic garbage collections while a plan is built (`collecting_rarely`, `frozen_after`).

A knob stays here only while BENCHMARKS.md ("Process knobs") shows it saves at least 5 % of a
command a user runs, measured side by side with it off (`benchmarks/knobs.py`). Knobs act on
the whole process, so only the docform command turns them on (`enable`, from
`docform.cli.group`); a program that imports docform as a library keeps Python's defaults. The
other knob that earns its place is the API client's network transport, which lives with the
client (`docform.api.connections`).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

SWITCH_INTERVAL_S = 0.0002
"""The interpreter's switch interval while a worker thread runs beside the event loop."""
INLINE_BELOW = 100
"""Steps through fewer items than this run on the event loop (`beside_the_loop`)."""
PLANNING_GC_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation while planning (Python's
default is 700)."""

_started = time.monotonic()
_enabled = False
_lock = threading.Lock()
_workers = 0
_in_threads = 0
_planned = False
_saved_interval = 0.0
_planning_depth = 0
_saved_thresholds: tuple[int, ...] = ()


def start_command() -> None:
    """Start the clock of a new command (the CLI's group does, once per invocation)."""
    global _started
    _started = time.monotonic()


def command_elapsed() -> float:
    """Seconds since the running command started."""
    return time.monotonic() - _started


def enable(on: bool = True) -> None:
    """Turn the knobs on (or off) for this process; the docform command turns them on."""
    global _enabled
    with _lock:
        _enabled = on


def enabled() -> bool:
    return _enabled


async def beside_the_loop(
    items: int, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """``function(*args, **kwargs)``, a step through about ``items`` items: in a worker thread
    (`asyncio.to_thread`), the event loop taking the interpreter lock promptly while it runs,
    or on the event loop when it is small, the process has made a plan and no other step is
    in a thread (see the module doc)."""
    if items < INLINE_BELOW and _planned and not _in_threads:
        return function(*args, **kwargs)
    return await in_a_thread(function, *args, **kwargs)


async def in_a_thread(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in a worker thread (`asyncio.to_thread`), the event loop
    taking the interpreter lock promptly while it runs (see the module doc)."""
    # Imported here, not with the module: every start of the docform command imports this
    # module, `--version` too, and only commands that run an event loop need asyncio.
    import asyncio

    global _in_threads
    with _lock:
        _in_threads += 1
    try:
        with prompt_switching():
            return await asyncio.to_thread(function, *args, **kwargs)
    finally:
        with _lock:
            _in_threads -= 1


def plan_made() -> None:
    """A plan was made in this process: the steps of the next ones may run on the loop."""
    global _planned
    _planned = True


@contextmanager
def prompt_switching() -> Iterator[None]:
    """While inside, the switch interval is `SWITCH_INTERVAL_S` (when the knobs are on);
    Python's own interval is put back when the last one ends."""
    global _workers, _saved_interval
    if not _enabled:
        yield
        return
    with _lock:
        if _workers == 0:
            _saved_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL_S, _saved_interval))
        _workers += 1
    try:
        yield
    finally:
        with _lock:
            _workers -= 1
            if _workers == 0:
                sys.setswitchinterval(_saved_interval)


@contextmanager
def collecting_rarely() -> Iterator[None]:
    """Fewer cyclic garbage collections while planning (when the knobs are on).

    Planning grows a heap of long-lived objects (the manifests, every live object as decoded
    JSON, each kind's matching: hundreds of thousands of them) that are garbage only at the
    end; with Python's default thresholds the collector walks it again and again as it grows
    The objects alive before planning are frozen
    out of the collector's walks, and so is each batch planning builds once it is built
    (`frozen_after`); the young generation is collected every `PLANNING_GC_THRESHOLD`
    allocations. All of it is undone when the last concurrent plan ends; garbage cycles are
    still collected, those caught in a frozen batch only then.
    """
    global _planning_depth, _saved_thresholds
    if not _enabled:
        yield
        return
    with _lock:
        if _planning_depth == 0:
            _saved_thresholds = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(PLANNING_GC_THRESHOLD, *_saved_thresholds[1:])
        _planning_depth += 1
    try:
        yield
    finally:
        with _lock:
            _planning_depth -= 1
            if _planning_depth == 0:
                gc.set_threshold(*_saved_thresholds)
                gc.unfreeze()


def frozen_after(step: Callable[..., None]) -> Callable[..., None]:
    """``step`` (the manifests handed over, a kind read and matched), then everything alive
    frozen out of the collector's walks while a plan runs: what the step built lives until the
    plan ends, and each collection of the youngest generation would otherwise carry it into
    the older ones, whose walks hold the event loop up."""

    def run(*args: Any) -> None:
        step(*args)
        # A plan that failed may have ended while this ran in its worker thread.
        with _lock:
            if _planning_depth:
                gc.freeze()

    return run
