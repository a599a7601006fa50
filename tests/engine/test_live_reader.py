"""`docform.engine.live.LiveReader`: reading the parts of objects a list showed."""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any, cast

import pytest

from docform.engine.client import ServiceClient
from docform.engine.live import LiveReader, LiveState


def test_reads_of_parts_cancelled_before_they_start_leave_no_read_unawaited() -> None:
    """A plan that fails while a kind reads the parts of its objects (each team's members)
    cancels those reads, some before they ever ran: none may be left made and never awaited."""
    started: list[str] = []

    async def read_part(obj: dict[str, Any]) -> dict[str, Any]:
        started.append(obj["id"])
        return obj

    async def cancelled_at_once() -> None:
        # The client is never called: the parts are read by read_part.
        reader = LiveReader(cast(ServiceClient, None), "org", LiveState())
        reading = asyncio.ensure_future(reader.still_there([{"id": "a"}, {"id": "b"}], read_part))
        await asyncio.sleep(0)  # still_there reaches its gather; the reads are not started
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(cancelled_at_once())
        gc.collect()

    assert started == []
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
