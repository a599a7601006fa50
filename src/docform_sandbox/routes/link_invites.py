"""Organization link invites: ``GET|POST /orgs/{organizationId}/link-invites`` and
``GET|PATCH|DELETE .../link-invites/{inviteId}``.

An invite's id is the whole secret: whoever holds it joins the organization (``POST
/orgs/{organizationId}/invites/{inviteId}``, not emulated) with the invite's role, or with its
level on one space or collection. Every answer carries it, as the service's do.

Choices where the API documents are silent:
- Every operation needs the organization's admin role, lists included (they show the ids).
- The body is ``{role}``, ``{level, space}`` or ``{level, collection}``: ``role`` and ``level``
  are a role or null (guest) and must be given; anything else is a 400. The space or collection
  must be one of the organization's (a deleted space is not). PATCH takes the key of its form
  (``role``, or ``level``) and nothing that would change the target.
- ``redundant`` is true when the caller's own role (organization role, or its role on the space
  or collection from every source) is at least what the invite grants.
- An invite whose space or collection was deleted is deleted with it.
- Ids are 32 characters of ``[A-Za-z0-9]``. Lists go newest first by default.
- The definition's list holds organization invites only (each item requires ``role``) while a
  single invite may be any of the three forms (exactly one of them). The sandbox lists every
  invite, and gives a space or collection invite in the list ``role: null`` too (whoever joins
  by it is a guest of the organization); its single answer has ``level`` and no ``role``, so
  that it is exactly one of the definition's forms.
"""

from __future__ import annotations

from typing import Any, Literal

from starlette.responses import JSONResponse, Response

from docform_sandbox.access import caller_membership, require_org
from docform_sandbox.grants import Target, effective_roles, rank
from docform_sandbox.http import (
    API_BASE,
    ROLES,
    Body,
    Ctx,
    bad_request,
    endpoint,
    list_page,
    new_id,
    not_found,
)
from docform_sandbox.routes.collections import render_collection
from docform_sandbox.routes.shared import removed
from docform_sandbox.routes.space_rows import render_space

INVITE = "link-invite"
PATH = "/orgs/{organizationId}/link-invites"
TARGETS = ("space", "collection")
Form = Literal["organization", "space", "collection"]


class InviteBody(Body):
    """A create's body; a PATCH takes the same keys, and refuses those it cannot change."""

    role: str | None = None
    level: str | None = None
    space: str | None = None
    collection: str | None = None


def _role(body: InviteBody, name: str) -> str | None:
    if name not in body.model_fields_set:
        raise bad_request(f"{name}: required (a role, or null for guest)")
    value: str | None = getattr(body, name)
    if value is not None and value not in ROLES:
        raise bad_request(f"{name}: must be one of {', '.join(ROLES)} or null")
    return value


def _target_of(ctx: Ctx, org_id: str, body: InviteBody) -> tuple[Form, dict[str, Any] | None]:
    given = body.model_fields_set
    named = [t for t in TARGETS if t in given]
    if not named:
        if "level" in given:
            raise bad_request(
                "level: goes with space or collection; an organization invite takes role"
            )
        return "organization", None
    if len(named) > 1 or "role" in given:
        raise bad_request("the body is {role}, {level, space} or {level, collection}")
    form: Form = "space" if named[0] == "space" else "collection"
    target_id = getattr(body, form)
    doc = ctx.store.get(form, target_id) if target_id is not None else None
    if doc is None or doc.get("organization") != org_id or doc.get("deletedAt"):
        raise bad_request(f"{form}: no {form} '{target_id}' in this organization")
    return form, doc


def _target_alive(ctx: Ctx, doc: dict[str, Any]) -> bool:
    form = doc["form"]
    if form == "organization":
        return True
    target = ctx.store.get(form, doc[form])
    return target is not None and not target.get("deletedAt")


def _redundant(ctx: Ctx, doc: dict[str, Any]) -> bool:
    if ctx.caller.superuser:
        return True
    granted = doc["role"]
    if doc["form"] == "organization":
        membership = caller_membership(ctx, doc["organization"]) or {}
        have = membership.get("role")
        return membership != {} and rank(have) <= rank(granted)
    roles = effective_roles(ctx, Target(doc["form"], doc[doc["form"]], doc["organization"]))
    return ctx.caller.user_id in roles and rank(roles[ctx.caller.user_id]) <= rank(granted)


def render_invite(ctx: Ctx, doc: dict[str, Any], *, listed: bool = False) -> dict[str, Any]:
    """An invite as the definition's forms are: ``listed``, every one carries ``role``."""
    body: dict[str, Any] = {"object": "invite", "id": doc["id"]}
    form = doc["form"]
    body["role" if form == "organization" else "level"] = doc["role"]
    if listed and form != "organization":
        body["role"] = None
    body["redundant"] = _redundant(ctx, doc)
    if form == "space":
        body["space"] = render_space(ctx, ctx.store.get("space", doc["space"]) or {})
    elif form == "collection":
        body["collection"] = render_collection(
            ctx, ctx.store.get("collection", doc["collection"]) or {}
        )
    return body


def _invite_of(ctx: Ctx, org_id: str) -> dict[str, Any] | None:
    doc = ctx.store.get(INVITE, ctx.params["inviteId"])
    if doc is None or doc.get("organization") != org_id:
        return None
    if not _target_alive(ctx, doc):
        ctx.store.delete(INVITE, doc["id"])
        return None
    return doc


def _forget_orphans(ctx: Ctx, org_id: str) -> None:
    for doc in ctx.store.all(INVITE, [("org = ?", [org_id])]):
        if not _target_alive(ctx, doc):
            ctx.store.delete(INVITE, doc["id"])


@endpoint("GET", PATH)
def list_invites(ctx: Ctx) -> dict[str, Any]:
    org_id = require_org(ctx, ctx.params["organizationId"], write=True)["id"]
    _forget_orphans(ctx, org_id)
    return list_page(
        ctx, INVITE, [("org = ?", [org_id])], lambda doc: render_invite(ctx, doc, listed=True)
    )


@endpoint("POST", PATH, 201)
def create_invite(ctx: Ctx) -> JSONResponse:
    """A new invite; the answer carries ``Location`` (which holds the id, like the answer)."""
    org_id = require_org(ctx, ctx.params["organizationId"], write=True)["id"]
    body = ctx.body_as(InviteBody)
    form, target = _target_of(ctx, org_id, body)
    doc: dict[str, Any] = {"id": new_id(32), "organization": org_id, "form": form}
    doc["role"] = _role(body, "role" if form == "organization" else "level")
    if target is not None:
        doc[form] = target["id"]
    ctx.store.insert(INVITE, doc, org=org_id)
    location = f"{API_BASE}/orgs/{org_id}/link-invites/{doc['id']}"
    return JSONResponse(render_invite(ctx, doc), status_code=201, headers={"Location": location})


@endpoint("GET", PATH + "/{inviteId}")
def get_invite(ctx: Ctx) -> dict[str, Any]:
    org_id = require_org(ctx, ctx.params["organizationId"], write=True)["id"]
    doc = _invite_of(ctx, org_id)
    if doc is None:
        raise not_found("invite", ctx.params["inviteId"])
    return render_invite(ctx, doc)


@endpoint("PATCH", PATH + "/{inviteId}")
def patch_invite(ctx: Ctx) -> dict[str, Any]:
    org_id = require_org(ctx, ctx.params["organizationId"], write=True)["id"]
    doc = _invite_of(ctx, org_id)
    if doc is None:
        raise not_found("invite", ctx.params["inviteId"])
    body = ctx.body_as(InviteBody)
    key = "role" if doc["form"] == "organization" else "level"
    other = sorted(body.model_fields_set - {key})
    if other:
        raise bad_request(
            f"{other[0]}: a {doc['form']} invite takes {{{key}}} only; its target never changes"
        )
    doc["role"] = _role(body, key)
    ctx.store.update(INVITE, doc)
    return render_invite(ctx, doc)


@endpoint("DELETE", PATH + "/{inviteId}", 205)
def delete_invite(ctx: Ctx) -> Response | None:
    """205 when it deleted the invite, 204 when there was none."""
    org_id = require_org(ctx, ctx.params["organizationId"], write=True)["id"]
    doc = _invite_of(ctx, org_id)
    if doc is None:
        return None
    ctx.store.delete(INVITE, doc["id"])
    return removed()
