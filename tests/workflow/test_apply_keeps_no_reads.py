"""An apply plans nothing from what it reads (the caller's check, each create's look for a
twin made at the same time): its clients keep none of those answers, which for the guard of
each create is the kind's whole list. And once its calls are made, the plan keeps none of
what planning read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from docform.engine.apply import ApplyReport
from docform.engine.plan import Plan
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


def test_once_its_calls_are_made_the_plan_lets_go_of_what_planning_read(tmp_path: Path) -> None:
    """The read after the apply plans the kinds it changed again: the first plan's answers and
    live objects would be a second organization held beside that one."""
    sandbox = seeded_sandbox(tmp_path)
    manifests = load_manifest_set(write_manifests(tmp_path / "m", MANIFESTS))

    def connect(read_only: bool) -> Client:
        return Client(f"sandbox:{sandbox}", read_only=read_only)

    async def applied() -> tuple[Plan, ApplyReport]:
        async with Client(f"sandbox:{sandbox}", read_only=True) as reader:
            plan = await make_plan(manifests, reader)
        assert plan.reads and plan.live_objects and plan.matchings
        report = await _apply_with(
            manifests, plan, 1, connect, True, None, None, None, None, alone=False
        )
        return plan, report

    plan, report = asyncio.run(applied())
    assert report.ok and report.verification.settled
    assert (plan.reads, plan.live_objects, dict(plan.fingerprints)) == (None, {}, {})
    assert (plan.matchings, plan.unmatched_objects) == ([], {})
    assert [c.key for c in plan.changes] == ["space.one#create", "space.two#create"]
