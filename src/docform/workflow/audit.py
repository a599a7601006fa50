"""Who changed what: the service's audit events that explain each drifted object.

The service records an event for each change of an organization: who made it (the actor),
when, from where (the source: the service's UI, the API, an integration) and on what (the
target, by id). Drift reads them once per organization for one window (``--since``, else the
last `DEFAULT_DAYS` days; at most `MAX_EVENTS`, newest first) and gives each drifted object the
events whose target is that object, newer than docform's own last change to it (the apply that
last made it match). Events made with docform's own token are told apart: they are docform's,
not a person's, and explain drift only when nothing else does (another docform run, with
other manifests, changed the object).

Which events are docform's own: those whose actor is the token's user (``GET /user``); for a
token that belongs to no user (an integration's), those made through the API by an actor that
is not a user. The audit log is an Enterprise feature, readable by organization admins with a
user's token: an organization without it (403, 404), or a token of another kind (401), is said
so once, and drift works as without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from docform.api import ApiError
from docform.engine.capabilities import LocksOtherThanId
from docform.engine.client import ServiceClient
from docform.engine.plan import Plan
from docform.errors import DocformError
from docform.kind_registry import build_kinds
from docform.manifest import ManifestSet
from docform.untrusted.lookalikes import escape_controls
from docform.workflow.connect import open_client

DEFAULT_DAYS = 30
MAX_EVENTS = 2_000
PAGE_SIZE = 100
SOURCES = {
    "ui": "the UI",
    "api": "the API",
    "integration": "an integration",
    "webhook": "a webhook",
    "workflow": "a workflow",
    "script": "a script",
    "support": "the service's support",
}


@dataclass(frozen=True)
class AuditEvent:
    """One audit event as drift shows it; ``own``: made with docform's own token."""

    id: str
    occurred_at: str
    action: str
    source: str
    actor_type: str
    actor_id: str
    actor_label: str | None
    actor_email: str | None
    target_id: str
    own: bool
    known_as: frozenset[str] = frozenset()
    """The ids docform may know the target by: its id, and what a kind keeps in its place (a
    link invite's keyed fingerprint, `LocksOtherThanId`)."""

    def who(self) -> str:
        """``Alice Admin <alice@acme.test>``, or the actor's id when it has no name."""
        if self.own:
            return "docform (this token)"
        name = self.actor_label or self.actor_id
        return f"{name} <{self.actor_email}>" if self.actor_email else name

    def where(self) -> str:
        return SOURCES.get(self.source, self.source)

    def describe(self) -> str:
        """``changed by Alice Admin <alice@acme.test> at 2030-01-01T10:00:00.000Z in the UI
        (space.updated)``."""
        via = "in" if self.source == "ui" else "through"
        return f"by {self.who()} at {self.occurred_at} {via} {self.where()} ({self.action})"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "occurred_at": self.occurred_at,
            "action": self.action,
            "source": self.source,
            "actor": {
                "type": self.actor_type,
                "id": self.actor_id,
                "name": self.actor_label,
                "email": self.actor_email,
            },
            "own": self.own,
        }


@dataclass
class AuditTrail:
    """The events of one organization in one window, or why there are none."""

    since: datetime
    events: list[AuditEvent] = field(default_factory=list)
    unavailable: str | None = None
    """Why the audit log could not be read (said once per organization)."""
    truncated: bool = False

    def explaining(self, ids: Sequence[str | None]) -> list[AuditEvent]:
        """The events on any of ``ids``, newest first, newer than docform's own last one; or
        docform's own last one, when no one else changed the object since."""
        wanted = {i for i in ids if i}
        found = [e for e in self.events if wanted & (e.known_as or {e.target_id})]
        others: list[AuditEvent] = []
        for event in found:
            if event.own:
                return others or [event]
            others.append(event)
        return others

    def to_json(self) -> dict[str, Any]:
        return {
            "available": self.unavailable is None,
            "message": self.unavailable,
            "since": _text(self.since),
            "events": len(self.events),
            "truncated": self.truncated,
        }


def since_of(text: str | None, now: datetime) -> datetime:
    """``--since``: a date-time (``2030-01-01T00:00:00Z``), a date, or a span back from
    ``now`` (``12h``, ``7d``); when not given, `DEFAULT_DAYS` days back."""
    if not text:
        return now - timedelta(days=DEFAULT_DAYS)
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    if text[:-1].isdigit() and text[-1] in units:
        return now - timedelta(**{units[text[-1]]: int(text[:-1])})
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise DocformError(
            f"--since {text}: not a time; give a date-time (2030-01-01T00:00:00Z), a date "
            "(2030-01-01) or a span back from now (12h, 7d, 2w)"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


async def read_trail(
    client: ServiceClient, org_id: str, since: datetime, emails: Mapping[str, str]
) -> AuditTrail:
    """The events of ``org_id`` since ``since``; ``emails``: user id -> email, for actors."""
    trail = AuditTrail(since)
    try:
        own_user = await _own_user(client)
        items, trail.truncated = await _read_events(client, org_id, since)
    except ApiError as exc:
        if exc.status not in (403, 404) and not exc.refused_kind:
            raise
        trail.unavailable = _unavailable(exc)
        return trail
    keepers = [k for k in build_kinds(org_id) if isinstance(k, LocksOtherThanId)]
    trail.events = [
        replace(
            event,
            known_as=frozenset({event.target_id, *(k.lock_id(event.target_id) for k in keepers)}),
        )
        for event in (_event(item, own_user, emails) for item in items)
    ]
    return trail


async def read_trails(
    pairs: Sequence[tuple[ManifestSet | None, Plan | None]], since: datetime
) -> list[AuditTrail | None]:
    """The trail of each ``(manifests, plan)`` (None where there is no plan), concurrently."""

    async def one(manifests: ManifestSet | None, plan: Plan | None) -> AuditTrail | None:
        if manifests is None or plan is None:
            return None
        async with open_client(manifests, read_only=True) as client:
            return await read_trail(client, plan.organization, since, member_emails(plan))

    return list(await asyncio.gather(*(one(m, p) for m, p in pairs)))


def member_emails(plan: Plan) -> dict[str, str]:
    """User id -> email of every live member the plan read (an event names its actor by id)."""
    emails = {}
    for raw in [*plan.live_objects.values(), *plan.unmatched_objects.values()]:
        user = raw.get("user") if isinstance(raw, Mapping) else None
        if isinstance(user, Mapping) and user.get("email") and user.get("id"):
            emails[str(user["id"])] = str(user["email"])
    return emails


async def _own_user(client: ServiceClient) -> str | None:
    try:
        answer = await client.get("/user")
    except ApiError as exc:
        if exc.status == 404:
            return None  # a token that belongs to no user
        raise
    return str(answer["id"]) if isinstance(answer, Mapping) and "id" in answer else None


async def _read_events(
    client: ServiceClient, org_id: str, since: datetime
) -> tuple[list[dict[str, Any]], bool]:
    """Pages of events, newest first, until ``since`` or `MAX_EVENTS`; and whether cut."""
    path = f"/orgs/{org_id}/audit-events"
    query: dict[str, Any] = {"from": _text(since), "limit": PAGE_SIZE}
    items: list[dict[str, Any]] = []
    while True:
        page = await client.get(path, params=query)
        items += [i for i in page.get("items", []) if isinstance(i, dict)]
        cursor = (page.get("next") or {}).get("page")
        if cursor is None:
            return items, False
        if len(items) >= MAX_EVENTS:
            return items[:MAX_EVENTS], True
        query["page"] = cursor


def _event(item: Mapping[str, Any], own_user: str | None, emails: Mapping[str, str]) -> AuditEvent:
    """One listed event; every text of it is the service's, shown escaped (a label could
    otherwise start a line of its own in a report)."""
    actor = item.get("actor") or {}
    target = item.get("target") or {}
    actor_id, actor_type = _text_of(actor.get("id")), _text_of(actor.get("type"))
    source = _text_of(item.get("source"))
    if own_user is not None:
        own = actor_type == "user" and actor_id == own_user
    else:
        own = actor_type != "user" and source == "api"
    label = actor.get("label")
    return AuditEvent(
        id=_text_of(item.get("id")),
        occurred_at=_text_of(item.get("occurredAt")),
        action=_text_of(item.get("action")),
        source=source,
        actor_type=actor_type,
        actor_id=actor_id,
        actor_label=_text_of(label) if label is not None else None,
        actor_email=emails.get(actor_id) if actor_type == "user" else None,
        target_id=str(target.get("id", "")),
        own=own,
    )


def _text_of(value: Any) -> str:
    return escape_controls(str(value if value is not None else ""))


def _unavailable(exc: ApiError) -> str:
    why = (
        "the service reads it to a user's token only, and this token is of another kind"
        if exc.refused_kind
        else "the organization's plan may not include it, or the token is not an organization "
        "admin's"
    )
    shown = "who made each change is not shown"
    return f"the audit log could not be read ({exc.status}): {why}; {shown}"


def _text(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
