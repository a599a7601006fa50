"""Process-wide tuning of the interpreter, which only the docform command turns on.

The settings below trade Python's defaults for speed in planning: they act on the whole
process, so a program that imports docform as a library (a test, a benchmark, an embedding
tool) keeps Python's own unless it calls `enable` itself, as the command's entry point does
(`docform.cli.group`). Each is undone when the last piece of work that needed it ends.

- The interpreter's switch interval while CPU work runs in a worker thread beside the event
  loop (`prompt_switching`, used by `docform.worker_threads.beside_the_loop`). It only matters
  while two threads want the lock: when the loop is idle in ``select``, the worker runs
  undisturbed. When the service answers at once the loop is never idle, and the shorter
  interval costs CPU (about 0.9 s a plan of the benchmark organization at 0 ms latency, paid
  for by making loading and matching cheaper; docs/benchmark-rounds.md, issue 19).
- The cyclic garbage collector from the command's start (`enable`), and while a plan is built
  (`collecting_rarely`, `frozen_after`).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

SWITCH_INTERVAL_S = 0.0002
"""The interpreter's switch interval while a worker thread runs beside the event loop."""
PLANNING_GC_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation while planning (Python's
default is 700)."""

_enabled = False
_thresholds_before_enabled: tuple[int, ...] = ()
_lock = threading.Lock()
_workers = 0
_saved_interval = 0.0
_planning_depth = 0
_saved_thresholds: tuple[int, ...] = ()


def enable(on: bool = True) -> None:
    """Turn the tuning on (or off) for this process; the docform command turns it on.

    On, the youngest generation is collected every `PLANNING_GC_THRESHOLD` allocations from
    then on: a command's start builds thousands of objects that live until it ends (the kinds'
    classes and their pydantic validators, the sandbox's routes), and with Python's threshold
    the collector walked them about 200 times, some 30 ms of a plan's 0.47 s of CPU
    (benchmarks/startup.py). Off puts back the thresholds that were set before."""
    global _enabled, _thresholds_before_enabled
    with _lock:
        if on and not _enabled:
            _thresholds_before_enabled = gc.get_threshold()
            gc.set_threshold(PLANNING_GC_THRESHOLD, *_thresholds_before_enabled[1:])
        elif not on and _enabled:
            gc.set_threshold(*_thresholds_before_enabled)
        _enabled = on


def enabled() -> bool:
    return _enabled


@contextmanager
def prompt_switching() -> Iterator[None]:
    """While inside, the switch interval is `SWITCH_INTERVAL_S` (when tuning is on): the event
    loop takes the interpreter lock promptly from a worker thread (`docform.worker_threads`).
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
    """Fewer cyclic garbage collections while planning (when tuning is on).

    Planning grows a heap of long-lived objects (the manifests, every live object as decoded
    JSON, each kind's matching: hundreds of thousands of them) that are garbage only at the
    end; with Python's default thresholds the collector walks it again and again as it grows
    (a quarter of the CPU time of a large plan). The objects alive before planning are frozen
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
    the older ones, whose walks blocked the event loop for 0.15 s in a large plan."""

    def run(*args: Any) -> None:
        step(*args)
        # A plan that failed may have ended while this ran in its worker thread.
        with _lock:
            if _planning_depth:
                gc.freeze()

    return run
