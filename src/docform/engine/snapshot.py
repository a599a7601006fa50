"""Reading the live organization: every kind's lists, concurrently.

A kind that lists per parent (sections per site) names the parent kind in ``read_after``; it
starts as soon as those kinds are read, not when every other kind is (a site's sections need
not wait for the members of a thousand teams). A read that fails raises, and stops the others:
nothing read in part is ever taken for "absent".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docform.engine.kind import Kind
from docform.errors import DocformError

Progress = Callable[[str, int], None]
"""Called with a kind's name and how many of its objects have been read so far."""

Manages = Callable[[str, str], bool]
"""Whether a manifest entry manages the live object of a kind (by name) with an id."""

KindRead = Callable[[Kind, list[dict[str, Any]]], None]
"""Called with a kind and all its live objects as soon as they are read, while other kinds
may still be reading (the planner matches it then)."""


class ReadError(DocformError):
    """Live state could not be read completely, so no plan can be trusted."""


@dataclass
class LiveState:
    """The raw API objects of each kind, as read."""

    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return self.objects.get(kind, [])


class LiveReader:
    """What a kind's ``read`` may use: list and get calls, and the kinds read before it."""

    def __init__(
        self,
        client: Any,
        org_id: str,
        state: LiveState,
        progress: Progress | None = None,
        manages: Manages | None = None,
    ) -> None:
        self.client = client
        self.org_id = org_id
        self._state = state
        self._progress = progress
        self._manages = manages
        self._counts: dict[str, int] = {}

    async def list(self, kind: str, path: str, params: Mapping[str, Any] | None = None) -> list:
        items = await self.client.list_all(path, dict(params or {}))
        self._count(kind, len(items))
        return items

    async def get_or_none(self, kind: str, path: str) -> dict[str, Any] | None:
        """One object, or None when the API answers 404."""
        from docform.api import ApiError

        try:
            obj = await self.client.get(path)
        except ApiError as exc:
            if getattr(exc, "status", None) == 404:
                return None
            raise
        self._count(kind, 1)
        return obj

    def live(self, kind: str) -> list[dict[str, Any]]:
        return self._state.of(kind)

    def managed(self, kind: str) -> list[dict[str, Any]]:
        """The live objects of ``kind`` that manifest entries manage (all of them when reading
        without manifests, as export does): what lies inside the others is out of scope."""
        if self._manages is None:
            return self.live(kind)
        return [obj for obj in self.live(kind) if self._manages(kind, obj["id"])]

    def _count(self, kind: str, n: int) -> None:
        self._counts[kind] = self._counts.get(kind, 0) + n
        if self._progress:
            self._progress(kind, self._counts[kind])


async def read_live_state(
    client: Any,
    org_id: str,
    kinds: Sequence[Kind],
    wanted_ids: Mapping[str, Sequence[str]],
    progress: Progress | None = None,
    on_kind_read: KindRead | None = None,
    manages: Manages | None = None,
) -> LiveState:
    """Every kind's live objects; ``on_kind_read`` gets each kind's as soon as they are in, and
    ``manages`` tells reads per parent which parents are in scope (`LiveReader.managed`)."""
    state = LiveState()
    reader = LiveReader(client, org_id, state, progress, manages)
    names = {kind.name for kind in kinds}
    tasks: dict[str, asyncio.Task[None]] = {}

    async def read_one(kind: Kind) -> None:
        await asyncio.gather(*(tasks[name] for name in kind.read_after if name in names))
        state.objects[kind.name] = await _read_kind(kind, reader, wanted_ids.get(kind.name, ()))
        if on_kind_read is not None:
            on_kind_read(kind, state.objects[kind.name])

    for kind in (kind for wave in read_waves(kinds) for kind in wave):
        tasks[kind.name] = asyncio.ensure_future(read_one(kind))
    try:
        await asyncio.gather(*tasks.values())
    finally:
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
    state.objects = {kind.name: state.objects[kind.name] for kind in kinds}
    return state


async def _read_kind(kind: Kind, reader: LiveReader, wanted: Sequence[str]) -> list[dict]:
    from docform.api import ApiError

    try:
        return await kind.read(reader, wanted)
    except ApiError as exc:
        raise ReadError(
            f"reading the live {kind.name}s failed, so no plan was made: {exc}"
        ) from None


def read_waves(kinds: Sequence[Kind]) -> list[list[Kind]]:
    """Kinds grouped so that each group only needs groups before it."""
    names = {k.name for k in kinds}
    done: set[str] = set()
    waves: list[list[Kind]] = []
    remaining = list(kinds)
    while remaining:
        wave = [k for k in remaining if all(d in done or d not in names for d in k.read_after)]
        if not wave:
            raise ReadError(
                "kinds wait on each other to be read: " + ", ".join(k.name for k in remaining)
            )
        waves.append(wave)
        done.update(k.name for k in wave)
        remaining = [k for k in remaining if k not in wave]
    return waves
