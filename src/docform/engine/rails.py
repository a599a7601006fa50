"""Safety rails: checks every plan passes before apply makes its first call.

Each rail names what it protects and how to override it. ``--force`` bypasses the deletion
limits and the kinds' own rails (an organization left without an admin, a team without an
owner), and apply prints each rail it bypassed; ``--allow RAIL:ADDRESS`` accepts one rail for
one object (the violation's ``address``) and leaves every other rail on; ``protect: true`` is
never bypassed: remove it from the entry first.

A violation names the changes that break it (``Violation.changes``): a plan narrowed by
``--target`` or ``--exclude`` keeps only those whose changes it still holds all of
(`docform.engine.targets.judged_within`), so the rails judge the changes that will be made,
not the ones left out.

Every rail is evaluated when planning too (`RailReport`), so a plan that apply would refuse
fails in the pull request, not after the merge. One rail is checked with the token apply uses
(`check_caller`), which need not be planning's; the plan lists the changes it will look at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from docform.engine.capabilities import GuardsCaller
from docform.engine.client import ServiceClient
from docform.engine.kind import Kind
from docform.engine.plan import Change, Placeholder, Plan
from docform.engine.plan import Violation as Violation
from docform.engine.targets import named_address
from docform.errors import DocformError, ServiceCallError
from docform.untrusted.paths import UnsafePathError, path_segments

SHARE_FLOOR = 10
"""The share limit applies only to kinds with at least this many live objects (the default of
``limits.deletionShareFloor``): deleting 2 of 3 teams is no accident worth a rail."""


class RailError(DocformError):
    """The plan breaks a safety rail; nothing was applied."""


@dataclass
class RailReport:
    """The safety rails of one plan as planning sees them (plan JSON key ``rails``)."""

    violations: list[Violation] = field(default_factory=list)
    forced: bool = False
    """``--force`` was given: the forceable violations are bypassed, not blocking."""
    at_apply: list[Violation] = field(default_factory=list)
    """Rails only apply can check; each names a change it will look at."""
    allowed: list[str] = field(default_factory=list)
    """``--allow RAIL:ADDRESS`` as given: each accepts one rail for the objects it names."""
    accepted: list[Violation] = field(default_factory=list)
    """The violations an ``allowed`` item accepts: not blocking, listed as accepted."""
    unused: list[str] | None = None
    """The ``allowed`` items that accept none of the violations (`accepted_by`, which knows
    how a person may name an object); None: compute them from ``accepted`` by address."""

    @property
    def blocking(self) -> list[Violation]:
        """The violations that make apply refuse the plan."""
        return [
            v
            for v in self.violations
            if v not in self.accepted and not (self.forced and v.forceable)
        ]

    @property
    def bypassed(self) -> list[Violation]:
        """What ``--force`` lets through that no ``--allow`` accepted."""
        return [
            v for v in self.violations if self.forced and v.forceable and v not in self.accepted
        ]

    @property
    def unused_allows(self) -> list[str]:
        """``--allow`` items that accept no violation of this plan (a typo, or a rail fixed)."""
        if self.unused is not None:
            return list(self.unused)
        used = {item for item in self.allowed for v in self.accepted if allows(item, v)}
        return [item for item in self.allowed if item not in used]

    def _passed(self, violation: Violation) -> bool:
        return (self.forced and violation.forceable) or violation in self.accepted

    def to_json(self) -> dict[str, Any]:
        return {
            "violations": [v.to_json() for v in self.violations],
            "forced": self.forced,
            "allowed": list(self.allowed),
            "accepted": [v.to_json() for v in self.accepted],
            "unused_allows": self.unused_allows,
            "checked_at_apply": [v.to_json() for v in self.at_apply],
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RailReport:
        return cls(
            violations=[Violation.from_json(v) for v in doc.get("violations", [])],
            forced=bool(doc.get("forced")),
            at_apply=[Violation.from_json(v) for v in doc.get("checked_at_apply", [])],
            allowed=list(doc.get("allowed", [])),
            accepted=[Violation.from_json(v) for v in doc.get("accepted", [])],
            unused=list(doc["unused_allows"]) if "unused_allows" in doc else None,
        )


class AllowError(DocformError):
    """An ``--allow`` that is not ``RAIL:ADDRESS``."""


def parse_allow(item: str) -> str:
    """``cascade:collection.runbooks`` as given, once checked to name a rail and an address."""
    rail, _, address = item.partition(":")
    if not rail or not address:
        raise AllowError(
            f"--allow {item}: write RAIL:ADDRESS, the rail and the object it is about as the "
            "plan names them (cascade:collection.~c_1, team-owner:team.support)"
        )
    return item


def allows(item: str, violation: Violation, aliases: Sequence[str] = ()) -> bool:
    """Whether ``--allow item`` accepts ``violation``: its rail, and its address (or one of
    ``aliases``, how a person names an unmanaged object) exactly or by a ``*`` pattern."""
    rail, _, pattern = item.partition(":")
    if rail != violation.rail or not violation.may_accept or violation.address is None:
        return False
    return any(fnmatchcase(name, pattern) for name in (violation.address, *aliases))


def accepted_by(
    allowed: Sequence[str], violations: Sequence[Violation], plan: Plan
) -> tuple[list[Violation], list[str]]:
    """The violations that an item of ``allowed`` accepts, and the items that accept none;
    an object may be named as the plan shows it (``collection.~c_1``) or by its title
    (``space.Python SDK``)."""
    named = {c.address: n for c in plan.changes if (n := named_address(c)) is not None}
    found, used = [], set()
    for violation in violations:
        aliases = [named[violation.address]] if violation.address in named else []
        accepting = {item for item in allowed if allows(item, violation, aliases)}
        if accepting:
            found.append(violation)
            used |= accepting
    return found, [item for item in allowed if item not in used]


def check_rails(
    plan: Plan,
    *,
    max_deletions: int,
    max_share: float,
    live_counts: Mapping[str, int],
    share_floor: int = SHARE_FLOOR,
) -> list[Violation]:
    """Every rail the plan breaks (deletion limits here; protect and kind rails come from
    planning, in ``plan.violations``)."""
    found = list(plan.violations) + scope_violations(plan)
    deletes = [c for c in plan.changes if c.action == "delete"]
    # What goes with a delete is deleted too (a pruned site's sections): the limit counts it.
    along = sum(str(t["fate"]).startswith("deleted with") for c in deletes for t in c.takes)
    if len(deletes) + along > max_deletions:
        more = f" and {along} more along with them" if along else ""
        found.append(
            Violation(
                "max-deletions",
                f"the plan deletes {len(deletes)} objects{more}, more than the {max_deletions} "
                "allowed per apply (--max-deletions N or limits.maxDeletions raises it)",
            )
        )
    found += _share_violations(deletes, max_share, live_counts, share_floor)
    return found


def _share_violations(
    deletes: Sequence[Change], max_share: float, live_counts: Mapping[str, int], floor: int
) -> list[Violation]:
    found = []
    for kind, count in sorted(Counter(c.kind for c in deletes).items()):
        existing = live_counts.get(kind, 0)
        if existing >= floor and count / existing > max_share:
            found.append(
                Violation(
                    "max-deletion-share",
                    f"the plan deletes {count} of {existing} {kind} objects "
                    f"({count / existing:.0%}), over the {max_share:.0%} allowed "
                    "(limits.maxDeletionShare raises it)",
                )
            )
    return found


def enforce(report: RailReport) -> list[Violation]:
    """Raise unless every violation of ``report`` is forced or accepted; returns the ones
    passed (for apply to print)."""
    blocking = report.blocking
    if blocking:
        # Offered only when it would help: --force never bypasses protect or the caller's
        # own membership.
        forceable = not report.forced and any(v.forceable for v in blocking)
        acceptable = any(v.allow for v in blocking)
        hint = (
            "; --allow RAIL:ADDRESS accepts one of them, --force bypasses them all (never "
            "protect: true)"
            if forceable
            else "; --allow RAIL:ADDRESS accepts one of them"
            if acceptable
            else ""
        )
        raise RailError(
            "nothing was applied, the plan breaks these safety rails:\n  "
            + "\n  ".join(str(v) for v in blocking)
            + hint
        )
    return [v for v in report.violations if v not in blocking]


def scope_violations(plan: Plan) -> list[Violation]:
    """Calls outside the organization the manifests name: never made, whatever the flags.

    Paths are compared segment by segment: ``/orgs/org_acme/teams/../../org_beta`` starts with
    the organization's prefix as a string, yet names another organization.
    """
    known = {key.split(":", 1)[1] for key in plan.fingerprints}
    found = []
    for change in plan.changes:
        for call in change.calls:
            if _in_scope(call.path, plan.organization, known) or _body_in_scope(
                call.body, plan.organization, known
            ):
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
    # Objects some kinds address outside /orgs (/spaces/ID): in scope when the plan read them
    # from this organization, or the apply creates them.
    if len(segments) >= 2 and segments[0] != "orgs":
        # The object may sit below another name (/integrations/NAME/installations/ID).
        return any(part in known or part.startswith("${") for part in segments[1:])
    return False


def _body_in_scope(body: object, organization: str, known: set[str]) -> bool:
    """A call whose body names its organization (installing an integration on it), or the
    objects it targets by ids the plan read or creates (a Git Sync of a space)."""
    if not isinstance(body, dict):
        return False
    if body.get("organization") == organization:
        return True
    target = body.get("target")
    if not isinstance(target, dict):
        return False
    ids = [value for key, value in target.items() if key.endswith("Id")]
    return bool(ids) and all(isinstance(v, Placeholder) or v in known for v in ids)


def risky_for_caller(plan: Plan, kinds: Sequence[Kind]) -> list[Change]:
    """The changes that would lock the token's own user out if they were that user's."""
    risky: list[Change] = []
    for kind in kinds:
        if isinstance(kind, GuardsCaller):
            risky += kind.risky_for_caller([c for c in plan.changes if c.kind == kind.name])
    return risky


def checked_at_apply(plan: Plan, kinds: Sequence[Kind]) -> list[Violation]:
    """What the own-membership rail will look at when applying: the token apply writes with
    need not be the one planning reads with (`check_caller`)."""
    return [
        Violation(
            "own-membership",
            f"{c.address_with_key} removes or demotes a membership: apply refuses it if "
            "that is the API token's own user (planning cannot tell whose token it is)",
            forceable=False,
        )
        for c in risky_for_caller(plan, kinds)
    ]


@dataclass
class CallerCheck:
    """The own-membership rail as apply found it: what it refuses, and what it has to say."""

    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def check_caller(plan: Plan, kinds: Sequence[Kind], client: ServiceClient) -> CallerCheck:
    """Changes that would remove or demote the membership of the token's own user.

    Each kind with such changes tells whose token ``client`` holds (`GuardsCaller`),
    and only then: a plan without them costs no request. A token that belongs to no user
    holds no membership to lose, which a note says.
    """
    check = CallerCheck()
    for kind in kinds:
        if not isinstance(kind, GuardsCaller):
            continue
        risky = kind.risky_for_caller([c for c in plan.changes if c.kind == kind.name])
        if not risky:
            continue
        try:
            caller = await kind.identify_caller(client)
        except ServiceCallError as error:
            raise RailError(
                "nothing was applied: the own-membership rail could not tell which user the API "
                f"token belongs to, and the plan removes or demotes {len(risky)} "
                f"{_memberships(len(risky))}: {error}"
            ) from error
        if caller is None:
            check.notes.append(
                "the API token belongs to no user (an integration's token, say), so it holds "
                "no membership to lose: the own-membership rail had nothing to refuse in the "
                f"{len(risky)} {_changes(len(risky))} that remove or demote a membership"
            )
            continue
        check.violations += [
            Violation(
                "own-membership",
                f"{c.key} would remove or demote the membership of the API token's own user "
                f"({caller}); apply this change with another admin's token",
                forceable=False,
            )
            for c in risky
            if c.live_id == caller
        ]
    return check


def _changes(count: int) -> str:
    return "change" if count == 1 else "changes"


def _memberships(count: int) -> str:
    return "membership" if count == 1 else "memberships"
