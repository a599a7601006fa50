"""Planning one manifest set end to end: read the live state, matching each kind as soon as
it is read, then plan against it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docform.engine.apply import apply_plan
from docform.engine.duplicates import CreateGuard
from docform.engine.plan import Plan
from docform.engine.planner import plan_from_matcher
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.rails import (
    RailReport,
    check_caller,
    check_rails,
    checked_at_apply,
    enforce,
)
from docform.engine.snapshot import Progress, read_live_state
from docform.kinds.registry import build_kinds
from docform.workflow.apply_lock import apply_lock
from docform.workflow.connect import api_url, open_client
from docform.workflow.saved import secret_resolver
from docform.workflow.verify import verify_applied

PLANNING_GC_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation while planning (Python's
default is 700)."""

_planning_depth = 0
_saved_thresholds: tuple[int, ...] = ()


async def make_plan(
    manifests: Any, client: Any, *, progress: Progress | None = None, finishing: bool = False
) -> Plan:
    """The plan that makes the organization of ``manifests`` match them, read through ``client``.

    ``client`` should be read-only: planning never writes. ``finishing``: see `match_kind`.
    """
    org_id = manifests.organization.id
    kinds = build_kinds(org_id)
    with _collecting_rarely():
        locked = manifests.lock.ids_for(org_id)
        matcher = ProgressiveMatcher(kinds, manifests, finishing=finishing, locked=locked)
        wanted = {kind.name: matcher.pinned_ids(kind) for kind in kinds}
        live = await read_live_state(
            client, org_id, kinds, wanted, progress, matcher.kind_read, matcher.manages
        )
        prune = manifests.settings.prune.model_dump()
        plan = plan_from_matcher(matcher, manifests, live, org_id, prune)
    plan.requests = client.stats.requests if hasattr(client, "stats") else 0
    return plan


@contextmanager
def _collecting_rarely() -> Iterator[None]:
    """Fewer cyclic garbage collections while planning.

    Planning grows a heap of long-lived objects (every live object as decoded JSON, tens of
    thousands of them) that are garbage only at the end; with Python's default thresholds the
    collector walks it again and again as it grows (a quarter of the CPU time of a large
    plan). The objects alive before planning are frozen out of the collector's walks, and the
    young generation is collected every `PLANNING_GC_THRESHOLD` allocations; both are undone
    when the last concurrent plan ends, and garbage cycles are still collected, only later.
    """
    global _planning_depth, _saved_thresholds
    if _planning_depth == 0:
        _saved_thresholds = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(PLANNING_GC_THRESHOLD, *_saved_thresholds[1:])
    _planning_depth += 1
    try:
        yield
    finally:
        _planning_depth -= 1
        if _planning_depth == 0:
            gc.set_threshold(*_saved_thresholds)
            gc.unfreeze()


async def plan_manifests(manifests: Any, *, progress: Progress | None = None) -> tuple[Plan, Any]:
    """Plan with a read-only client of the manifests' API; returns the plan and call counts."""

    async with open_client(manifests, read_only=True) as client:
        plan = await make_plan(manifests, client, progress=progress)
    return plan, client.stats


def assess_rails(
    manifests: Any, plan: Plan, *, max_deletions: int | None = None, force: bool = False
) -> Any:
    """Evaluate every safety rail of ``plan`` as apply will, and record it in ``plan.rails``
    (a `RailReport`) for the renderings; returns it."""

    limits = manifests.settings.limits
    violations = check_rails(
        plan,
        max_deletions=limits.maxDeletions if max_deletions is None else max_deletions,
        max_share=limits.maxDeletionShare,
        live_counts=plan.live_counts,
        share_floor=limits.deletionShareFloor,
    )
    at_apply = checked_at_apply(plan, build_kinds(manifests.organization.id))
    plan.rails = RailReport(violations, forced=force, at_apply=at_apply)
    return plan.rails


def check_safety(
    manifests: Any, plan: Plan, *, max_deletions: int | None = None, force: bool = False
) -> list[Any]:
    """Every safety rail, before the first call: raises `RailError`, or returns the rails
    ``force`` bypassed (for apply to print)."""

    report = assess_rails(manifests, plan, max_deletions=max_deletions, force=force)
    return enforce(report.violations, force=force)


async def apply_changes(
    manifests: Any,
    plan: Plan,
    *,
    parallelism: int,
    on_event: Any = None,
    on_created: Any = None,
    on_start: Any = None,
    stop: Any = None,
) -> Any:
    """Run ``plan`` with a writing client of the manifests' API; returns the apply report.

    Call `check_safety` first: this runs whatever it is given. ``on_created``, ``on_event``,
    ``on_start`` and ``stop``: see `apply_plan`.
    """

    recover = recover_by_planning(manifests, lambda: open_client(manifests, read_only=True))
    with apply_lock(api_url(manifests), manifests.organization.id):
        async with open_client(manifests, read_only=False) as client:
            kinds = build_kinds(manifests.organization.id)
            caller = await check_caller(plan, kinds, client)
            enforce(caller.violations, force=False)
            guard = CreateGuard(plan, kinds, manifests, client)
            report = await apply_plan(
                plan.changes,
                client,
                parallelism=parallelism,
                resolve_secret=secret_resolver(manifests),
                on_event=on_event,
                recover=recover,
                on_created=on_created,
                before_create=guard.raced,
                on_start=on_start,
                stop=stop,
                kinds=kinds,
            )
            report.notes += caller.notes
        if report.ok:
            report.verification = await verify_by_reading(manifests, plan, report.done)
    return report


async def verify_by_reading(manifests: Any, plan: Plan, applied: Any) -> Any:
    """What a read after the apply of ``plan`` finds still to change in the kinds ``applied``
    changed (`docform.workflow.verify`), read with a read-only client of the manifests' API."""

    async with open_client(manifests, read_only=True) as client:
        kinds = build_kinds(manifests.organization.id)
        return await verify_applied(
            manifests,
            client,
            kinds,
            applied,
            targeting=plan.targeting,
            locked=plan.identities,
        )


def recover_by_planning(manifests: Any, reader: Any) -> Any:
    """For a create whose answer was lost: plan again (with the client ``reader()`` opens)
    and return the object if it now exists, in the shape its create call answers."""
    id_paths = {k.name: k.created_id for k in build_kinds(manifests.organization.id)}

    async def recover(change: Any) -> Any:
        async with reader() as client:
            fresh = await make_plan(manifests, client, finishing=True)
        found = fresh.live_objects.get(change.address)
        return None if found is None else as_create_answer(found, id_paths[change.kind])

    return recover


def as_create_answer(live: dict[str, Any], id_path: str) -> dict[str, Any]:
    """A live object in the shape its create call answers, so placeholders find its id
    (an invite answers ``{"users": [id]}``, not the member)."""
    if id_path == "id":
        return live
    head, *rest = id_path.split(".")
    value: Any = live["id"]
    for part in reversed(rest):
        value = [value] if part.isdigit() else {part: value}
    return {**live, head: value}
