"""Whether a plan may be applied: the safety rails and the organization's policies, judged as
apply will judge them, for the plan's renderings and before apply's first call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypedDict

from docform import runtime
from docform.engine.plan import Plan
from docform.engine.rails import (
    RailReport,
    Violation,
    accepted_by,
    check_rails,
    checked_at_apply,
    enforce,
)
from docform.kind_registry import build_kinds
from docform.manifest import ManifestSet
from docform.policies.evaluate import evaluate_policies
from docform.policies.inputs import planned_inputs
from docform.policies.results import ORGANIZATION, PolicyResult


class RailOptions(TypedDict, total=False):
    """What a command says of the safety rails and policies: the keywords `assess_rails` and
    `check_safety` take (``--max-deletions``, ``--force``, ``--allow``, ``--label``)."""

    max_deletions: int | None
    force: bool
    allow: Sequence[str]
    labels: Sequence[str]


def assess_rails(
    manifests: ManifestSet,
    plan: Plan,
    *,
    max_deletions: int | None = None,
    force: bool = False,
    allow: Sequence[str] = (),
    labels: Sequence[str] = (),
    policies_on_live: bool = False,
) -> RailReport:
    """Evaluate every safety rail of ``plan`` as apply will, and the manifests' policies
    (``labels``: the pull request's, which rules may read), and record them in ``plan.rails``
    (a `RailReport`) and ``plan.policies`` for the renderings; returns the rails. ``allow``:
    ``--allow RAIL:ADDRESS``. ``policies_on_live`` (drift): policies judge the live
    organization, and are no rail."""

    limits = manifests.settings.limits
    violations = check_rails(
        plan,
        max_deletions=limits.maxDeletions if max_deletions is None else max_deletions,
        max_share=limits.maxDeletionShare,
        live_counts=plan.live_counts,
        share_floor=limits.deletionShareFloor,
    )
    violations += assess_policies(manifests, plan, labels, as_live=policies_on_live)
    at_apply = checked_at_apply(plan, build_kinds(manifests.organization.id))
    allowed = list(dict.fromkeys(allow))
    accepted, unused = accepted_by(allowed, violations, plan)
    report = RailReport(
        violations,
        forced=force,
        at_apply=at_apply,
        allowed=allowed,
        accepted=accepted,
        unused=unused,
    )
    plan.rails = report
    return report


def assess_policies(
    manifests: ManifestSet, plan: Plan, labels: Sequence[str], *, as_live: bool = False
) -> list[Violation]:
    """Evaluate the manifests' policies over ``plan`` into ``plan.policies``; a policy that
    denies (or cannot be evaluated) is a rail no ``--force`` bypasses, unless ``as_live``."""
    if not manifests.policies:
        return []
    inputs = planned_inputs(plan, labels, as_live=as_live)
    # Like planning, evaluating builds many objects among the plan's large heap.
    with runtime.collecting_rarely():
        plan.policies = evaluate_policies(list(manifests.policies.values()), inputs)
    plan.policies.results = located(plan.policies.results, manifests)
    return [] if as_live else [_policy_violation(r) for r in plan.policies.blocking]


def _policy_violation(result: PolicyResult) -> Violation:
    """A policy that denies is a rail ``--force`` never bypasses, but ``--allow
    policy.NAME:ADDRESS`` may accept for the object it names."""
    address = None if result.address == ORGANIZATION else result.address
    return Violation(
        f"policy.{result.policy}",
        _policy_message(result),
        forceable=False,
        address=address or "organization",
        acceptable=not result.error,
    )


def _policy_message(result: PolicyResult) -> str:
    where = "" if result.address == ORGANIZATION else f"{result.address}: "
    return f"{where}{result.message} ({result.places()})"


def located(results: Sequence[PolicyResult], manifests: ManifestSet) -> list[PolicyResult]:
    """``results`` each with where its entry is written, when the manifests write one."""
    if not results:
        return []
    written = {entry.address: str(entry.location) for entry in manifests.entries()}
    return [replace(r, entry_location=written.get(r.address)) for r in results]


def check_safety(
    manifests: ManifestSet,
    plan: Plan,
    *,
    max_deletions: int | None = None,
    force: bool = False,
    allow: Sequence[str] = (),
    labels: Sequence[str] = (),
) -> list[Violation]:
    """Every safety rail, before the first call: raises `RailError`, or returns the rails
    ``force`` bypassed and ``allow`` accepted (for apply to print)."""

    report = assess_rails(
        manifests, plan, max_deletions=max_deletions, force=force, allow=allow, labels=labels
    )
    return enforce(report)
