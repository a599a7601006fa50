"""Content permissions: the roles teams and users are granted on spaces, collections and sites.

The same operations for each of the three (``/spaces/{spaceId}/permissions...``,
``/collections/{collectionId}/permissions...``, ``/orgs/{organizationId}/sites/{siteId}/
permissions...``): grant, list the teams' and the users' grants, change or remove one, and the
read-only ``aggregate`` list of who ends up with access (its model: ``grants.py``). They are
made once, by `permission_endpoints`, from what differs between the three (`GrantsOn`).

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.access import member_key, require_in_org
from docform_sandbox.documents import Role
from docform_sandbox.grants import (
    GRANT,
    TEAM,
    USER,
    Principal,
    Target,
    effective_access,
    find_grant,
    grants_where,
    inherited_from,
    rank,
    set_grant,
)
from docform_sandbox.http import (
    ROLES,
    ApiError,
    Body,
    Ctx,
    Endpoint,
    ListQuery,
    bad_request,
    list_page,
)
from docform_sandbox.routes.members import GUEST, render_user
from docform_sandbox.routes.shared import removed
from docform_sandbox.routes.site_lists import page_of
from docform_sandbox.routes.site_tree import site_of
from docform_sandbox.routes.space_rows import active_space
from docform_sandbox.routes.teams import render_team

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
    access = effective_access(ctx, target)
    if q.role is not None:
        if q.role not in (*ROLES, GUEST):
            raise bad_request(f"role: must be a role or '{GUEST}', not {q.role!r}")
        wanted = None if q.role == GUEST else q.role
        access = {user: given for user, given in access.items() if given[0] == wanted}
    rows: list[dict[str, Any]] = [
        {
            "id": user_id,
            "role": role,
            "origin": origin,
            "user": ctx.store.get("user", user_id) or {"id": user_id},
        }
        for user_id, (role, origin) in access.items()
    ]
    rows.sort(key=lambda row: (str(row["user"].get("displayName", "")).lower(), row["id"]))
    if isinstance(q, SiteAggregateQuery):
        rows = _site_filters(ctx, target, q, rows)
        if q.sort == "role":
            rows.sort(key=lambda row: rank(row["role"]))  # stable: by name within a role
        if q.order == "desc":
            rows.reverse()
    if target.kind != "site":
        return page_of(
            ctx, rows, lambda row: {"permission": row["role"], "user": render_user(row["user"])}
        )
    disabled = {
        m["user"] for m in ctx.store.all("member", [("org = ?", [target.org])]) if m.get("disabled")
    }
    return page_of(
        ctx,
        rows,
        lambda row: {
            "permission": row["role"],
            "user": render_user(row["user"]),
            "origin": row["origin"],
            "disabled": row["id"] in disabled,
        },
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


# -- the endpoints, the same for each object ------------------------------------------------------


@dataclass(frozen=True)
class GrantsOn:
    """What the permission endpoints of one kind of object differ in."""

    noun: str  # in the summaries: "a role on a {noun}"
    base: str  # the path the endpoints are under
    find: Callable[..., Target]  # (ctx, write=False): the object the path names
    patch: type[RolePatch] | type[SiteRolePatch]  # a site's PATCH refuses a null role
    aggregate_query: type[AggregateQuery]
    given: str = "a role"  # what POST gives, in its summary


def permission_endpoints(on: GrantsOn) -> list[Endpoint]:
    """Grant, the teams' and the users' grants (list, change, remove), and who has access."""
    # The OpenAPI description finds a handler's models among the values it closes over, so
    # each model is a local of its own here, not read off ``on`` inside a handler.
    find, query = on.find, on.aggregate_query

    def grant_on(ctx: Ctx) -> None:
        grant(ctx, find(ctx, write=True), ctx.body_as(GrantBody))

    def list_access(ctx: Ctx) -> dict[str, Any]:
        return aggregate(ctx, find(ctx), ctx.query_as(query))

    return [
        Endpoint(
            "POST",
            on.base,
            grant_on,
            204,
            f"Give teams or users {on.given} on a {on.noun}.",
        ),
        *_principal_endpoints(on, TEAM, render_team_grant),
        *_principal_endpoints(on, USER, render_user_grant),
        Endpoint(
            "GET",
            f"{on.base}/aggregate",
            list_access,
            summary=f"Who ends up with access to a {on.noun}, whatever the source (read only).",
        ),
    ]


def _principal_endpoints(
    on: GrantsOn, principal: Principal, render: Callable[[Ctx, dict[str, Any]], dict[str, Any]]
) -> list[Endpoint]:
    """List the grants of teams (or users), change one's role, take it away."""
    find, patch = on.find, on.patch

    def list_grants(ctx: Ctx) -> dict[str, Any]:
        target = find(ctx)
        return list_page(ctx, GRANT, grants_where(target, principal), lambda g: render(ctx, g))

    def change_grant(ctx: Ctx) -> None:
        change(ctx, find(ctx, write=True), principal, ctx.body_as(patch))

    def remove_grant(ctx: Ctx) -> Response | None:
        return remove(ctx, find(ctx, write=True), principal)

    one = f"{on.base}/{principal}s/{{{principal}Id}}"
    return [
        Endpoint(
            "GET",
            f"{on.base}/{principal}s",
            list_grants,
            summary=f"The {principal}s granted a role on a {on.noun}.",
        ),
        Endpoint(
            "PATCH",
            one,
            change_grant,
            204,
            f"Change the role a {principal} has on a {on.noun}.",
        ),
        Endpoint(
            "DELETE",
            one,
            remove_grant,
            205,
            f"Take a {principal}'s role on a {on.noun} away.",
        ),
    ]


ON_SPACES = GrantsOn("space", SPACES, space_target, RolePatch, AggregateQuery)
ON_COLLECTIONS = GrantsOn("collection", COLLECTIONS, collection_target, RolePatch, AggregateQuery)
ON_SITES = GrantsOn(
    "site", SITES, site_target, SiteRolePatch, SiteAggregateQuery, "a role (or guest access)"
)
ENDPOINTS: list[Endpoint] = [
    ep for on in (ON_SPACES, ON_COLLECTIONS, ON_SITES) for ep in permission_endpoints(on)
]
