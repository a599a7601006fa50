"""A client that answers a rehearsal's second plan from the recorded answers a twin still gives
as they were (`docform_sandbox.twin.Twin.kept`), and reads everything else from the twin.

Reading an answer the rehearsed calls left as it was again from the twin would give it back
unchanged, in every field docform reads: the twin tells which those are from what each write
touched, and the answers any call changed are read from the twin, so the second plan still
sees everything the calls did.

An answer read again is mostly what was recorded (a list of members of which the calls changed
a few): each part of it equal to the recorded part, in value and in JSON type, is handed back
as the recorded part itself (`docform.engine.one_copy.shared_with`), so that the second plan
does not hold a second copy of what the first plan holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from docform.engine.client import ServiceClient
from docform.engine.one_copy import shared_with


def _key(path: str, query: Mapping[str, Any] | None, listed: bool) -> tuple[str, str, bool]:
    return "/" + path.lstrip("/"), json.dumps(dict(query or {}), sort_keys=True), listed


class KeptAnswers:
    """A `ServiceClient` over ``client`` giving the recorded ``kept`` answers
    (`docform.api.recording.RecordedRead`) as they were, and sharing what the answers it reads
    have in common with the ``recorded`` ones of the same request."""

    def __init__(
        self, client: ServiceClient, kept: Iterable[Any], recorded: Iterable[Any] = ()
    ) -> None:
        self._client = client
        self._kept = {_key(read.path, read.query, read.listed): read.body for read in kept}
        self._recorded = {_key(read.path, read.query, read.listed): read.body for read in recorded}

    async def get(self, path: str, *, params: Mapping[str, Any] | None = None) -> Any:
        key = _key(path, params, False)
        if key in self._kept:
            return self._kept[key]
        answer = await self._client.get(path, params=params)
        return shared_with(answer, self._recorded.get(key))

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list[dict[str, Any]]:
        key = _key(path, params, True)
        if key in self._kept:
            return list(self._kept[key]["items"])
        items = await self._client.list_all(path, params, priority=priority)
        recorded = self._recorded.get(key)
        # A list of its own, as a kept one is: a kind may rearrange the list it is given.
        return list(shared_with(items, recorded["items"])) if recorded is not None else items

    async def answered(
        self, method: str, path: str, *, json: Any = None, retry: bool | None = None
    ) -> tuple[int, Any]:
        return await self._client.answered(method, path, json=json, retry=retry)

    async def pause(self, seconds: float) -> None:
        await self._client.pause(seconds)
