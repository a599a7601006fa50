"""An apply plans nothing from what it reads (the caller's check, each create's look for a
twin made at the same time): its clients keep none of those answers, which for the guard of
each create is the kind's whole list."""

from __future__ import annotations

import asyncio
from pathlib import Path

from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import _apply_with, make_plan
from planning import seeded_sandbox, write_manifests

MANIFESTS = """
organization: {id: org_acme}
spaces:
  one: {title: One}
  two: {title: Two}
"""


def test_the_apply_s_writing_client_keeps_none_of_its_reads(tmp_path: Path) -> None:
    sandbox = seeded_sandbox(tmp_path)
    manifests = load_manifest_set(write_manifests(tmp_path / "m", MANIFESTS))
    opened: list[Client] = []

    def connect(read_only: bool) -> Client:
        opened.append(Client(f"sandbox:{sandbox}", read_only=read_only))
        return opened[-1]

    async def applied() -> int:
        async with Client(f"sandbox:{sandbox}", read_only=True) as reader:
            plan = await make_plan(manifests, reader)
        report = await _apply_with(
            manifests, plan, 1, connect, False, None, None, None, None, alone=False
        )
        return len(report.done)

    assert asyncio.run(applied()) == 2
    writer = next(client for client in opened if not client.read_only)
    assert writer.stats.by_route, "the apply read nothing"
    assert writer.stats.requests > 2  # the two creates and the reads before them
    assert len(writer.reads) == 0
