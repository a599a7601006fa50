"""A space as the sandbox stores and shows it: its answer, its lookups, its soft delete.

The spaces family (``spaces.py``) serves these; collections, permissions, link invites and
sites read spaces through them too.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from docform_sandbox.access import caller_membership, require_in_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    PUBLISHED_BASE,
    Ctx,
    not_found,
    parse_timestamp,
    timestamp,
)

RESTORE_WINDOW = timedelta(days=7)
SPACE_FIELDS = (
    "id", "title", "emoji", "organization", "visibility", "revision", "createdAt", "updatedAt",
    "deletedAt", "editMode", "mergeRules", "parent", "language", "defaultLevel", "gitSync",
)  # fmt: skip
# Roles from most to least capable; a member's role grants everything of the roles after it.
ROLE_ORDER = ("admin", "create", "review", "edit", "comment", "read")


# -- the answer ---------------------------------------------------------------------------------


def render_space(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    """The API's Space: stored fields plus counters, ``urls`` and the caller's ``permissions``."""
    body: dict[str, Any] = {"object": "space", **{k: doc[k] for k in SPACE_FIELDS if k in doc}}
    body.update(comments=0, changeRequests=0, changeRequestsOpen=0, changeRequestsDraft=0)
    body["urls"] = _space_urls(ctx, doc)
    body["permissions"] = _space_permissions(ctx, doc["organization"])
    return body


def _space_urls(ctx: Ctx, doc: dict[str, Any]) -> dict[str, str]:
    urls = {
        "location": f"{API_BASE}/spaces/{doc['id']}",
        "app": f"{APP_BASE}/o/{doc['organization']}/s/{doc['id']}",
    }
    published = _published_url(ctx, doc["id"])
    if published:
        urls["published"] = published
    if doc.get("visibility") in ("public", "unlisted"):
        urls["public"] = f"{PUBLISHED_BASE}/s/{doc['id']}"
    if doc.get("icon"):
        urls["icon"] = doc["icon"]
    return urls


def _published_url(ctx: Ctx, space_id: str) -> str | None:
    """Where the first site space showing this space is published, if any shows it."""
    for site_space in ctx.store.all("site-space", [_shows_space(space_id)]):
        located = ctx.store.locate("site-space", site_space["id"])
        site = ctx.store.get("site", located[1]) if located and located[1] else None
        if site is not None:
            path = site_space.get("path", "")
            return f"{PUBLISHED_BASE}/{site.get('basename', site['id'])}/{path}".rstrip("/")
    return None


def _space_permissions(ctx: Ctx, org_id: str) -> dict[str, bool]:
    role = caller_role(ctx, org_id)
    rank = ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER)
    admin = rank == 0
    return {
        "view": True,
        "access": True,
        "admin": admin,
        "viewInviteLinks": admin,
        "edit": rank <= ROLE_ORDER.index("edit"),
        "triggerGitSync": admin,
        "comment": rank <= ROLE_ORDER.index("comment"),
        "merge": rank <= ROLE_ORDER.index("review"),
        "review": rank <= ROLE_ORDER.index("review"),
        "installIntegration": admin,
    }


def caller_role(ctx: Ctx, org_id: str) -> str | None:
    """The caller's role in an organization (``admin`` for an all-organization token)."""
    if ctx.caller.superuser:
        return "admin"
    membership = caller_membership(ctx, org_id)
    return membership.get("role") if membership else None


# -- lookups -----------------------------------------------------------------------------------


def _shows_space(space_id: str) -> tuple[str, list[str]]:
    return ("json_extract(data, '$.space') = ?", [space_id])


def is_removed(ctx: Ctx, doc: dict[str, Any]) -> bool:
    """Deleted more than 7 days ago: permanently removed, gone for every purpose."""
    deleted_at = doc.get("deletedAt")
    return bool(deleted_at) and ctx.now() - parse_timestamp(str(deleted_at)) > RESTORE_WINDOW


def space_row(ctx: Ctx, space_id: str, *, write: bool = False) -> dict[str, Any]:
    """A space, deleted or not, unless it never existed or is permanently removed (404)."""
    doc = require_in_org(ctx, "space", space_id, write=write)
    if is_removed(ctx, doc):
        raise not_found("space", space_id)
    return doc


def active_space(ctx: Ctx, space_id: str, *, write: bool = False) -> dict[str, Any]:
    """A space that is not deleted; a deleted one answers 404 like a missing one."""
    doc = space_row(ctx, space_id, write=write)
    if doc.get("deletedAt"):
        raise not_found("space", space_id)
    return doc


# -- deletion ----------------------------------------------------------


def soft_delete_space(ctx: Ctx, doc: dict[str, Any]) -> None:
    """Mark a space deleted (restorable for 7 days) and take it off every site."""
    now = timestamp(ctx.now())
    doc["deletedAt"] = now
    doc["updatedAt"] = now
    ctx.store.update("space", doc)
    ctx.store.delete_where("site-space", [_shows_space(doc["id"])])
