"""Reading the live organization: every kind's lists, concurrently.

A kind that lists per parent (sections per site) names the parent kind in ``read_after``; it
starts as soon as those kinds are read, not when every other kind is (a site's sections need
not wait for the members of a thousand teams). A read that fails raises, and stops the others:
nothing read in part is ever taken for "absent". The one exception is a kind the token may not
read at all (403, or 401 where the service takes a user's token only and this one is another
kind's): it is recorded as unreadable, with the kinds read after it, and the planner plans
nothing for them (a reader's token plans the rest; an admin's plans everything).
"""

from __future__ import annotations

import asyncio
import graphlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from docform.engine.client import ServiceClient
from docform.engine.kind import Kind
from docform.engine.live import Earlier, LiveReader, LiveState, Manages, Progress, ReadError
from docform.errors import ServiceCallError
from docform.runtime import beside_the_loop

KindRead = Callable[[Kind, list[dict[str, Any]]], None]
"""Called with a kind and all its live objects as soon as they are read, while other kinds
may still be reading (the planner matches it then); in a worker thread (a small organization's
on the event loop: `beside_the_loop`), one kind at a time or several at once, so it must hold
its own lock."""

BeforeRead = Callable[[Kind], Awaitable[None]]
"""Awaited before a kind's read starts, after the kinds of its ``read_after`` are read (the
planner waits there for the manifests a read needs)."""


async def read_live_state(
    client: ServiceClient,
    org_id: str,
    kinds: Sequence[Kind],
    wanted_ids: Mapping[str, Sequence[str]],
    progress: Progress | None = None,
    on_kind_read: KindRead | None = None,
    manages: Manages | None = None,
    before_read: BeforeRead | None = None,
    earlier: Earlier | None = None,
) -> LiveState:
    """Every kind's live objects; ``on_kind_read`` gets each kind's as soon as they are in,
    ``manages`` tells reads per parent which parents are in scope (`LiveReader.managed`), and
    ``before_read`` may hold a kind's read back (`BeforeRead`); ``earlier``: what planning read,
    for the read after an apply (`LiveReader.unchanged`)."""
    state = LiveState()
    names = {kind.name for kind in kinds}
    awaited = frozenset(name for kind in kinds for name in kind.read_after if name in names)
    reader = LiveReader(client, org_id, state, progress, manages, awaited, earlier)
    tasks: dict[str, asyncio.Task[None]] = {}

    async def read_one(kind: Kind) -> None:
        await asyncio.gather(*(tasks[name] for name in kind.read_after if name in names))
        if before_read is not None:
            await before_read(kind)
        state.objects[kind.name] = await _read_kind(
            kind, reader, wanted_ids.get(kind.name, ()), state
        )
        if on_kind_read is not None:
            # In a worker thread once the organization is not small: matching ten thousand
            # objects on the event loop would hold every answer and every next request back
            # until it is done; from a thread, the loop takes its turn at each switch of the
            # interpreter lock (`beside_the_loop`).
            read = sum(len(objects) for objects in state.objects.values())
            await beside_the_loop(read, on_kind_read, kind, state.objects[kind.name])

    for kind in (kind for wave in read_waves(kinds) for kind in wave):
        tasks[kind.name] = asyncio.ensure_future(read_one(kind))
    try:
        await asyncio.gather(*tasks.values())
    finally:
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        # A failed read's traceback holds this frame, and so the tasks, until the collector's
        # next full walk: every task of the process is walked at the end of each asyncio.run.
        tasks.clear()
    state.objects = {kind.name: state.objects[kind.name] for kind in kinds}
    return state


async def _read_kind(
    kind: Kind, reader: LiveReader, wanted: Sequence[str], state: LiveState
) -> list[dict[str, Any]]:
    """The live objects of ``kind``; none, recorded in ``state.unreadable``, when the token may
    not read them or a kind they are read after."""
    unreadable = state.unreadable
    plural = kind.plural
    blocked = [name for name in kind.read_after if name in unreadable]
    if blocked:
        unreadable[kind.name] = f"{plural}: read after {', '.join(blocked)}, not read"
        return []
    try:
        return await kind.read(reader, wanted)
    except ServiceCallError as exc:
        if exc.denied and not kind.read_required:
            unreadable[kind.name] = f"{plural}: the token may not read them ({exc})"
            if exc.refused_kind and state.refused_kind is None:
                state.refused_kind = plural
            return []
        raise ReadError(
            f"reading the live {kind.plural} failed, so no plan was made: {exc}"
        ) from None


def read_waves(kinds: Sequence[Kind]) -> list[list[Kind]]:
    """Kinds grouped so that each group only needs groups before it, each in ``kinds``' order.

    Raises `ReadError` naming the cycle when kinds wait on each other (``read_after``)."""
    position = {kind.name: i for i, kind in enumerate(kinds)}
    sorter = graphlib.TopologicalSorter(
        {kind.name: [n for n in kind.read_after if n in position] for kind in kinds}
    )
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        cycle = " -> ".join(exc.args[1])
        raise ReadError(f"kinds wait on each other to be read: {cycle}") from None
    waves: list[list[Kind]] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        sorter.done(*ready)
        waves.append([kinds[position[name]] for name in ready])
    return waves
