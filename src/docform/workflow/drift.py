"""Drift: how the live organizations differ from their manifests, from read-only plans.

Drift is everything a plan would do (changed fields, missing or extra objects, moves) plus the
live objects no manifest entry manages. What ``ignore:`` leaves out is not drift, but is
counted. A plan cannot tell when the live state changed, only that it differs now.

Who made each change comes from the organization's audit log, when it can be read
(`docform.workflow.audit`). The JSON form is versioned by ``FORMAT_VERSION`` and documented
in docs/json-formats.md ("Drift JSON"); its keys only ever grow within a major version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from docform.engine.plan import Change, Plan, Unmanaged
from docform.workflow.audit import AuditEvent, AuditTrail
from docform.workflow.sets import PARTIAL_PLAN_EXIT_CODE, SetOutcome

FORMAT_VERSION = "1.1"


@dataclass
class OrgDrift:
    """The drift of one manifest set, or why it could not be checked; ``audit``: the audit
    events that may explain it (None when not read)."""

    outcome: SetOutcome
    audit: AuditTrail | None = None

    def changed_by(self, change: Change) -> list[AuditEvent]:
        """The audit events that explain ``change``, newest first (`AuditTrail.explaining`)."""
        if self.audit is None:
            return []
        return self.audit.explaining(self._target_ids(change))

    def unmanaged_changed_by(self, unmanaged: Unmanaged) -> list[AuditEvent]:
        return self.audit.explaining([unmanaged.id]) if self.audit is not None else []

    def _target_ids(self, change: Change) -> list[str | None]:
        """The live object of ``change``; for one gone, the id its entry was tied to."""
        if change.live_id is not None:
            return [change.live_id]
        manifests, plan = self.outcome.manifests, self.plan
        if manifests is None:  # a set that did not load plans no change
            return [None]
        locked = manifests.lock.ids_for(plan.organization) if plan is not None else {}
        entry = next((e for e in manifests.entries() if e.address == change.address), None)
        return [locked.get(change.address), getattr(entry, "id", None)]

    @property
    def plan(self) -> Plan | None:
        return self.outcome.plan

    @property
    def status(self) -> str:
        """``in_sync``, ``drift`` or ``error``."""
        if self.plan is None:
            return "error"
        broken = self.plan.policies is not None and self.plan.policies.blocking
        return "drift" if self.plan.changes or self.plan.unmanaged or broken else "in_sync"

    @property
    def not_checked(self) -> dict[str, str]:
        """The kinds the token may not read (and those read after them): kind -> why."""
        return dict(self.plan.not_planned) if self.plan is not None else {}

    def counts(self) -> dict[str, int]:
        plan = self.plan
        if plan is None:
            return {"changes": 0, "unmanaged": 0, "ignored": 0}
        return {
            "changes": len(plan.changes),
            "unmanaged": len(plan.unmanaged),
            "ignored": len(plan.ignored),
        }

    def to_json(self) -> dict[str, Any]:
        plan = self.plan
        return {
            "directory": self.outcome.name,
            "organization": self.outcome.organization,
            "status": self.status,
            "error": self.outcome.error,
            "counts": self.counts(),
            "not_planned": _not_planned_json(self.not_checked),
            "changes": [self._drifted(c) for c in plan.changes] if plan else [],
            "unmanaged": [self._unmanaged(u) for u in plan.unmanaged] if plan else [],
            "ignored": [i.to_json() for i in plan.ignored] if plan else [],
            "policies": plan.policies.to_json() if plan and plan.policies else None,
            "plan": plan.to_json() if plan else None,
            "audit": self.audit.to_json() if self.audit is not None else None,
        }

    def _drifted(self, change: Change) -> dict[str, Any]:
        """One change, in the words of drift: what differs and who changed it, no calls."""
        doc = change.to_json()
        return {
            "address": doc["address"],
            "human_key": doc["human_key"],
            "kind": doc["kind"],
            "action": doc["action"],
            "id": doc["id"],
            "reason": doc["action_reason"],
            "fields": doc["fields"],
            "changed_by": [e.to_json() for e in self.changed_by(change)],
        }

    def _unmanaged(self, unmanaged: Unmanaged) -> dict[str, Any]:
        events = self.unmanaged_changed_by(unmanaged)
        return {**unmanaged.to_json(), "changed_by": [e.to_json() for e in events]}


@dataclass
class DriftReport:
    """Every manifest set checked by one ``docform drift`` run."""

    orgs: list[OrgDrift]
    checked_at: datetime

    @classmethod
    def of(
        cls,
        outcomes: Sequence[SetOutcome],
        now: datetime | None = None,
        audits: Sequence[AuditTrail | None] | None = None,
    ) -> DriftReport:
        trails = audits if audits is not None else [None] * len(outcomes)
        orgs = [OrgDrift(o, t) for o, t in zip(outcomes, trails, strict=True)]
        return cls(orgs, now or datetime.now(UTC))

    @property
    def status(self) -> str:
        """``error``, else ``drift``, else ``in_sync`` (what was checked: see `partial`)."""
        statuses = {o.status for o in self.orgs}
        return next((s for s in ("error", "drift") if s in statuses), "in_sync")

    @property
    def partial(self) -> bool:
        """Whether some kinds were not checked: the token may not read them."""
        return any(o.not_checked for o in self.orgs)

    @property
    def exit_code(self) -> int:
        """1 an organization could not be checked, else 2 drift found (in what was checked:
        drift found is drift, whatever was not checked), else 3 (`PARTIAL_PLAN_EXIT_CODE`,
        as `plan --detailed-exitcode`) when some kinds could not be read, so being in sync
        is not known, else 0."""
        if self.status != "in_sync":
            return {"error": 1, "drift": 2}[self.status]
        return PARTIAL_PLAN_EXIT_CODE if self.partial else 0

    def totals(self) -> dict[str, int]:
        counts = {"organizations": len(self.orgs), "in_sync": 0, "drift": 0, "error": 0}
        for org in self.orgs:
            counts[org.status] += 1
            for name, count in org.counts().items():
                counts[name] = counts.get(name, 0) + count
        return counts

    @property
    def checked_at_text(self) -> str:
        """``2026-11-22T11:04:32Z``: when the live organizations were read, in UTC."""
        return self.checked_at.strftime("%Y-%m-%dT%H:%M:%SZ")

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "checked_at": self.checked_at_text,
            "status": self.status,
            "totals": self.totals(),
            "not_planned": [
                {"directory": o.outcome.name, "organization": o.outcome.organization, **entry}
                for o in self.orgs
                for entry in _not_planned_json(o.not_checked)
            ],
            "organizations": [o.to_json() for o in self.orgs],
        }


def _not_planned_json(not_checked: dict[str, str]) -> list[dict[str, str]]:
    """As the plan's `not_planned`: ``{"kind": ..., "reason": ...}`` each."""
    return [{"kind": kind, "reason": reason} for kind, reason in not_checked.items()]
