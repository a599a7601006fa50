"""Why a plan is not the one a reviewer approved by its checksum, said so that the person
reading the refusal knows what was never reviewed and how to go on.

`apply --checksum` only knows the approved checksum. Still, when the fresh plan without some
of its changes (with what needs them) has exactly that checksum, those are the changes the
review did not show, and they are named: all the changes of a few kinds (a review planned by a
token that may not read them, a read-role token and SAML providers), or one change (a change
made outside the manifests that the plan would revert). The checksum alone cannot say which
of the two causes it was; the refusal gives the way on for each. Otherwise, with the reviewed
plan itself (`apply --reviewed FILE`, a `plan --out` of the review whose own checksum is the
approved one), each change it lacks, each it held that is gone or planned differently, and
each live object changed since are named.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

from docform.engine.fingerprints import digest
from docform.engine.plan import Change, Plan, prints_sent

WAY_ON = "docs/ci.md, 'When the reviewed plan no longer applies'"
SUBSETS_TRIED_WHOLE = 8
"""Up to this many kinds with changes, every set of them is tried; above, one or two."""


def refusal(
    fresh: Plan, approved: str, reviewed: Path | None, resolve: Callable[[str], str]
) -> str:
    """The message refusing ``fresh``, whose checksum is not ``approved``."""
    head = (
        f"the plan's checksum is {fresh.checksum()}, not the approved {approved}: it is not the "
        "plan that was reviewed, so nothing was applied"
    )
    if reviewed is not None:
        named = _named_differences(fresh, approved, reviewed, resolve)
        if named:
            return f"{head}. {named}"
    extra = unreviewed_changes(fresh, approved)
    if extra is not None:
        kinds = ", ".join(sorted({change.kind for change in extra}))
        return (
            f"{head}. The plan now also makes these changes, which the reviewed plan did not: "
            f"{_listed(extra)}; everything else is as reviewed. Either the review was partial, "
            f"planned by a token that may not read {kinds} (its plan said so under 'Not "
            "planned'): review these changes in the plan above, then apply it by its checksum "
            f"{fresh.checksum()} by hand; or they come from a change since the review: a "
            "merge, or a change made outside the manifests that the plan would revert (keep "
            f"that one with 'docform adopt'), then re-plan and review ({WAY_ON})"
        )
    return (
        f"{head}. The plan above is what the manifests make now: a change in it that the review "
        "did not show comes from a merge since the review, or reverts a change made outside "
        "the manifests (keep that one with 'docform adopt'); re-plan and review, or apply the "
        f"plan above by its checksum once reviewed ({WAY_ON}). With the reviewed plan saved "
        "('plan --out'), 'apply --reviewed FILE' names each difference"
    )


def unreviewed_changes(fresh: Plan, approved: str) -> list[Change] | None:
    """The changes ``fresh`` makes beyond the plan with checksum ``approved``, when leaving
    them out (with what needs them) gives exactly that plan: all the changes of a few kinds
    (what a token that may not read them leaves out), or a single change (one reverted hand
    change). None when no such set is found."""
    documents = [(change, change.to_json()) for change in fresh.changes]
    rest = fresh.body()
    rest.pop("secret_fingerprints", None)

    def without(dropped: set[str]) -> bool:
        kept = [document for change, document in documents if change.key not in dropped]
        return bool(dropped) and _checksum(rest, fresh.secret_prints, kept) == approved

    kinds = sorted({change.kind for change in fresh.changes})
    sizes = range(1, len(kinds) + 1) if len(kinds) <= SUBSETS_TRIED_WHOLE else range(1, 3)
    candidates = [
        _dropped(fresh.changes, kinds=set(chosen))
        for size in sizes
        for chosen in combinations(kinds, size)
    ]
    candidates += [_dropped(fresh.changes, keys={change.key}) for change in fresh.changes]
    for dropped in candidates:
        if without(dropped):
            return [change for change in fresh.changes if change.key in dropped]
    return None


def _dropped(
    changes: Sequence[Change], kinds: set[str] | None = None, keys: set[str] | None = None
) -> set[str]:
    """The keys of the changes of ``kinds`` (or with ``keys``) and of those that need one, as
    planning drops them for kinds it could not read (changes come in dependency order)."""
    dropped: set[str] = set()
    for change in changes:
        chosen = change.kind in (kinds or set()) or change.key in (keys or set())
        if chosen or dropped.intersection(change.depends_on):
            dropped.add(change.key)
    return dropped


def _checksum(
    rest: dict[str, Any], secret_prints: dict[str, str], changes: list[dict[str, Any]]
) -> str:
    """The checksum of the plan whose body is ``rest`` with only ``changes``."""
    body = {**rest, "changes": changes}
    prints = prints_sent(secret_prints, changes)
    if prints:
        body["secret_fingerprints"] = prints
    return digest(body)


def _listed(changes: Sequence[Change]) -> str:
    return ", ".join(f"{change.address} ({change.action})" for change in changes)


def _named_differences(
    fresh: Plan, approved: str, reviewed: Path, resolve: Callable[[str], str]
) -> str | None:
    """Each difference between ``fresh`` and the reviewed plan saved at ``reviewed``, or None
    when that file is not the approved plan (then it says nothing about the review)."""
    from docform.workflow.receipt import differences
    from docform.workflow.saved import load_plan

    saved_plan, document = load_plan(reviewed)
    if saved_plan.checksum() != approved:
        return None
    found = differences(document, fresh, resolve)
    unread = [str(item.get("kind")) for item in document.get("not_planned") or []]
    partial = (
        f"The review was partial: the token that planned it may not read {', '.join(unread)}. "
        if unread
        else ""
    )
    return (
        f"{partial}Compared with the reviewed plan ({reviewed}): " + "; ".join(found) + ". "
        "A live object changed since the review is a change made outside the manifests, "
        "which the plan would revert: keep it with 'docform adopt', or re-plan and review "
        f"({WAY_ON})"
    )
