"""What a kind reads the live organization with: `LiveReader` (list and get calls, the objects
of the kinds read before it) over the `LiveState` read so far."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from docform.engine.client import ServiceClient
from docform.engine.objects import Desired
from docform.engine.one_copy import OneCopy
from docform.errors import DocformError, ServiceCallError

T = TypeVar("T")

Progress = Callable[[str, int], None]
"""Called with a kind's name and how many of its objects have been read so far."""

AHEAD = -1
"""The priority of the lists of kinds other reads wait for (0: the others; `docform.api.slots`)."""

Manages = Callable[[str, str], Desired | None]
"""The manifest entry (as its kind's `Desired`) that manages the live object of a kind (by
name) with an id, or None when none does."""


@dataclass
class LiveState:
    """The raw API objects of each kind, as read."""

    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    """Kinds the token may not read (the service answered 403, or refused the token's kind),
    each with why: their objects are unknown, not absent, so nothing is planned for them."""
    refused_kind: str | None = None
    """What the service refused to read to a token of this kind, which tells it is not a
    user's: the first such kind, as its plural names it
    (`docform.errors.ServiceCallError.refused_kind`)."""

    def of(self, kind: str) -> list[dict[str, Any]]:
        return self.objects.get(kind, [])


@dataclass(frozen=True)
class Earlier:
    """What planning read, for the read after an apply: an object the apply left alone need
    not have its parts read again (each team's members, one list per team), unless the apply
    changed a kind they refer to (a member removed from the organization leaves its teams)."""

    objects: Mapping[str, Mapping[str, Any]]
    """Live id -> the object as planning read it."""
    touched: frozenset[str]
    """Live ids of the objects the apply changed."""
    stale_kinds: frozenset[str]
    """Kinds whose every object is read again."""

    def unchanged(self, kind: str, live_id: str) -> Mapping[str, Any] | None:
        if kind in self.stale_kinds or live_id in self.touched:
            return None
        return self.objects.get(live_id)


class LiveReader:
    """What a kind's ``read`` may use: list and get calls, and the kinds read before it."""

    def __init__(
        self,
        client: ServiceClient,
        org_id: str,
        state: LiveState,
        progress: Progress | None = None,
        manages: Manages | None = None,
        awaited: frozenset[str] = frozenset(),
        earlier: Earlier | None = None,
    ) -> None:
        """``awaited``: kinds other kinds' reads wait for (`Kind.read_after`); their lists go
        before the calls already waiting, which no read waits for. ``earlier``: what planning
        read, when this is the read after an apply (`unchanged`)."""
        self._earlier = earlier
        self.client = client
        self.org_id = org_id
        self._state = state
        self._progress = progress
        self._manages = manages
        self._awaited = awaited
        self._counts: dict[str, int] = {}
        self._one_copy = OneCopy()

    # ``builtins.list`` below: inside this class, ``list`` is the method.
    async def list(
        self, kind: str, path: str, params: Mapping[str, Any] | None = None
    ) -> builtins.list[dict[str, Any]]:
        priority = AHEAD if kind in self._awaited else 0
        items = await self.client.list_all(path, dict(params or {}), priority=priority)
        self._count(kind, len(items))
        return items

    async def get_or_none(self, kind: str, path: str) -> dict[str, Any] | None:
        """One object, or None when the API answers 404."""
        try:
            obj: dict[str, Any] = await self.client.get(path)
        except ServiceCallError as exc:
            if exc.status == 404:
                return None
            raise
        self._count(kind, 1)
        return obj

    async def still_there(
        self,
        objects: builtins.list[dict[str, Any]],
        read_part: Callable[[dict[str, Any]], Awaitable[T]],
    ) -> builtins.list[tuple[dict[str, Any], T]]:
        """Each of ``objects`` with what ``read_part`` reads inside it, less those whose read
        answers 404: deleted between the list that showed them and this read (the twin its
        creator deletes while another apply reads the list), so they are not there."""
        parts = await asyncio.gather(*(_or_vanished(read_part, obj) for obj in objects))
        return [
            (obj, part)
            for obj, part in zip(objects, parts, strict=True)
            if not isinstance(part, _Gone)
        ]

    def one_copy(self, obj: dict[str, Any]) -> dict[str, Any]:
        """``obj`` (an object the service names by its ``object`` and ``id``), or the object
        of the same name this read met first when it is the same in every value
        (`docform.engine.one_copy`): what a kind's answers repeat of another's is held once."""
        return self._one_copy.of(obj)

    def unchanged(self, kind: str, live_id: str) -> Mapping[str, Any] | None:
        """The object as planning read it, when this read follows an apply that left it (and
        what it refers to) alone; else None: read it."""
        return self._earlier.unchanged(kind, live_id) if self._earlier else None

    @property
    def with_manifests(self) -> bool:
        """Whether this read plans manifests (export reads without: every object is wanted)."""
        return self._manages is not None

    def live(self, kind: str) -> builtins.list[dict[str, Any]]:
        return self._state.of(kind)

    def managed(self, kind: str) -> builtins.list[dict[str, Any]]:
        """The live objects of ``kind`` that manifest entries manage (all of them when reading
        without manifests, as export does): what lies inside the others is out of scope."""
        return [obj for obj, _ in self.managed_with_entries(kind)]

    def managed_with_entries(
        self, kind: str
    ) -> builtins.list[tuple[dict[str, Any], Desired | None]]:
        """`managed` with the `Desired` of the entry that manages each object, so a read can
        look at what the entry writes (a site without ``redirects:`` has none read); the entry
        is None for every object when reading without manifests."""
        if self._manages is None:
            return [(obj, None) for obj in self.live(kind)]
        found = [(obj, self._manages(kind, obj["id"])) for obj in self.live(kind)]
        return [(obj, desired) for obj, desired in found if desired is not None]

    def _count(self, kind: str, n: int) -> None:
        self._counts[kind] = self._counts.get(kind, 0) + n
        if self._progress:
            self._progress(kind, self._counts[kind])


class _Gone:
    """What `_or_vanished` gives for an object that answered 404."""


async def _or_vanished(
    read_part: Callable[[dict[str, Any]], Awaitable[T]], obj: dict[str, Any]
) -> T | _Gone:
    # The read is made here, once this runs: a read made beforehand and cancelled with the
    # plan before it started would never be awaited.
    try:
        return await read_part(obj)
    except ServiceCallError as exc:
        if exc.status == 404:
            return _Gone()
        raise


class ReadError(DocformError):
    """Live state could not be read completely, so no plan can be trusted."""
