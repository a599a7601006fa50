"""Safety rails: checks every plan passes before apply makes its first call.

Each rail names what it protects and how to override it. ``--force`` bypasses the deletion
limits and the kinds' own rails (an organization left without an admin, a team without an
owner), and apply prints each rail it bypassed; ``protect: true`` is never bypassed: remove it
from the entry first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docform.api.paths import UnsafePathError, path_segments
from docform.engine.plan import Plan
from docform.errors import DocformError

SHARE_FLOOR = 10
"""The share limit applies only to kinds with at least this many live objects."""


class RailError(DocformError):
    """The plan breaks a safety rail; nothing was applied."""


@dataclass(frozen=True)
class Violation:
    rail: str
    message: str
    forceable: bool = True

    def __str__(self) -> str:
        return f"[{self.rail}] {self.message}"


def check_rails(
    plan: Plan, *, max_deletions: int, max_share: float, live_counts: Mapping[str, int]
) -> list[Violation]:
    """Every rail the plan breaks (deletion limits here; protect and kind rails come from
    planning, in ``plan.violations``)."""
    found = list(plan.violations) + scope_violations(plan)
    deletes = [c for c in plan.changes if c.action == "delete"]
    if len(deletes) > max_deletions:
        found.append(
            Violation(
                "max-deletions",
                f"the plan deletes {len(deletes)} objects, more than the {max_deletions} "
                "allowed per apply (--max-deletions N or limits.maxDeletions raises it)",
            )
        )
    found += _share_violations(deletes, max_share, live_counts)
    return found


def _share_violations(
    deletes: Sequence, max_share: float, live_counts: Mapping[str, int]
) -> list[Violation]:
    found = []
    for kind, count in sorted(Counter(c.kind for c in deletes).items()):
        existing = live_counts.get(kind, 0)
        if existing >= SHARE_FLOOR and count / existing > max_share:
            found.append(
                Violation(
                    "max-deletion-share",
                    f"the plan deletes {count} of {existing} {kind} objects "
                    f"({count / existing:.0%}), over the {max_share:.0%} allowed "
                    "(limits.maxDeletionShare raises it)",
                )
            )
    return found


def enforce(violations: Sequence[Violation], *, force: bool) -> list[Violation]:
    """Raise unless every violation may be and is forced; returns the ones bypassed."""
    blocking = [v for v in violations if not force or not v.forceable]
    if blocking:
        hint = "" if force else "; --force bypasses the limits (never protect: true)"
        raise RailError(
            "nothing was applied, the plan breaks these safety rails:\n  "
            + "\n  ".join(str(v) for v in blocking)
            + hint
        )
    return list(violations)


SCOPED_ROOTS = ("spaces", "collections")


def scope_violations(plan: Plan) -> list[Violation]:
    """Calls outside the organization the manifests name: never made, whatever the flags.

    Paths are compared segment by segment: ``/orgs/org_acme/teams/../../org_beta`` starts with
    the organization's prefix as a string, yet names another organization.
    """
    known = {key.split(":", 1)[1] for key in plan.fingerprints}
    found = []
    for change in plan.changes:
        for call in change.calls:
            if _in_scope(call.path, plan.organization, known):
                continue
            found.append(
                Violation(
                    "organization",
                    f"{change.key}: {call.method} {call.path} is outside organization "
                    f"{plan.organization}",
                    forceable=False,
                )
            )
    return found


def _in_scope(path: str, organization: str, known: set[str]) -> bool:
    try:
        segments = path_segments(path)
    except UnsafePathError:
        return False
    if segments[:2] == ["orgs", organization]:
        return True
    if len(segments) >= 2 and segments[0] in SCOPED_ROOTS:
        target = segments[1]
        return target in known or target.startswith("${")
    return False


async def caller_violations(plan: Plan, kinds: Sequence[Any], client: Any) -> list[Violation]:
    """Changes that would remove or demote the membership of the token's own user."""
    risky = []
    for kind in kinds:
        risky += kind.risky_for_caller([c for c in plan.changes if c.kind == kind.name])
    if not risky:
        return []
    caller = await identify_caller(client, plan.organization)
    return [
        Violation(
            "own-membership",
            f"{c.key} would remove or demote the membership of the API token's own user "
            f"({caller}); apply this change with another admin's token",
            forceable=False,
        )
        for c in risky
        if c.live_id == caller
    ]


async def identify_caller(client: Any, org_id: str) -> str | None:
    """The member whose token ``client`` uses, or None when that cannot be told.

    The API has no "who am I": a ping marks the caller as seen now, so the caller is the
    member at the top of the last-seen order if the ping moved that top.
    """
    before = await _last_seen(client, org_id)
    # A ping only marks the caller as seen: repeating it is harmless, so a transient failure
    # is retried like any idempotent call instead of aborting the apply.
    await client.post(f"/orgs/{org_id}/ping", retry=True)
    after = await _last_seen(client, org_id)
    return after[0] if after is not None and after != before else None


async def _last_seen(client: Any, org_id: str) -> tuple[str, str] | None:
    params = {"sort": "lastSeenAt", "order": "desc", "limit": 1}
    items = (await client.get(f"/orgs/{org_id}/members", params=params)).get("items") or []
    return (items[0]["id"], items[0].get("lastSeenAt")) if items else None
