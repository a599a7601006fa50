"""Who may do what in the sandbox.

The API does not document the role each operation needs; the sandbox takes the simplest rule
that real organizations follow: any member (guests included) may read an organization, only
its admins may change it, and a token given with ``--token`` acts as an admin everywhere.
"""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import ApiError, Ctx, not_found


def member_key(org_id: str, user_id: str) -> str:
    return f"{org_id}/{user_id}"


def caller_membership(ctx: Ctx, org_id: str) -> dict[str, Any] | None:
    if ctx.caller.user_id is None:
        return None
    return ctx.store.get("member", member_key(org_id, ctx.caller.user_id))


def require_org(ctx: Ctx, org_id: str, *, write: bool = False) -> dict[str, Any]:
    """The organization, after checking the caller may read it (or change it, with ``write``)."""
    org = ctx.store.get("organization", org_id)
    if org is None:
        raise not_found("organization", org_id)
    if ctx.caller.superuser:
        return org
    membership = caller_membership(ctx, org_id)
    if membership is None:
        raise ApiError(403, f"you are not a member of organization '{org_id}'")
    if write and membership.get("role") != "admin":
        raise ApiError(403, f"changing organization '{org_id}' needs the admin role")
    return org


def require_admin_to_read(ctx: Ctx, org_id: str, what: str) -> dict[str, Any]:
    """The organization, after checking the caller is one of its admins: for what only admins
    may read (``what``, as the refusal names it), such as what holds keys or secrets."""
    org = require_org(ctx, org_id)
    if not is_admin(ctx, org_id):
        raise ApiError(403, f"reading the {what} of organization '{org_id}' needs the admin role")
    return org


def is_admin(ctx: Ctx, org_id: str) -> bool:
    if ctx.caller.superuser:
        return True
    membership = caller_membership(ctx, org_id)
    return bool(membership and membership.get("role") == "admin")


def require_in_org(ctx: Ctx, kind: str, id: str, *, write: bool = False) -> dict[str, Any]:
    """A document addressed by id alone (``/spaces/{id}``), after checking access to its org."""
    located = ctx.store.locate(kind, id)
    if located is None:
        raise not_found(kind.replace("-", " "), id)
    org_id = located[0]
    if org_id is not None:
        require_org(ctx, org_id, write=write)
    doc = ctx.store.get(kind, id)
    assert doc is not None
    return doc
