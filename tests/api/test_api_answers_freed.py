"""An answer docform has read is freed as soon as nothing holds it, without the garbage
collector: httpx's stream of an answer refers back to the answer, and the collector walks the
heap a plan leaves behind so rarely that every body read would wait there (api/limits.py)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from docform.workflow.connect import Client
from planning import seeded_sandbox

READS = 5


@contextmanager
def collector_off() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def answers_alive() -> set[int]:
    """The answers the collector tracks: alive, or garbage waiting for it."""
    return {id(o) for o in gc.get_objects() if isinstance(o, httpx.Response)}


def test_answers_of_the_sandbox_are_freed_once_read(tmp_path: Path) -> None:
    sandbox = seeded_sandbox(tmp_path)

    async def read() -> set[int]:
        async with Client(f"sandbox:{sandbox}", read_only=True) as client:
            client.reads.keeping = False
            for _ in range(READS):
                await client.get("/orgs/org_acme")
                await client.list_all("/orgs/org_acme/members")
            return answers_alive()

    with collector_off():
        before = answers_alive()
        assert asyncio.run(read()) <= before


async def _in_chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), 7):
        yield body[start : start + 7]


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_answers_of_either_framing_are_freed_once_read(framing: str) -> None:
    body = b'{"id": "u_1", "displayName": "Ada"}'

    def answer(request: httpx.Request) -> httpx.Response:
        if framing == "chunked":
            headers = {"transfer-encoding": "chunked"}
            return httpx.Response(200, headers=headers, content=_in_chunks(body))
        return httpx.Response(200, content=body)

    async def read() -> set[int]:
        transport = httpx.MockTransport(answer)
        async with Client("https://api.example.test", "token", transport=transport) as client:
            for _ in range(READS):
                assert (await client.get("/user"))["id"] == "u_1"
            return answers_alive()

    with collector_off():
        before = answers_alive()
        assert asyncio.run(read()) <= before
