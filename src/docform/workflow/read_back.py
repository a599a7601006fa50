"""After an apply: the reads that tell whether it converged, each with a read-only client of
its own. The kinds the apply touched are planned again (`docform.workflow.verify`) from what of
planning's read stays true and what is read anew; the audience each changed object ended up
with is held to the plan's prediction (`docform.workflow.audience`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from docform.engine.apply import ApplyReport
from docform.engine.kind import Kind
from docform.engine.live import Earlier
from docform.engine.plan import Change, Plan
from docform.kind_registry import build_kinds
from docform.manifest import ManifestSet
from docform.workflow.audience import audience_differences, audience_notes, unread_notes
from docform.workflow.connect import OpenClient, open_client
from docform.workflow.verify import Verification, earlier_read, verify_applied


async def read_after_apply(
    manifests: ManifestSet,
    plan: Plan,
    report: ApplyReport,
    created: Mapping[str, str],
    connect: OpenClient,
) -> Verification:
    """`verify_by_reading` of the changes ``report`` made, once ``plan`` has let go of what
    planning read but for what stays true of it (`earlier_read`)."""
    earlier = stays_true(manifests, plan, build_kinds(manifests.organization.id), report.done)
    plan.release_reads()
    verification = await verify_by_reading(
        manifests, plan, report.done, created, connect=connect, earlier=earlier
    )
    # What the service took but has not made is still planned, as the report says.
    waiting = {change.key for change, _ in report.pending}
    verification.remaining = [c for c in verification.remaining if c.key not in waiting]
    return verification


async def verify_by_reading(
    manifests: ManifestSet,
    plan: Plan,
    applied: Sequence[Change],
    created: Mapping[str, str] | None = None,
    *,
    connect: OpenClient | None = None,
    earlier: Earlier | None = None,
) -> Verification:
    """What a read after the apply of ``plan`` finds still to change in the kinds ``applied``
    changed (`docform.workflow.verify`), read with a read-only client of the manifests' API
    (or the one ``connect`` opens). ``earlier``: what of planning's read stays true
    (`earlier_read`), worked out from ``plan`` when not given."""

    client = connect(True) if connect else open_client(manifests, read_only=True)
    # The verification plans from each answer as it comes; a recording would hold them all
    # until the client closes.
    client.reads.keeping = False
    async with client:
        kinds = build_kinds(manifests.organization.id)
        if earlier is None:
            earlier = stays_true(manifests, plan, kinds, applied)
        return await verify_applied(
            manifests,
            client,
            kinds,
            applied,
            targeting=plan.targeting,
            locked={**plan.identities, **(created or {}), **recorded_by(applied)},
            sources=sources_after(plan, applied),
            earlier=earlier,
            also_read=read_for_doors(plan),
        )


def stays_true(
    manifests: ManifestSet, plan: Plan, kinds: Sequence[Kind], applied: Sequence[Change]
) -> Earlier | None:
    """What of planning's read stays true after ``applied`` (`earlier_read`)."""
    return earlier_read(manifests, kinds, plan.live_objects, applied, read_for_doors(plan))


def read_for_doors(plan: Plan) -> Collection[str]:
    """The kinds a read after the apply reads too, to tell the doors the plan predicted."""
    return plan.doors.kinds if plan.doors else ()


async def read_back_audience(
    manifests: ManifestSet,
    plan: Plan,
    ids: dict[str, str],
    *,
    connect: OpenClient | None = None,
) -> list[str]:
    """The audience each object the plan changed ended up with, held to the prediction
    (`docform.workflow.audience`), read with a read-only client (or the one ``connect``
    opens)."""
    if not plan.audience:
        return []
    client = connect(True) if connect else open_client(manifests, read_only=True)
    # Nothing is planned from these reads, and each names every member who reaches an object.
    client.reads.keeping = False
    async with client:
        kinds = build_kinds(manifests.organization.id)
        read, differences = await audience_differences(client, kinds, plan.audience, ids)
    return audience_notes(read, differences) + unread_notes(plan.audience, ids)


def sources_after(plan: Plan, applied: Sequence[Change]) -> dict[str, dict[str, str]]:
    """The secret sources docform.lock records once the ``applied`` changes are made."""
    done = {c.address for c in applied}
    sent = {a: s for a, s in plan.secret_sources.items() if a in done}
    return {**plan.kept_sources, **sent}


def recorded_by(applied: Sequence[Change]) -> dict[str, str]:
    """What the ``applied`` changes record in docform.lock beyond the plan's ids (a rotation)."""
    return {c.address: c.lock_after for c in applied if c.lock_after is not None}
