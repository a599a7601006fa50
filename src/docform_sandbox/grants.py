"""Content permissions as stored: who was granted which role on a space, collection or site.

A grant is one document of kind ``content-permission`` per (object, team or user), filed under
the organization and under its object's key (``space:ID``), so that listing the grants of one
object is one indexed query. The endpoints are in ``permissions.py``; this module also works
out who ends up with access to an object (the ``aggregate`` lists) and forgets grants when a
team, a member or an object goes away. (It is outside ``routes/`` so that seeding can use it.)

Who ends up with access (the sandbox's model; the API documents name the sources only):

- every member of the organization with a role (guests have none) gets that role;
- the object's default level (``defaultLevel``) is a floor for those members: each of them gets
  at least that level. ``inherit`` takes the default level of the collection the space or
  collection lies in (and so on up); at the top, and on a site, it adds nothing, as does
  ``null`` (guest);
- every grant on the object, and, for spaces and collections, on each collection above it:
  a user grant gives its role to that user, a team grant to every member of the team;
- a member keeps the most capable role of all those (``admin`` > ``create`` > ``review`` >
  ``edit`` > ``comment`` > ``read`` > guest, a grant of ``null``); a member reached by none of
  them has no access and is not listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from docform_sandbox.http import Ctx, timestamp
from docform_sandbox.store import marks

GRANT = "content-permission"
Principal = Literal["team", "user"]
TEAM: Principal = "team"
USER: Principal = "user"
TargetKind = Literal["space", "collection", "site"]
MOST_CAPABLE_FIRST = ("admin", "create", "review", "edit", "comment", "read")
# Spelled as the store's objects_by_team and objects_by_user indexes are, so counting uses them.
_OF_PRINCIPAL = "json_extract(data, '$.{principal}') = ?"
_ON_ACTIVE_SPACE = (
    "EXISTS (SELECT 1 FROM objects s WHERE s.kind = 'space' "
    "AND s.id = json_extract(objects.data, '$.on') "
    "AND json_extract(s.data, '$.deletedAt') IS NULL)"
)


@dataclass(frozen=True)
class Target:
    """The object grants are given on."""

    kind: TargetKind
    id: str
    org: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"

    @property
    def label(self) -> str:
        return f"{self.kind} '{self.id}'"


def grant_id(target: Target, principal: Principal, principal_id: str) -> str:
    return f"{target.key}:{principal}:{principal_id}"


def grants_where(target: Target, principal: Principal) -> list[tuple[str, list[Any]]]:
    """The store filter of the grants one object gives to teams, or to users."""
    return [("parent = ?", [target.key]), ("json_extract(data, '$.principal') = ?", [principal])]


def find_grant(
    ctx: Ctx, target: Target, principal: Principal, principal_id: str
) -> dict[str, Any] | None:
    return ctx.store.get(GRANT, grant_id(target, principal, principal_id))


def set_grant(
    ctx: Ctx, target: Target, principal: Principal, principal_id: str, role: str | None
) -> None:
    """Give ``role`` to a team or user on ``target``, replacing the role it had there."""
    current = find_grant(ctx, target, principal, principal_id)
    if current is not None:
        current["role"] = role
        ctx.store.update(GRANT, current)
        return
    doc = grant_document(target, principal, principal_id, role, timestamp(ctx.now()))
    ctx.store.insert(GRANT, doc, org=target.org, parent=target.key)


def grant_document(
    target: Target, principal: Principal, principal_id: str, role: str | None, now: str
) -> dict[str, Any]:
    """A grant as stored (file it under ``target.org`` and ``target.key``)."""
    return {
        "id": grant_id(target, principal, principal_id),
        "kind": target.kind,
        "on": target.id,
        "principal": principal,
        principal: principal_id,
        "role": role,
        "createdAt": now,
    }


def forget_target(ctx: Ctx, kind: TargetKind, id: str) -> None:
    """Drop every grant on an object that no longer exists."""
    ctx.store.delete_where(GRANT, [("parent = ?", [f"{kind}:{id}"])])


def forget_principal(ctx: Ctx, org_id: str, principal: Principal, principal_id: str) -> None:
    """Drop every grant of a team that was deleted, or of a user who left the organization."""
    ctx.store.delete_where(
        GRANT,
        [
            ("org = ?", [org_id]),
            ("json_extract(data, '$.principal') = ?", [principal]),
            (f"json_extract(data, '$.{principal}') = ?", [principal_id]),
        ],
    )


def granted_count(
    ctx: Ctx, org_id: str, principal: Principal, principal_id: str, kind: TargetKind
) -> int:
    """How many objects of ``kind`` a team or user was granted a role on directly (spaces: not
    deleted ones): a team's and a member's ``spaces``, a member's ``sites``."""
    return granted_counts(ctx, org_id, principal, [principal_id], kind).get(principal_id, 0)


def granted_counts(
    ctx: Ctx, org_id: str, principal: Principal, principal_ids: Sequence[str], kind: TargetKind
) -> dict[str, int]:
    """`granted_count` of each of ``principal_ids`` (those granted none left out), in one
    query."""
    if not principal_ids:
        return {}
    of_principal = _OF_PRINCIPAL.format(principal=principal).replace(
        "= ?", f"IN ({marks(len(principal_ids))})"
    )
    where: list[tuple[str, Sequence[str]]] = [
        ("org = ?", [org_id]),
        (of_principal, principal_ids),
        ("json_extract(data, '$.kind') = ?", [kind]),
    ]
    if kind == "space":
        where.append((_ON_ACTIVE_SPACE, []))
    return ctx.store.count_by(GRANT, f"json_extract(data, '$.{principal}')", where)


# -- who ends up with access ---------------------------------------------------------------------


def rank(role: str | None) -> int:
    """Where a role stands, most capable first; a guest (None) comes after every role."""
    return MOST_CAPABLE_FIRST.index(role) if role in MOST_CAPABLE_FIRST else len(MOST_CAPABLE_FIRST)


def inherited_from(ctx: Ctx, target: Target) -> list[Target]:
    """The collections above a space or collection, nearest first (none for a site)."""
    if target.kind == "site":
        return []
    above, seen = [], {target.id}
    doc = ctx.store.get(target.kind, target.id) or {}
    while (parent := doc.get("parent")) and parent not in seen:
        seen.add(parent)
        doc = ctx.store.get("collection", parent) or {}
        if not doc:
            break
        above.append(Target("collection", parent, target.org))
    return above


def default_level(ctx: Ctx, target: Target) -> str | None:
    """The level every member with a role has on ``target`` at least, if any: its own
    ``defaultLevel``, or through ``inherit`` the nearest collection above that sets one."""
    for source in [target, *inherited_from(ctx, target)]:
        level = (ctx.store.get(source.kind, source.id) or {}).get("defaultLevel")
        if level != "inherit":
            return level if isinstance(level, str) else None
    return None


def _team_members(ctx: Ctx, team_id: str) -> list[str]:
    return [m["user"] for m in ctx.store.all("team-member", [("parent = ?", [team_id])])]


def effective_roles(ctx: Ctx, target: Target) -> dict[str, str | None]:
    """Each member's role on ``target`` from every source, for members who have access."""
    return {user: role for user, (role, _) in effective_access(ctx, target).items()}


def effective_access(ctx: Ctx, target: Target) -> dict[str, tuple[str | None, dict[str, Any]]]:
    """Each member's role on ``target`` from every source, with the source that gives it (the
    definition's permission origin: the organization, the object's default level, a grant to
    the member or to a team of it); of two sources giving the same role, the first found."""
    access: dict[str, tuple[str | None, dict[str, Any]]] = {}

    def give(user_id: str, role: str | None, origin: dict[str, Any]) -> None:
        if user_id not in access or rank(role) < rank(access[user_id][0]):
            access[user_id] = (role, origin)

    members = ctx.store.all("member", [("org = ?", [target.org])])
    in_org = {m["user"] for m in members}
    floor = default_level(ctx, target)
    for member in members:
        if member["role"] is not None:
            give(
                member["user"], member["role"], {"type": "organization", "organization": target.org}
            )
            if floor is not None:
                give(member["user"], floor, _origin(target, "default"))
    for source in [target, *inherited_from(ctx, target)]:
        for grant in ctx.store.all(GRANT, [("parent = ?", [source.key])]):
            if grant["principal"] == USER:
                users, origin = [grant[USER]], _origin(source, "member")
            else:
                users, origin = (
                    _team_members(ctx, grant[TEAM]),
                    _origin(source, "team", grant[TEAM]),
                )
            for user_id in users:
                if user_id in in_org:
                    give(user_id, grant["role"], origin)
    return access


def _origin(source: Target, reason: str, team: str | None = None) -> dict[str, Any]:
    """Where a role comes from, as the definition points to it: a site with why, else the
    space or collection."""
    if source.kind != "site":
        return {"type": source.kind, source.kind: source.id}
    origin = {"type": "site", "site": source.id, "reason": reason}
    return origin if team is None else {**origin, "team": team}
