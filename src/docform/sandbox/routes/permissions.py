"""Content permissions: the roles teams and users are granted on spaces, collections and sites.

The same seven operations for each of the three (``/spaces/{spaceId}/permissions...``,
``/collections/{collectionId}/permissions...``, ``/orgs/{organizationId}/sites/{siteId}/
permissions...``): grant, list the teams' and the users' grants, change or remove one, and the
read-only ``aggregate`` list of who ends up with access (its model: ``grants.py``).

Choices where the API documents are silent:

- Reading grants needs membership of the organization, changing them its admin role, like
  every other change (``access.py``). A deleted space answers 404, as for its other operations.
- A grant body names teams or users, not both, each list holding at least one id; a team must
  be one of the organization's, a user one of its members (guests included), else the answer
  is a 400 naming the entry and nothing changes. Granting again replaces the role.
- ``null`` (guest) is accepted and listed on all three; a site's PATCH takes a role only.
- PATCH of a team or user that has no grant on the object answers 404; a body without
  ``role`` changes nothing.
- DELETE answers 205 when it removed a grant and 204 when there was none, except for a team
  on a space whose only access comes from a grant on a collection the space is in: that is a
  400 ("team does not have access to space"), since the grant to remove is the collection's.
- Lists of grants are in the order they were given, honouring ``order`` (newest first by
  default) like other lists. The aggregate lists go by the user's display name (A to Z);
  ``role`` keeps one role (``guest`` for null). A site's aggregate list also takes ``search``
  (display name or email contains, any case), ``team`` (members of that team only), ``sort``
  (``name`` or ``role``, most capable first) and ``order`` (``asc`` default, or ``desc``).
- Grants go when their team is deleted, their user leaves the organization, or their object
  is deleted (a space's stay while it can be restored).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from starlette.responses import Response

from docform.sandbox.access import member_key, require_in_org
from docform.sandbox.grants import (
    GRANT,
    TEAM,
    USER,
    Principal,
    Target,
    effective_roles,
    find_grant,
    grants_where,
    inherited_from,
    rank,
    set_grant,
)
from docform.sandbox.http import (
    ROLES,
    ApiError,
    Body,
    Ctx,
    ListQuery,
    bad_request,
    endpoint,
    list_page,
)
from docform.sandbox.routes.members import GUEST, render_user
from docform.sandbox.routes.shared import removed
from docform.sandbox.routes.site_lists import page_of
from docform.sandbox.routes.site_tree import site_of
from docform.sandbox.routes.spaces import active_space
from docform.sandbox.routes.teams import render_team
from docform.sandbox.seed import Role

SPACES, COLLECTIONS = "/spaces/{spaceId}/permissions", "/collections/{collectionId}/permissions"
SITES = "/orgs/{organizationId}/sites/{siteId}/permissions"


# -- the objects grants are on -------------------------------------------------------------------


def space_target(ctx: Ctx, *, write: bool = False) -> Target:
    doc = active_space(ctx, ctx.params["spaceId"], write=write)
    return Target("space", doc["id"], doc["organization"])


def collection_target(ctx: Ctx, *, write: bool = False) -> Target:
    doc = require_in_org(ctx, "collection", ctx.params["collectionId"], write=write)
    return Target("collection", doc["id"], doc["organization"])


def site_target(ctx: Ctx, *, write: bool = False) -> Target:
    site = site_of(ctx, write=write)
    return Target("site", site["id"], site["organization"])


# -- bodies and queries --------------------------------------------------------------------------


class GrantBody(Body):
    role: Role | None
    teams: list[str] | None = Field(None, min_length=1)
    users: list[str] | None = Field(None, min_length=1)


class RolePatch(Body):
    role: Role | None = None


class SiteRolePatch(Body):
    role: Role | None = None


class AggregateQuery(ListQuery):
    role: str | None = None


class SiteAggregateQuery(AggregateQuery):
    search: str | None = None
    team: str | None = None
    sort: Literal["name", "role"] = "name"
    order: Literal["asc", "desc"] = "asc"


# -- what the operations do ----------------------------------------------------------------------


def grant(ctx: Ctx, target: Target, body: GrantBody) -> None:
    """Give ``body.role`` to each team or user named, after checking every one of them."""
    if (body.teams is None) == (body.users is None):
        raise bad_request("body: give either teams or users (each a list of 1 or more ids)")
    principal: Principal = TEAM if body.teams is not None else USER
    ids = body.teams if body.teams is not None else body.users
    assert ids is not None
    for i, principal_id in enumerate(ids):
        if not _exists(ctx, target.org, principal, principal_id):
            what = "no team" if principal == TEAM else "no member"
            raise bad_request(f"{principal}s.{i}: {what} '{principal_id}' in this organization")
    for principal_id in ids:
        set_grant(ctx, target, principal, principal_id, body.role)


def _exists(ctx: Ctx, org_id: str, principal: Principal, principal_id: str) -> bool:
    if principal == TEAM:
        team = ctx.store.get("team", principal_id)
        return team is not None and team.get("organization") == org_id
    return ctx.store.get("member", member_key(org_id, principal_id)) is not None


def change(
    ctx: Ctx, target: Target, principal: Principal, patch: RolePatch | SiteRolePatch
) -> None:
    """Set the role of an existing grant (404 when the team or user has none here)."""
    principal_id = ctx.params[f"{principal}Id"]
    current = find_grant(ctx, target, principal, principal_id)
    if current is None:
        raise ApiError(404, f"{principal} '{principal_id}' has no permission on {target.label}")
    if "role" not in patch.model_fields_set:
        return
    if isinstance(patch, SiteRolePatch) and patch.role is None:
        raise bad_request("role: must be a role, not null")
    set_grant(ctx, target, principal, principal_id, patch.role)


def remove(ctx: Ctx, target: Target, principal: Principal) -> Response | None:
    """205 with the grant removed, 204 when there was none (see the module's note on 400)."""
    principal_id = ctx.params[f"{principal}Id"]
    current = find_grant(ctx, target, principal, principal_id)
    if current is not None:
        ctx.store.delete(GRANT, current["id"])
        return removed()
    if principal == TEAM and target.kind == "space":
        for above in inherited_from(ctx, target):
            if find_grant(ctx, above, TEAM, principal_id) is not None:
                raise bad_request(
                    f"team does not have access to space '{target.id}' itself: team "
                    f"'{principal_id}' has its role through {above.label}; remove it there"
                )
    return None


def render_team_grant(ctx: Ctx, grant_doc: dict[str, Any]) -> dict[str, Any]:
    team = ctx.store.get("team", grant_doc[TEAM])
    assert team is not None, "deleting a team also removes its grants"
    return {"permission": grant_doc["role"], "team": render_team(ctx, team)}


def render_user_grant(ctx: Ctx, grant_doc: dict[str, Any]) -> dict[str, Any]:
    user = ctx.store.get("user", grant_doc[USER]) or {"id": grant_doc[USER]}
    return {"permission": grant_doc["role"], "user": render_user(user)}


def aggregate(ctx: Ctx, target: Target, q: AggregateQuery) -> dict[str, Any]:
    """The list of who ends up with access, filtered and sorted as ``q`` says."""
    roles = effective_roles(ctx, target)
    if q.role is not None:
        if q.role not in (*ROLES, GUEST):
            raise bad_request(f"role: must be a role or '{GUEST}', not {q.role!r}")
        wanted = None if q.role == GUEST else q.role
        roles = {user: role for user, role in roles.items() if role == wanted}
    rows = [
        {"id": user_id, "role": role, "user": ctx.store.get("user", user_id) or {"id": user_id}}
        for user_id, role in roles.items()
    ]
    rows.sort(key=lambda row: (str(row["user"].get("displayName", "")).lower(), row["id"]))
    if isinstance(q, SiteAggregateQuery):
        rows = _site_filters(ctx, target, q, rows)
        if q.sort == "role":
            rows.sort(key=lambda row: rank(row["role"]))  # stable: by name within a role
        if q.order == "desc":
            rows.reverse()
    return page_of(
        ctx, rows, lambda row: {"permission": row["role"], "user": render_user(row["user"])}
    )


def _site_filters(
    ctx: Ctx, target: Target, q: SiteAggregateQuery, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    if q.search:
        needle = q.search.lower()
        texts = ("displayName", "email")
        rows = [r for r in rows if any(needle in str(r["user"].get(t, "")).lower() for t in texts)]
    if q.team is not None:
        if not _exists(ctx, target.org, TEAM, q.team):
            raise bad_request(f"team: no team '{q.team}' in this organization")
        in_team = {m["user"] for m in ctx.store.all("team-member", [("parent = ?", [q.team])])}
        rows = [r for r in rows if r["id"] in in_team]
    return rows


# -- spaces --------------------------------------------------------------------------------------


@endpoint("POST", SPACES, 204)
def grant_on_space(ctx: Ctx) -> None:
    """Give teams or users a role on a space."""
    grant(ctx, space_target(ctx, write=True), ctx.body_as(GrantBody))


@endpoint("GET", f"{SPACES}/teams")
def list_space_teams(ctx: Ctx) -> dict[str, Any]:
    """The teams granted a role on a space."""
    target = space_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, TEAM), lambda g: render_team_grant(ctx, g))


@endpoint("PATCH", f"{SPACES}/teams/{{teamId}}", 204)
def change_space_team(ctx: Ctx) -> None:
    """Change the role a team has on a space."""
    change(ctx, space_target(ctx, write=True), TEAM, ctx.body_as(RolePatch))


@endpoint("DELETE", f"{SPACES}/teams/{{teamId}}", 205)
def remove_space_team(ctx: Ctx) -> Response | None:
    """Take a team's role on a space away."""
    return remove(ctx, space_target(ctx, write=True), TEAM)


@endpoint("GET", f"{SPACES}/users")
def list_space_users(ctx: Ctx) -> dict[str, Any]:
    """The users granted a role on a space."""
    target = space_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, USER), lambda g: render_user_grant(ctx, g))


@endpoint("PATCH", f"{SPACES}/users/{{userId}}", 204)
def change_space_user(ctx: Ctx) -> None:
    """Change the role a user has on a space."""
    change(ctx, space_target(ctx, write=True), USER, ctx.body_as(RolePatch))


@endpoint("DELETE", f"{SPACES}/users/{{userId}}", 205)
def remove_space_user(ctx: Ctx) -> Response | None:
    """Take a user's role on a space away."""
    return remove(ctx, space_target(ctx, write=True), USER)


@endpoint("GET", f"{SPACES}/aggregate")
def list_space_access(ctx: Ctx) -> dict[str, Any]:
    """Who ends up with access to a space, whatever the source (read only)."""
    return aggregate(ctx, space_target(ctx), ctx.query_as(AggregateQuery))


# -- collections ---------------------------------------------------------------------------------


@endpoint("POST", COLLECTIONS, 204)
def grant_on_collection(ctx: Ctx) -> None:
    """Give teams or users a role on a collection."""
    grant(ctx, collection_target(ctx, write=True), ctx.body_as(GrantBody))


@endpoint("GET", f"{COLLECTIONS}/teams")
def list_collection_teams(ctx: Ctx) -> dict[str, Any]:
    """The teams granted a role on a collection."""
    target = collection_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, TEAM), lambda g: render_team_grant(ctx, g))


@endpoint("PATCH", f"{COLLECTIONS}/teams/{{teamId}}", 204)
def change_collection_team(ctx: Ctx) -> None:
    """Change the role a team has on a collection."""
    change(ctx, collection_target(ctx, write=True), TEAM, ctx.body_as(RolePatch))


@endpoint("DELETE", f"{COLLECTIONS}/teams/{{teamId}}", 205)
def remove_collection_team(ctx: Ctx) -> Response | None:
    """Take a team's role on a collection away."""
    return remove(ctx, collection_target(ctx, write=True), TEAM)


@endpoint("GET", f"{COLLECTIONS}/users")
def list_collection_users(ctx: Ctx) -> dict[str, Any]:
    """The users granted a role on a collection."""
    target = collection_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, USER), lambda g: render_user_grant(ctx, g))


@endpoint("PATCH", f"{COLLECTIONS}/users/{{userId}}", 204)
def change_collection_user(ctx: Ctx) -> None:
    """Change the role a user has on a collection."""
    change(ctx, collection_target(ctx, write=True), USER, ctx.body_as(RolePatch))


@endpoint("DELETE", f"{COLLECTIONS}/users/{{userId}}", 205)
def remove_collection_user(ctx: Ctx) -> Response | None:
    """Take a user's role on a collection away."""
    return remove(ctx, collection_target(ctx, write=True), USER)


@endpoint("GET", f"{COLLECTIONS}/aggregate")
def list_collection_access(ctx: Ctx) -> dict[str, Any]:
    """Who ends up with access to a collection, whatever the source (read only)."""
    return aggregate(ctx, collection_target(ctx), ctx.query_as(AggregateQuery))


# -- sites ---------------------------------------------------------------------------------------


@endpoint("POST", SITES, 204)
def grant_on_site(ctx: Ctx) -> None:
    """Give teams or users a role (or guest access) on a site."""
    grant(ctx, site_target(ctx, write=True), ctx.body_as(GrantBody))


@endpoint("GET", f"{SITES}/teams")
def list_site_teams(ctx: Ctx) -> dict[str, Any]:
    """The teams granted a role on a site."""
    target = site_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, TEAM), lambda g: render_team_grant(ctx, g))


@endpoint("PATCH", f"{SITES}/teams/{{teamId}}", 204)
def change_site_team(ctx: Ctx) -> None:
    """Change the role a team has on a site."""
    change(ctx, site_target(ctx, write=True), TEAM, ctx.body_as(SiteRolePatch))


@endpoint("DELETE", f"{SITES}/teams/{{teamId}}", 205)
def remove_site_team(ctx: Ctx) -> Response | None:
    """Take a team's role on a site away."""
    return remove(ctx, site_target(ctx, write=True), TEAM)


@endpoint("GET", f"{SITES}/users")
def list_site_users(ctx: Ctx) -> dict[str, Any]:
    """The users granted a role on a site."""
    target = site_target(ctx)
    return list_page(ctx, GRANT, grants_where(target, USER), lambda g: render_user_grant(ctx, g))


@endpoint("PATCH", f"{SITES}/users/{{userId}}", 204)
def change_site_user(ctx: Ctx) -> None:
    """Change the role a user has on a site."""
    change(ctx, site_target(ctx, write=True), USER, ctx.body_as(SiteRolePatch))


@endpoint("DELETE", f"{SITES}/users/{{userId}}", 205)
def remove_site_user(ctx: Ctx) -> Response | None:
    """Take a user's role on a site away."""
    return remove(ctx, site_target(ctx, write=True), USER)


@endpoint("GET", f"{SITES}/aggregate")
def list_site_access(ctx: Ctx) -> dict[str, Any]:
    """Who ends up with access to a site, whatever the source (read only)."""
    return aggregate(ctx, site_target(ctx), ctx.query_as(SiteAggregateQuery))
