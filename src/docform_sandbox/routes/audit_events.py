"""Audit events of an organization: list (filtered, paged), get one, and the action names.

Events are recorded by the app for every successful write (`docform_sandbox.audit`), not by
these routes. Choices where the API facts are silent:

- Readable by the organization's admins (403 for other members) and sandbox admin tokens; an
  organization seeded with ``auditLogs: false`` (its plan does not include the audit log)
  answers 403 to everyone.
- ``from`` and ``to`` bound ``occurredAt``, both inclusive; ``action`` is one name;
  ``actor`` and ``target`` are comma-separated ids or labels, matched exactly.
- ``limit`` is 1 to 100 (default 20); ``page`` is an opaque cursor, as every list's.
- Details add ``correlationId`` (one per request), ``schemaVersion`` 1 and as ``payload``
  the names of the fields the request body set.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from docform_sandbox.access import is_admin, require_org
from docform_sandbox.audit import EVENT_KIND, actions
from docform_sandbox.http import (
    ApiError,
    Ctx,
    Query,
    bad_request,
    endpoint,
    envelope,
    not_found,
    parse_timestamp,
    timestamp,
)
from docform_sandbox.store import CursorError

# The fields of an event a list shows (the definition's AuditEvent but its details).
_LISTED = ("object", "id", "occurredAt", "action", "actor", "source", "target", "urls")
_ACTIONS: dict[str, str] | None = None


class AuditQuery(Query):
    page: str | None = None
    limit: int = 20
    from_: str | None = Field(None, alias="from")
    to: str | None = None
    action: str | None = None
    actor: str | None = None
    target: str | None = None


@endpoint("GET", "/orgs/{organizationId}/audit-events")
def list_audit_events(ctx: Ctx) -> dict[str, Any]:
    """Audit events of an organization, newest first, filtered by time, action, actor, target."""
    org_id = _readable(ctx)
    q = ctx.query_as(AuditQuery)
    if not 1 <= q.limit <= 100:
        raise bad_request("limit: must be an integer from 1 to 100")
    where = [("org = ?", [org_id]), *_filters(q)]
    try:
        found = ctx.store.page(EVENT_KIND, where, cursor=q.page, limit=q.limit, descending=True)
    except CursorError:
        raise bad_request("page: not a cursor this list issued") from None
    items = [{k: e[k] for k in _LISTED} for e in found.items]
    return envelope(items, found.count, found.next)


@endpoint("GET", "/orgs/{organizationId}/audit-events/{auditEventId}")
def get_audit_event(ctx: Ctx) -> dict[str, Any]:
    """One audit event, with its details."""
    org_id = _readable(ctx)
    event_id = ctx.params["auditEventId"]
    event = ctx.store.get(EVENT_KIND, event_id)
    located = ctx.store.locate(EVENT_KIND, event_id)
    if event is None or located is None or located[0] != org_id:
        raise not_found("audit event", event_id)
    return event


@endpoint("GET", "/orgs/{organizationId}/audit-event-actions")
def list_audit_event_actions(ctx: Ctx) -> dict[str, Any]:
    """Every action an audit event may name, with its label (not paginated)."""
    _readable(ctx)
    return {
        "items": [
            {"object": "audit-event-action", "id": name, "label": label}
            for name, label in _known_actions().items()
        ]
    }


def _readable(ctx: Ctx) -> str:
    org = require_org(ctx, ctx.params["organizationId"])
    if not org.get("auditLogs", True):
        raise ApiError(403, f"the plan of organization '{org['id']}' does not include audit logs")
    if not is_admin(ctx, org["id"]):
        raise ApiError(403, "reading the audit log needs the organization's admin role")
    return str(org["id"])


def _filters(q: AuditQuery) -> list[tuple[str, list[Any]]]:
    where: list[tuple[str, list[Any]]] = []
    for name, value, op in (("from", q.from_, ">="), ("to", q.to, "<=")):
        if value:
            try:
                bound = timestamp(parse_timestamp(value))
            except ValueError:
                raise bad_request(f"{name}: not a date-time: {value!r}") from None
            where.append((f"json_extract(data, '$.occurredAt') {op} ?", [bound]))
    if q.action:
        where.append(("json_extract(data, '$.action') = ?", [q.action]))
    for name, value in (("actor", q.actor), ("target", q.target)):
        if value:
            where.append(_one_of(name, [v.strip() for v in value.split(",") if v.strip()]))
    return where


def _one_of(field: str, values: list[str]) -> tuple[str, list[Any]]:
    marks = ", ".join("?" * len(values))
    sql = (
        f"(json_extract(data, '$.{field}.id') IN ({marks}) "
        f"OR json_extract(data, '$.{field}.label') IN ({marks}))"
    )
    return sql, [*values, *values]


def _known_actions() -> dict[str, str]:
    global _ACTIONS
    if _ACTIONS is None:
        from docform_sandbox.routes import ENDPOINTS

        _ACTIONS = actions(ENDPOINTS)
    return _ACTIONS
