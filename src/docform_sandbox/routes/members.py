"""Organization members: list, get, change role, remove, mark as SSO, and invite by email.

Choices where the spec is silent:
- ``sort=lastSeenAt`` lists only active members; "active" means not ``disabled``.
- ``search`` is a case-insensitive substring match on the user's displayName or email.
- Changing members needs the admin role; the sandbox does not refuse to demote or remove the
  last admin (docform's own safety rails guard that, before any call).
- Removing a member: an admin's call removes it (205) or finds no such member (204). The
  definition lets the call "request an organization admin to do it" (202) without saying
  whose call does that: the sandbox answers 202 to a member who is not an admin, and to
  everyone in an organization seeded with ``memberRemovalApproval: true``; it removes nothing
  and records the request (``member-removal-request``, one per member asked about).
- An invite adds the member at once (no pending state): a new user gets a fresh id and the
  email's local part as displayName. Inviting an existing member changes nothing and is not
  counted; ``failedSSOEmails`` is never reported because the sandbox cannot fail SSO.
- An empty ``emails`` list is a 400. Emails match users case-insensitively.
- ``spaces`` and ``sites`` on a Member count the spaces (not deleted) and sites the user was
  granted a role on directly; a team's grants count on the team.
- A seeded user may have no email (the service does not promise one): its User leaves
  ``email`` out, and it can be found by id only.
- ``ping`` marks the caller's own membership as seen now (a token that is no member's, like a
  ``--token`` admin token, marks nothing); it needs a token like every other call.
  ``gitbookVisitorClaims`` (the name the definition gives it) is an opaque string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.access import caller_membership, is_admin, member_key, require_org
from docform_sandbox.documents import member_document, user_document
from docform_sandbox.grants import USER, forget_principal, granted_counts
from docform_sandbox.http import (
    API_BASE,
    ROLES,
    Body,
    Ctx,
    Query,
    bad_request,
    check_role,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.shared import removed
from docform_sandbox.store import marks

EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
GUEST = "guest"
#: A member's removal asked for by a member who is not an admin, waiting for the admins.
REMOVAL_REQUEST = "member-removal-request"


def _user_field_sql(field: str) -> str:
    """SQL reading a field of the user document behind the member row of the outer query."""
    return (
        f"(SELECT json_extract(u.data, '$.{field}') FROM objects u "
        "WHERE u.kind = 'user' AND u.id = json_extract(objects.data, '$.user'))"
    )


SORTS = {
    "joinedAt": "json_extract(data, '$.joinedAt')",
    "lastSeenAt": "json_extract(data, '$.lastSeenAt')",
    "name": f"lower(coalesce({_user_field_sql('displayName')}, ''))",
}


def render_user(user_doc: dict[str, Any]) -> dict[str, Any]:
    """A User object: ``{object, id, displayName, email?, photoURL?, urls: {location}}``; the
    service does not promise an email (a user may have none), so it is left out when unknown."""
    user_id = user_doc["id"]
    body: dict[str, Any] = {
        "object": "user",
        "id": user_id,
        "displayName": user_doc.get("displayName") or user_id,
    }
    for name in ("email", "photoURL"):
        if user_doc.get(name):
            body[name] = user_doc[name]
    body["urls"] = {"location": f"{API_BASE}/users/{user_id}"}
    return body


def render_member(ctx: Ctx, member_doc: dict[str, Any]) -> dict[str, Any]:
    """A Member object; its ``id`` is the user's id, ``teams`` counts its team memberships."""
    return render_members(ctx, [member_doc])[0]


def render_members(ctx: Ctx, member_docs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`render_member` of each of ``member_docs`` (of one organization): their users and each
    count read in one query for them all, as a list page shows them."""
    if not member_docs:
        return []
    org_id = member_docs[0]["organization"]
    user_ids = [doc["user"] for doc in member_docs]
    users = ctx.store.get_many("user", user_ids)
    in_users = (f"json_extract(data, '$.user') IN ({marks(len(user_ids))})", user_ids)
    teams = ctx.store.count_by(
        "team-member", "json_extract(data, '$.user')", [("org = ?", [org_id]), in_users]
    )
    spaces = granted_counts(ctx, org_id, USER, user_ids, "space")
    sites = granted_counts(ctx, org_id, USER, user_ids, "site")
    return [
        _member_body(doc, users.get(doc["user"]) or {"id": doc["user"]}, teams, spaces, sites)
        for doc in member_docs
    ]


def _member_body(
    member_doc: dict[str, Any], user_doc: dict[str, Any], *counts: dict[str, int]
) -> dict[str, Any]:
    user_id = member_doc["user"]
    teams, spaces, sites = (count.get(user_id, 0) for count in counts)
    body = {
        "object": "member",
        "id": user_id,
        "role": member_doc["role"],
        "user": render_user(user_doc),
        "disabled": member_doc.get("disabled", False),
        "joinedAt": member_doc["joinedAt"],
    }
    if member_doc.get("lastSeenAt"):
        body["lastSeenAt"] = member_doc["lastSeenAt"]
    body.update(sso=member_doc.get("sso", False), spaces=spaces, teams=teams, sites=sites)
    return body


def find_member(ctx: Ctx, org_id: str, user_id: str) -> dict[str, Any]:
    """The member document of ``user_id`` in ``org_id``, or 404."""
    member = ctx.store.get("member", member_key(org_id, user_id))
    if member is None:
        raise not_found("member", user_id)
    return member


def find_user_by_email(ctx: Ctx, email: str) -> dict[str, Any] | None:
    users = ctx.store.all("user", [("lower(json_extract(data, '$.email')) = ?", [email.lower()])])
    return users[0] if users else None


# -- list --------------------------------------------------------------------------------------


class MemberListQuery(Query):
    role: str | None = None
    search: str | None = None
    sort: str = "joinedAt"


def _member_filters(org_id: str, q: MemberListQuery) -> list[tuple[str, list[Any]]]:
    where: list[tuple[str, list[Any]]] = [("org = ?", [org_id])]
    if q.role == GUEST:
        where.append(("json_extract(data, '$.role') IS NULL", []))
    elif q.role is not None:
        if q.role not in ROLES:
            names = ", ".join(repr(r) for r in (*ROLES, GUEST))
            raise bad_request(f"role: must be one of {names}, not {q.role!r}")
        where.append(("json_extract(data, '$.role') = ?", [q.role]))
    if q.search:
        needle = q.search.lower()
        name, email = _user_field_sql("displayName"), _user_field_sql("email")
        clause = f"instr(lower({name}), ?) > 0 OR instr(lower({email}), ?) > 0"
        where.append((clause, [needle, needle]))
    if q.sort == "lastSeenAt":
        where.append(("NOT json_extract(data, '$.disabled')", []))
    return where


@endpoint("GET", "/orgs/{organizationId}/members")
def list_members(ctx: Ctx) -> dict[str, Any]:
    """Members of an organization, filtered by role and search, in the order ``sort`` names."""
    org = require_org(ctx, ctx.params["organizationId"])
    q = ctx.query_as(MemberListQuery)
    if q.sort not in SORTS:
        names = ", ".join(repr(s) for s in SORTS)
        raise bad_request(f"sort: must be one of {names}, not {q.sort!r}")
    where = _member_filters(org["id"], q)
    return list_page(
        ctx, "member", where, render_page=lambda docs: render_members(ctx, docs), sort=SORTS[q.sort]
    )


# -- one member --------------------------------------------------------------------------------


@endpoint("GET", "/orgs/{organizationId}/members/{userId}")
def get_member(ctx: Ctx) -> dict[str, Any]:
    org = require_org(ctx, ctx.params["organizationId"])
    return render_member(ctx, find_member(ctx, org["id"], ctx.params["userId"]))


class MemberPatch(Body):
    role: str | None = None


@endpoint("PATCH", "/orgs/{organizationId}/members/{userId}")
def patch_member(ctx: Ctx) -> dict[str, Any]:
    """Change a member's role (null makes the member a guest)."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    member = find_member(ctx, org["id"], ctx.params["userId"])
    patch = ctx.body_as(MemberPatch)
    if "role" in patch.model_fields_set:
        check_role(patch.role, "role")
        member["role"] = patch.role
        ctx.store.update("member", member)
    return render_member(ctx, member)


@endpoint("DELETE", "/orgs/{organizationId}/members/{userId}", 205)
def delete_member(ctx: Ctx) -> Response:
    """Remove a member, its team memberships and content grants (205); 204 when not a member;
    202 when the caller is a member but no admin, or the organization's removals wait for
    approval: a removal request for the admins."""
    org = require_org(ctx, ctx.params["organizationId"])
    user_id = ctx.params["userId"]
    key = member_key(org["id"], user_id)
    if ctx.store.get("member", key) is None:
        return Response(status_code=204)
    if org.get("memberRemovalApproval") or not is_admin(ctx, org["id"]):
        request = {"id": key, "user": user_id, "requestedBy": ctx.caller.user_id}
        ctx.store.delete(REMOVAL_REQUEST, key)
        ctx.store.insert(REMOVAL_REQUEST, request, org=org["id"])
        return Response(status_code=202)
    ctx.store.delete("member", key)
    ctx.store.delete_where(
        "team-member", [("org = ?", [org["id"]]), ("json_extract(data, '$.user') = ?", [user_id])]
    )
    forget_principal(ctx, org["id"], USER, user_id)
    return removed()


@endpoint("POST", "/orgs/{organizationId}/members/{userId}/sso")
def set_member_sso(ctx: Ctx) -> dict[str, Any]:
    """Mark a member as signing in through SSO."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    member = find_member(ctx, org["id"], ctx.params["userId"])
    member["sso"] = True
    ctx.store.update("member", member)
    return render_member(ctx, member)


@endpoint("POST", "/orgs/{organizationId}/ping")
def ping(ctx: Ctx) -> dict[str, Any]:
    """Update the caller's last-seen time in the organization."""
    org = require_org(ctx, ctx.params["organizationId"])
    membership = caller_membership(ctx, org["id"])
    if membership is not None:
        membership["lastSeenAt"] = timestamp(ctx.now())
        ctx.store.update("member", membership)
    return {"gitbookVisitorClaims": f"visitor:{org['id']}"}


# -- invites -----------------------------------------------------------------------------------


class InviteBody(Body):
    emails: list[Any] = Field(min_length=1)
    role: str | None = None
    sso: bool | None = None


def _parse_invitees(body: InviteBody, default_role: str | None) -> list[tuple[str, str | None]]:
    """Each invited (email, role), checked; an entry's own role wins over the body's."""
    invitees = []
    for i, entry in enumerate(body.emails):
        role = default_role
        if isinstance(entry, dict):
            email = entry.get("email")
            if "role" in entry:
                check_role(entry["role"], f"emails.{i}.role")
                role = entry["role"]
        else:
            email = entry
        if not isinstance(email, str) or not EMAIL_PATTERN.match(email):
            raise bad_request(f"emails.{i}: {email!r} is not an email address")
        invitees.append((email, role))
    return invitees


@endpoint("POST", "/orgs/{organizationId}/invites")
def invite_members(ctx: Ctx) -> dict[str, Any]:
    """Add users to the organization by email, creating users unknown to the service."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    body = ctx.body_as(InviteBody)
    if "role" in body.model_fields_set:
        check_role(body.role, "role")
        default_role = body.role
    else:
        default_role = org.get("defaultRole")
    added: list[str] = []
    now = timestamp(ctx.now())
    for email, role in _parse_invitees(body, default_role):
        user = find_user_by_email(ctx, email)
        if user is None:
            user = ctx.store.insert("user", user_document(new_id(), email, None))
        if ctx.store.get("member", member_key(org["id"], user["id"])) is not None:
            continue
        doc = member_document(org["id"], user["id"], role, now, sso=bool(body.sso))
        ctx.store.insert("member", doc, org=org["id"])
        added.append(user["id"])
    return {"users": added, "invited": len(added)}
