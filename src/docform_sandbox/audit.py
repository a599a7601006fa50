"""Audit events: every write the sandbox answers with success is recorded as one event.

The app records them (`record_write`, from the one place every request runs through), so no
route records its own: what an event says is read off the route that ran.

- The target is the object the route's path names last (``/spaces/{spaceId}`` a space,
  ``/orgs/{o}/sites/{s}/sections/{id}`` a section), or the object a create answers with; a
  relation written on an object (``.../teams/{teamId}/members/...``, ``.../permissions/...``)
  targets that object. Its label is its title (or label, email, slug, path) at recording time.
- The action is ``<area>.<resource>.<past verb>`` as the service's documentation writes them:
  the area is the object holding the target (``site`` for a redirect), else ``organization``:
  ``organization.team.created``, ``organization.team.member-added``, ``site.redirect.deleted``,
  ``organization.space.moved``. `ACTIONS` holds every name the routes can record, with its
  label, as ``GET /orgs/{id}/audit-event-actions`` serves them.
- The actor is the token's user, or for a token that belongs to no user (a sandbox admin
  token) the integration ``sandbox-admin``. The source is ``api``, or ``ui`` for a change made
  through ``POST /_sandbox/ui`` (a person clicking in the service's UI).
- Details carry a ``correlationId`` per request, ``schemaVersion`` 1 and, as payload, the names
  of the fields a request body set (never their values, which may be secrets).
- A list written in batches (`_BATCHES`: an organization's translation glossary, whose PUT
  inserts, updates and deletes entries) records one event per operation, on the entry it
  wrote: the route names them in ``ctx.extra[BATCH]`` as ``(verb, id, label)``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docform_sandbox.http import APP_BASE, Ctx, Endpoint, timestamp

EVENT_KIND = "audit-event"
_PARAM = re.compile(r"^\{(\w+)\}$")
#: Segments after which the path names a relation of the object before them, not an object.
_RELATIONS = {"permissions": "permission", "members": "member"}
#: Trailing segments that name what a POST does to its object.
_VERBS = {
    "move": "moved",
    "restore": "restored",
    "publish": "published",
    "unpublish": "unpublished",
    "regenerate": "regenerated",
    "sort": "sorted",
}
#: Routes that change nothing a person would audit.
_NOT_CHANGES = frozenset({"POST /orgs/{organizationId}/ping"})
#: Trailing segments that name one document of the object before them, though plural: a PUT
#: there replaces it (an organization's agent instructions), it creates nothing.
_DOCUMENTS = frozenset({"agent-instructions", "agent-settings", "ads"})
#: Store kinds whose name differs from their path segment's singular.
_STORE_KINDS = {"redirect": "site-redirect", "saml": "saml-provider", "openapi": "openapi-spec"}
_LABEL_FIELDS = ("title", "label", "displayName", "email", "slug", "path")
#: Trailing segments naming a list its PUT writes in batches -> the resource of its items.
_BATCHES = {"translations-glossary": "glossary-entry"}
_BATCH_VERBS = ("created", "updated", "deleted")
BATCH = "audited-batch"
"""The key of ``ctx.extra`` under which a batch route lists what it wrote."""


@dataclass(frozen=True)
class Recorded:
    """What one route records: its action, the type of its target and the path parameter
    naming the target (None: a create, whose answer names it)."""

    action: str
    target_type: str
    target_param: str | None


def describe(ep: Endpoint) -> Recorded | None:
    """What ``ep`` records, or None for a read or a route that changes nothing."""
    if ep.method == "GET" or f"{ep.method} {ep.path}" in _NOT_CHANGES:
        return None
    tokens = _tokens(ep.path)
    relation = _relation(ep.method, tokens)
    if relation is not None:
        return relation
    named = [i for i, (_, param) in enumerate(tokens) if param]
    last = named[-1] if named else -1
    trailing = [word for word, _ in tokens[last + 1 :]]
    if len(trailing) == 1 and trailing[0] in _BATCHES and ep.method == "PUT":
        resource = _BATCHES[trailing[0]]
        return Recorded(f"{_area(tokens[: last + 1])}.{resource}.*", resource, None)
    if len(trailing) == 1 and trailing[0] in _DOCUMENTS and last >= 0:
        # Recorded on the object holding the document: the document has no id of its own.
        action = f"{_area(tokens[: last + 1])}.{trailing[0]}.updated"
        return Recorded(action, trailing[0], tokens[last][1])
    collection = trailing[0].endswith("s") or trailing[0] in _STORE_KINDS if trailing else False
    if len(trailing) == 1 and collection and ep.method in ("POST", "PUT"):
        resource = _singular(trailing[0])
        return Recorded(f"{_area(tokens[: last + 1])}.{resource}.created", resource, None)
    if last < 0:
        return None
    word, param = tokens[last]
    if word == "orgs" and not trailing:
        return Recorded("organization.settings.updated", "organization", param)
    verb = {"DELETE": "deleted"}.get(ep.method, "updated")
    if trailing and trailing[-1] in _VERBS:
        verb, trailing = _VERBS[trailing[-1]], trailing[:-1]
    detail = "".join(f"{word}-" for word in trailing)
    resource = _singular(word)
    return Recorded(f"{_area(tokens[:last])}.{resource}.{detail}{verb}", resource, param)


def _tokens(path: str) -> list[tuple[str, str | None]]:
    """``/orgs/{o}/teams/{t}/members`` -> ``[(orgs, o), (teams, t), (members, None)]``."""
    tokens: list[tuple[str, str | None]] = []
    for part in path.strip("/").split("/"):
        param = _PARAM.match(part)
        if param and tokens:
            tokens[-1] = (tokens[-1][0], param.group(1))
        elif not param:
            tokens.append((part, None))
    return tokens


def _relation(method: str, tokens: list[tuple[str, str | None]]) -> Recorded | None:
    """A relation written on an object (a team's members, a space's permissions): the
    object is the target."""
    for at, (word, _) in enumerate(tokens):
        holders = [i for i in range(at) if tokens[i][1] and tokens[i][0] != "orgs"]
        if word not in _RELATIONS or not holders:
            continue
        holder, param = tokens[holders[-1]]
        named = any(p for _, p in tokens[at:])
        verb = "updated" if not named or method == "PATCH" else _ADDED.get(method, "updated")
        resource = _singular(holder)
        action = f"{_area(tokens[: holders[-1]])}.{resource}.{_RELATIONS[word]}-{verb}"
        return Recorded(action, resource, param)
    return None


_ADDED = {"POST": "added", "PUT": "added", "DELETE": "removed"}


def _area(tokens: list[tuple[str, str | None]]) -> str:
    """The object holding the target: ``site`` under a site, else ``organization``."""
    inner = [word for word, param in tokens if param and word != "orgs"]
    return _singular(inner[-1]) if inner else "organization"


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def _label(action: str) -> str:
    """``organization.team.member-added`` -> ``Team member added``."""
    _, resource, verb = action.split(".")
    return f"{resource} {verb}".replace("-", " ").capitalize()


def actions(endpoints: list[Endpoint]) -> dict[str, str]:
    """Every action the routes can record, with its label, by name."""
    found = sorted(filter(None, (describe(ep) for ep in endpoints)), key=lambda r: r.action)
    names = [_batch_action(r.action, v) for r in found for v in _BATCH_VERBS if _batched(r)]
    names += [r.action for r in found if not _batched(r)]
    return {name: _label(name) for name in sorted(names)}


def _batched(recorded: Recorded) -> bool:
    return recorded.action.endswith(".*")


def _batch_action(action: str, verb: str) -> str:
    return action[:-1] + verb


# -- recording ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Before:
    """What is known of a write's target before its route runs (a delete removes it)."""

    recorded: Recorded
    org: str | None
    label: str | None


def before_write(ctx: Ctx, ep: Endpoint) -> Before | None:
    recorded = describe(ep)
    if recorded is None:
        return None
    org = ctx.params.get("organizationId")
    label = None
    if recorded.target_param is not None:
        target = ctx.params.get(recorded.target_param, "")
        org, label = _located(ctx, recorded.target_type, target, org)
    return Before(recorded, org, label)


def record_write(ctx: Ctx, before: Before, answer: Any, source: str) -> None:
    """Record the write ``before`` was taken for, once its route answered ``answer``."""
    recorded, org = before.recorded, before.org
    if _batched(recorded):
        for verb, target_id, label in ctx.extra.get(BATCH, ()):
            action = _batch_action(recorded.action, verb)
            _insert_event(ctx, org, action, recorded.target_type, target_id, label, source)
        return
    if recorded.target_param is not None:
        target_id = ctx.params.get(recorded.target_param, "")
        # Labels are captured at recording time: the new title of a renamed object; the last
        # one of a deleted object.
        label = _located(ctx, recorded.target_type, target_id, org)[1] or before.label
    else:
        target_id = str(answer.get("id", "")) if isinstance(answer, Mapping) else ""
        label = _label_of(answer) if isinstance(answer, Mapping) else None
    _insert_event(ctx, org, recorded.action, recorded.target_type, target_id, label, source)


def _insert_event(
    ctx: Ctx,
    org: str | None,
    action: str,
    target_type: str,
    target_id: str,
    label: str | None,
    source: str,
) -> None:
    if org is None or not target_id:
        return
    event_id = str(uuid.uuid4())
    target: dict[str, Any] = {"type": target_type, "id": target_id}
    if label:
        target["label"] = label
    event = {
        "object": "audit-event",
        "id": event_id,
        "occurredAt": timestamp(ctx.now()),
        "action": action,
        "actor": _actor(ctx),
        "source": source,
        "target": target,
        "urls": {"location": f"{APP_BASE}/o/{org}/settings/audit/{event_id}"},
        "correlationId": ctx.extra.setdefault("correlationId", str(uuid.uuid4())),
        "schemaVersion": 1,
        "payload": {"fields": sorted(ctx.body)} if isinstance(ctx.body, Mapping) else {},
    }
    ctx.store.insert(EVENT_KIND, event, org=org, parent=target_id)


def _actor(ctx: Ctx) -> dict[str, Any]:
    user_id = ctx.caller.user_id
    if user_id is None:
        return {"type": "integration", "id": "sandbox-admin", "label": "Sandbox admin token"}
    user = ctx.store.get("user", user_id) or {}
    actor = {"type": "user", "id": user_id}
    if user.get("displayName"):
        actor["label"] = user["displayName"]
    return actor


def _located(
    ctx: Ctx, target_type: str, target_id: str, org: str | None
) -> tuple[str | None, str | None]:
    kind = _STORE_KINDS.get(target_type, target_type)
    doc = ctx.store.get(kind, target_id)
    if doc is None:
        return org, None
    located = ctx.store.locate(kind, target_id)
    return (org or (located[0] if located else None)), _label_of(doc)


def _label_of(doc: Mapping[str, Any]) -> str | None:
    return next((str(doc[f]) for f in _LABEL_FIELDS if isinstance(doc.get(f), str)), None)
