"""Teams and their members: list, create, get, rename, delete, and manage team membership.

Choices where the spec is silent:
- Creating, renaming and deleting teams needs the org admin role; changing a team's members
  needs the org admin role or the team's ``owner`` role (owners "can manage team members").
- ``owner`` filters teams by a member id: teams where that user has the ``owner`` role.
- Team member lists are in the order users joined the team (``order`` is not a parameter).
- Users in a team-members body are resolved by id, else by email (case-insensitively), among
  the organization's members; anything else is a 400 naming the entry, and nothing changes.
- ``PUT .../members/{userId}`` for a user who is not an org member is a 404 (a path id);
  ``DELETE`` of a team membership on an unknown team is a 404 too, only the team DELETE is
  idempotent on a missing team.
- Team ``spaces`` counts the spaces (not deleted) the team was granted a role on.
- Deleting a team also removes the roles it was granted on content (``permissions.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from docform_sandbox.access import is_admin, member_key, require_org
from docform_sandbox.grants import TEAM, forget_principal, granted_count
from docform_sandbox.http import (
    ApiError,
    Body,
    Ctx,
    Query,
    bad_request,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.members import find_user_by_email, render_members

TeamRole = Literal["owner", "member"]


def _team_member_id(team_id: str, user_id: str) -> str:
    return f"{team_id}/{user_id}"


def _team_role(ctx: Ctx, team_id: str, user_id: str | None) -> str | None:
    if user_id is None:
        return None
    membership = ctx.store.get("team-member", _team_member_id(team_id, user_id))
    return membership["role"] if membership else None


def render_team(ctx: Ctx, team_doc: dict[str, Any]) -> dict[str, Any]:
    """A Team object with its member count and the caller's permissions on it."""
    team_id = team_doc["id"]
    can_admin = is_admin(ctx, team_doc["organization"]) or (
        _team_role(ctx, team_id, ctx.caller.user_id) == "owner"
    )
    return {
        "object": "team",
        "id": team_id,
        "title": team_doc["title"],
        "members": ctx.store.count("team-member", [("parent = ?", [team_id])]),
        "spaces": granted_count(ctx, team_doc["organization"], TEAM, team_id, "space"),
        "createdAt": team_doc["createdAt"],
        "permissions": {"admin": can_admin, "view": True},
    }


def find_team(ctx: Ctx, org_id: str, team_id: str) -> dict[str, Any]:
    """The team ``team_id`` of ``org_id``, or 404 (also for a team of another organization)."""
    team = ctx.store.get("team", team_id)
    if team is None or team.get("organization") != org_id:
        raise not_found("team", team_id)
    return team


def _require_team_manager(ctx: Ctx, org_id: str, team_id: str) -> None:
    """Org admins and the team's owners may change its members."""
    if is_admin(ctx, org_id) or _team_role(ctx, team_id, ctx.caller.user_id) == "owner":
        return
    raise ApiError(403, f"changing the members of team '{team_id}' needs the owner role")


def _set_membership(ctx: Ctx, team: dict[str, Any], user_id: str, role: str | None) -> None:
    """Add ``user_id`` to the team (role ``member`` unless given) or set its role."""
    key = _team_member_id(team["id"], user_id)
    current = ctx.store.get("team-member", key)
    if current is None:
        doc = {"id": key, "team": team["id"], "user": user_id, "role": role or "member"}
        ctx.store.insert("team-member", doc, org=team["organization"], parent=team["id"])
    elif role is not None and current["role"] != role:
        current["role"] = role
        ctx.store.update("team-member", current)


# -- teams -------------------------------------------------------------------------------------


class TeamListQuery(Query):
    title: str | None = None
    owner: str | None = None


@endpoint("GET", "/orgs/{organizationId}/teams")
def list_teams(ctx: Ctx) -> dict[str, Any]:
    """Teams of an organization, filtered by title (contains) and by an owner's member id."""
    org = require_org(ctx, ctx.params["organizationId"])
    q = ctx.query_as(TeamListQuery)
    where: list[tuple[str, list[Any]]] = [("org = ?", [org["id"]])]
    if q.title:
        where.append(("instr(lower(json_extract(data, '$.title')), ?) > 0", [q.title.lower()]))
    if q.owner:
        owned = (
            "EXISTS (SELECT 1 FROM objects tm WHERE tm.kind = 'team-member' "
            "AND tm.parent = objects.id AND json_extract(tm.data, '$.user') = ? "
            "AND json_extract(tm.data, '$.role') = 'owner')"
        )
        where.append((owned, [q.owner]))
    return list_page(ctx, "team", where, lambda doc: render_team(ctx, doc))


class TeamCreate(Body):
    title: str = Field(min_length=1, max_length=64)
    members: list[str] | None = None


@endpoint("PUT", "/orgs/{organizationId}/teams", 201)
def create_team(ctx: Ctx) -> dict[str, Any]:
    """Create a team; the listed org members join it with the role ``member``."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    body = ctx.body_as(TeamCreate)
    members = body.members or []
    for i, user_id in enumerate(members):
        if ctx.store.get("member", member_key(org["id"], user_id)) is None:
            raise bad_request(f"members.{i}: '{user_id}' is not a member of this organization")
    team = {
        "id": new_id(),
        "organization": org["id"],
        "title": body.title,
        "createdAt": timestamp(ctx.now()),
    }
    ctx.store.insert("team", team, org=org["id"])
    for user_id in members:
        _set_membership(ctx, team, user_id, None)
    return render_team(ctx, team)


@endpoint("GET", "/orgs/{organizationId}/teams/{teamId}")
def get_team(ctx: Ctx) -> dict[str, Any]:
    org = require_org(ctx, ctx.params["organizationId"])
    return render_team(ctx, find_team(ctx, org["id"], ctx.params["teamId"]))


class TeamPatch(Body):
    title: str | None = Field(None, min_length=1, max_length=64)


@endpoint("PATCH", "/orgs/{organizationId}/teams/{teamId}")
def patch_team(ctx: Ctx) -> dict[str, Any]:
    """Rename a team."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    team = find_team(ctx, org["id"], ctx.params["teamId"])
    patch = ctx.body_as(TeamPatch)
    if "title" in patch.model_fields_set:
        if patch.title is None:
            raise bad_request("title: must be a string of 1 to 64 characters")
        team["title"] = patch.title
        ctx.store.update("team", team)
    return render_team(ctx, team)


@endpoint("DELETE", "/orgs/{organizationId}/teams/{teamId}", 204)
def delete_team(ctx: Ctx) -> None:
    """Delete a team and its memberships; 204 also when there is no such team."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    team_id = ctx.params["teamId"]
    team = ctx.store.get("team", team_id)
    if team is None or team.get("organization") != org["id"]:
        return
    ctx.store.delete_where("team-member", [("parent = ?", [team_id])])
    forget_principal(ctx, org["id"], TEAM, team_id)
    ctx.store.delete("team", team_id)


# -- team members ------------------------------------------------------------------------------


@endpoint("GET", "/orgs/{organizationId}/teams/{teamId}/members")
def list_team_members(ctx: Ctx) -> dict[str, Any]:
    """The team's members, each with its organization Member and its role in the team."""
    org = require_org(ctx, ctx.params["organizationId"])
    team = find_team(ctx, org["id"], ctx.params["teamId"])

    def render_page(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        keys = [member_key(org["id"], doc["user"]) for doc in docs]
        members = ctx.store.get_many("member", keys)
        assert set(keys) <= set(members), "removing a member also removes its team memberships"
        shown = render_members(ctx, [members[key] for key in keys])
        return [
            {"organization": member, "team": {"role": doc["role"]}, "permissions": {"view": True}}
            for doc, member in zip(docs, shown, strict=True)
        ]

    return list_page(
        ctx, "team-member", [("parent = ?", [team["id"]])], render_page=render_page,
        default_order="asc",
    )  # fmt: skip


class TeamMembership(Body):
    role: TeamRole


class TeamMembersChange(Body):
    add: list[str] | None = None
    remove: list[str] | None = None
    memberships: dict[str, TeamMembership] | None = None


def _resolve_user(ctx: Ctx, org_id: str, entry: str, where: str) -> str:
    """The user id of an org member named by id or email, else a 400 naming ``where``."""
    if ctx.store.get("member", member_key(org_id, entry)) is not None:
        return entry
    user = find_user_by_email(ctx, entry) if "@" in entry else None
    if user is not None and ctx.store.get("member", member_key(org_id, user["id"])) is not None:
        return str(user["id"])
    raise bad_request(f"{where}: '{entry}' is not a member of this organization")


@endpoint("PUT", "/orgs/{organizationId}/teams/{teamId}/members", 204)
def change_team_members(ctx: Ctx) -> None:
    """Add, remove and re-role many team members in one call; removal wins over addition."""
    org = require_org(ctx, ctx.params["organizationId"])
    team = find_team(ctx, org["id"], ctx.params["teamId"])
    _require_team_manager(ctx, org["id"], team["id"])
    body = ctx.body_as(TeamMembersChange)
    # Every entry is resolved before the first write, so a bad one changes nothing.
    add = [_resolve_user(ctx, org["id"], e, f"add.{i}") for i, e in enumerate(body.add or [])]
    remove = [
        _resolve_user(ctx, org["id"], e, f"remove.{i}") for i, e in enumerate(body.remove or [])
    ]
    roles = {
        _resolve_user(ctx, org["id"], key, f"memberships.{key}"): value.role
        for key, value in (body.memberships or {}).items()
    }
    for user_id in add:
        _set_membership(ctx, team, user_id, roles.get(user_id))
    for user_id, role in roles.items():
        _set_membership(ctx, team, user_id, role)
    for user_id in remove:
        ctx.store.delete("team-member", _team_member_id(team["id"], user_id))


class TeamMemberPut(Body):
    role: TeamRole | None = None


@endpoint("PUT", "/orgs/{organizationId}/teams/{teamId}/members/{userId}", 204)
def put_team_member(ctx: Ctx) -> None:
    """Add one org member to the team, or change its role there."""
    org = require_org(ctx, ctx.params["organizationId"])
    team = find_team(ctx, org["id"], ctx.params["teamId"])
    _require_team_manager(ctx, org["id"], team["id"])
    body = ctx.body_as(TeamMemberPut)
    user_id = ctx.params["userId"]
    if ctx.store.get("member", member_key(org["id"], user_id)) is None:
        raise not_found("member", user_id)
    _set_membership(ctx, team, user_id, body.role)


@endpoint("DELETE", "/orgs/{organizationId}/teams/{teamId}/members/{userId}", 204)
def delete_team_member(ctx: Ctx) -> None:
    """Remove a user from the team; 204 also when the user was not in it."""
    org = require_org(ctx, ctx.params["organizationId"])
    team = find_team(ctx, org["id"], ctx.params["teamId"])
    _require_team_manager(ctx, org["id"], team["id"])
    ctx.store.delete("team-member", _team_member_id(team["id"], ctx.params["userId"]))
