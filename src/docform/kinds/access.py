"""Content access: the roles teams and members are granted on a space, a collection or a site.

Written next to the object it is on, the way team members are::

    spaces:
      handbook:
        title: Handbook
        access: {teams: {platform: edit}, users: {ada@acme.test: admin, pat@partner.test: guest}}

Each grant is one object of this kind, keyed by (the object, ``team`` or ``user``, the team or
member), at ``space.handbook.access.team.platform``. Written ``access`` is every grant of its
object: one the live object has and the entry does not list is deleted, with no prune setting
(its deletions count toward the rails like any other). An entry without ``access`` leaves its
object's grants alone, and they are not even read (two list requests per object that writes
it). Only grants on the object itself are compared: a role inherited from a collection above,
or given by the organization role, is no grant of the object.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

from docform.engine.audience import (
    Fact,
    Seen,
    address_of,
    person,
    person_grant,
    team_grant,
)
from docform.engine.capabilities import (
    ExplainsDeletes,
    ReadsAudience,
    ReadsBystanders,
    TellsAudience,
)
from docform.engine.client import ServiceClient
from docform.engine.field_rules import NullMeans
from docform.engine.kind import (
    AddressIndex,
    Bystander,
    ChangeContext,
    Desired,
    Gone,
    Kind,
    Observed,
    Ref,
    Resolve,
    Unresolved,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.match import unmanaged_address
from docform.engine.plan import Call, Placeholder
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.exporting import role_entry
from docform.kind_framework.planning import member_ref
from docform.kind_framework.rest import id_in_path
from docform.kinds.member import USER_FIELDS
from docform.model.entry import Entry, ManifestModel
from docform.model.fields import MemberEmail, RoleOrGuest, TeamName, role_value
from docform.service.answer_description import within

PRINCIPALS = ("team", "user")
#: The kinds grants are given on: the manifest section of their entries, and the path of their
#: permissions (``{id}`` the object's live id, ``{org}`` the organization's).
ON: Mapping[str, tuple[str, str]] = {
    "space": ("spaces", "/spaces/{id}/permissions"),
    "collection": ("collections", "/collections/{id}/permissions"),
    "site": ("sites", "/orgs/{org}/sites/{id}/permissions"),
}
#: Where the kind a principal refers to keeps its objects (a user is a member).
PRINCIPAL_KIND = {"team": "team", "user": "member"}


#: What docform reads of a grant of a role on a space, collection or site (docs/service.md,
#: "Content access").
def _read_route(template: str, principal: str) -> str:
    """The GET template listing ``principal``s' grants on the objects of ``template``."""
    return f"{template.replace('{id}', '*').replace('{org}', '*')}/{principal}"


TEAM_GRANT_FIELDS = ("permission", "team.id", "team.title")
USER_GRANT_FIELDS = ("permission", "user.id", *within("user", USER_FIELDS))


ACCESS_DESCRIPTION = (
    "Every grant of a role on it: {teams: {team: role}, users: {email: role}}; a team or member "
    "left out loses its grant. Left out: its grants are not managed."
)


class Access(ManifestModel):
    """Every grant of one space, collection or site: a team or member it leaves out has none."""

    teams: dict[TeamName, RoleOrGuest] = Field(
        default_factory=dict, description="Team name -> role (guest: the API's null role)."
    )
    users: dict[MemberEmail, RoleOrGuest] = Field(
        default_factory=dict, description="Member email (listed under members:) -> role."
    )


class GrantFields:
    """A grant as compared: the role it gives (its object and its team or user are its key)."""

    role: Annotated[str | None, NullMeans("guest")]


class AccessKind(Kind, ReadsBystanders, TellsAudience, ReadsAudience, ExplainsDeletes):
    """Grants of teams and users on the spaces, collections and sites whose entries write
    ``access``: one POST gives one, a PATCH changes its role, a DELETE takes it away.

    A site's PATCH takes a role only, so a site grant becomes guest by granting it again
    (granting replaces the role the team or user had there).
    """

    name = "access"
    plural = "access grants"
    prune_setting = None
    declaration = Declaration(
        position=130,
        reads=Reads(
            fields={
                _read_route(template, principal): grant
                for _, template in ON.values()
                for principal, grant in (("teams", TEAM_GRANT_FIELDS), ("users", USER_GRANT_FIELDS))
            },
            # The definition gives a space's or collection's grant a role, never null, though
            # it takes null for guest access when granting; docform reads null as a guest.
            copes_with_null={
                _read_route(template, principal): ("permission",)
                for on, (_, template) in ON.items()
                if on != "site"
                for principal in ("teams", "users")
            },
            list_names=("teams", "users"),
        ),
    )
    references = ("space", "collection", "site", "team", "member")
    # Members too: what the grants are on must be matched before they are read, and a space is
    # matched after the members its merge rules name.
    read_after = ("member", "collection", "space", "site")
    fields = GrantFields
    renamable = False
    guard_creates = False  # granting again only sets the same role
    locked = False
    unmanaged_go_with_container = True
    reached_by = frozenset({"team"})

    # -- reading ------------------------------------------------------------------------------

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The teams' and the users' grants of each live object whose entry writes ``access``
        (of every object when exporting, with no manifests)."""
        lists = [
            (on, raw["id"], principal)
            for on in ON
            for raw, desired in reader.managed_with_entries(on)
            # A deleted space that the plan restores answers 404 until then; its grants stay.
            if _writes_access(desired) and not raw.get("deletedAt")
            for principal in PRINCIPALS
        ]
        answers = await asyncio.gather(
            *(reader.list(self.name, f"{self._path(on, on_id)}/{who}s") for on, on_id, who in lists)
        )
        return [
            _tagged(item, *listed)
            for listed, items in zip(lists, answers, strict=True)
            for item in items
        ]

    async def read_bystanders(self, reader: LiveReader, gone: Sequence[Gone]) -> list[Bystander]:
        """The grants of a deleted team on the objects whose grants planning did not read
        (entries without ``access``, objects no manifest manages): the API drops them."""
        teams = {g.live_id: g.delete for g in gone if g.kind == "team"}
        on_spaces = any(t.get("spaces") != 0 for t in reader.live("team") if t["id"] in teams)
        away = {(g.kind, g.live_id) for g in gone}
        unread = [
            (on, raw, desired)
            for on in ON
            if on != "space" or on_spaces
            for raw, desired in _with_entries(reader, on)
            if not _writes_access(desired) and (on, raw["id"]) not in away
            and not raw.get("deletedAt")
        ]  # fmt: skip
        answers = await asyncio.gather(
            *(reader.list(self.name, f"{self._path(on, raw['id'])}/teams") for on, raw, _ in unread)
        )
        return [
            _dropped(on, raw, desired, item, teams[item["team"]["id"]])
            for (on, raw, desired), items in zip(unread, answers, strict=True)
            for item in items
            if item["team"]["id"] in teams
        ]

    # -- manifest and live side ---------------------------------------------------------------

    def desired(self, manifests: ManifestView) -> list[Desired]:
        found = []
        for _on, (section, _) in ON.items():
            for entry in manifests.section(section).values():
                if entry.access is not None:
                    found += self._desired(entry, entry.access)
        return found

    def _desired(self, entry: Entry, access: Access) -> list[Desired]:
        on = Ref(entry.address)
        wanted: list[tuple[str, Ref, str]] = [
            *(("team", Ref(f"team.{name}"), role) for name, role in access.teams.items()),
            *(("user", member_ref(email), role) for email, role in access.users.items()),
        ]
        return [
            Desired(
                address=grant_address(on, principal, who),
                key=(on, principal, who),
                fields={"role": role_value(role)},
                location=str(entry.location),
                requires=frozenset({on.address, who.address}),
                entry=entry,
            )
            for principal, who, role in wanted
        ]

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        on_live = _grant_on(raw)
        on = index.managed_ref(on_live.kind, on_live.id)
        if on is None:
            return None
        principal = _principal_of(raw)
        who = index.ref(PRINCIPAL_KIND[principal], raw[principal]["id"])
        assert who is not None
        return Observed(
            id=raw["id"],
            key=(on, principal, who),
            fields={"role": raw["permission"]},
            title=f"{principal} {_title(raw, principal)}",
            raw=raw,
            address=grant_address(on, principal, who),
        )

    def delete_reason(self, observed: Observed) -> str:
        return f"the access {observed.key[0]} writes does not list {observed.title}"

    # -- calls ---------------------------------------------------------------------------------

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        on, principal, who = desired.key
        return [self._grant(on, principal, who, desired.fields["role"], resolve)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        on, principal, who = change.observed.key
        role = change.changed["role"]
        if role is None and _grant_on(change.observed.raw).kind == "site":
            return [self._grant(on, principal, who, role, change.resolve)]
        who_id = change.observed.raw[principal]["id"]
        path = f"{self._path_of(on, change.resolve)}/{principal}s/{who_id}"
        return [Call("PATCH", path, {"role": role})]

    def delete_calls(self, observed: Observed) -> list[Call]:
        raw, on = observed.raw, _grant_on(observed.raw)
        principal = _principal_of(raw)
        base = self._path(on.kind, on.id)
        return [Call("DELETE", f"{base}/{principal}s/{raw[principal]['id']}")]

    def _grant(
        self, on: Ref, principal: str, who: Ref | Unresolved, role: str | None, resolve: Resolve
    ) -> Call:
        body = {"role": role, f"{principal}s": [resolve(who)]}
        return Call("POST", self._path_of(on, resolve), body)

    def _path_of(self, on: Ref, resolve: Resolve) -> str:
        kind = on.address.split(".", 1)[0]
        return self._path(kind, resolve(on))

    def _path(self, on: str, on_id: str | Placeholder) -> str:
        return ON[on][1].format(id=id_in_path(on_id), org=self.org_id)

    # -- who reaches what ----------------------------------------------------------------------

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Each grant: its object, its team or person, its role."""
        facts = []
        for seen in objects:
            on, principal, who = seen.key
            on_address, role = address_of(on) or str(on), seen.fields.get("role")
            if principal == "team":
                facts.append(team_grant(on_address, address_of(who) or str(who), role))
            else:
                facts.append(person_grant(on_address, _person(who, seen.raw), role))
        return facts

    async def read_audience(
        self, client: ServiceClient, address: str, live_id: str
    ) -> dict[str, str] | None:
        """The service's ``aggregate`` list of a space, collection or site: every member who
        reaches it, with the role they end up with."""
        on = address.split(".", 1)[0]
        if on not in ON or ".access." in address:
            return None
        items = await client.list_all(f"{self._path(on, live_id)}/aggregate")
        return {
            person(item["user"].get("email"), item["user"]["id"]): item["permission"] or "guest"
            for item in items
        }

    # -- export --------------------------------------------------------------------------------

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        """A grant, as a part of its object's ``access``."""
        principal, on = _principal_of(raw), _grant_on(raw)
        if principal == "team":
            who: str | LiveRef = LiveRef("team", raw["team"]["id"])
        else:
            # A user without an email cannot be named in the manifests: its object's access
            # is then left out whole (`docform.export.document`), never written without it.
            email = raw["user"].get("email")
            who = (
                email if email is not None else LiveRef("user without an email", raw["user"]["id"])
            )
        fields = {f"{principal}s": {who: role_entry(raw["permission"])}}
        return Exported(
            ON[on.kind][0],
            self.name,
            raw["id"],
            "",
            fields,
            within=on,
            nested_as="access",
            part=True,
        )


def grant_address(on: Ref, principal: str, who: Ref | Unresolved) -> str:
    """``space.handbook.access.team.platform``; ``...access.user.~u_123`` for a user or team no
    manifest entry names."""
    name = who.address.split(".", 1)[1] if isinstance(who, Ref) else f"~{who.id}"
    return f"{on.address}.access.{principal}.{name}"


def _with_entries(reader: LiveReader, on: str) -> list[tuple[dict[str, Any], Desired | None]]:
    """Every live object of kind ``on``, with the entry that manages it, if any."""
    managed = {raw["id"]: desired for raw, desired in reader.managed_with_entries(on)}
    return [(raw, managed.get(raw["id"])) for raw in reader.live(on)]


def _dropped(
    on: str, raw: Mapping[str, Any], desired: Desired | None, grant: Mapping[str, Any], by: str
) -> Bystander:
    """A grant of a deleted team that planning did not read, on ``raw`` (of kind ``on``)."""
    if desired is not None:
        holder, where = desired.address, "whose entry writes no access:"
    else:
        title = raw.get("title")
        holder = unmanaged_address(on, raw["id"])
        where = f"{f'({title}) ' if title else ''}that no manifest manages"
    return Bystander(
        address=f"{holder}.access.team.~{grant['team']['id']}",
        title=f"team {_title(grant, 'team')}",
        fate="deleted with it",
        delete=by,
        where=f"is a grant on {holder} {where}",
    )


def _writes_access(desired: Desired | None) -> bool:
    # No entry: reading without manifests (export), where every object's grants are wanted.
    return desired is None or getattr(desired.entry, "access", None) is not None


def _tagged(item: Mapping[str, Any], on: str, on_id: str, principal: str) -> dict[str, Any]:
    """A grant as listed, with what it is on and to whom, and an id made of both (grants have
    none of their own)."""
    principal_id = item[principal]["id"]
    return {
        **item,
        "id": f"{on_id}/{principal}/{principal_id}",
        "_on": on,
        "_on_id": on_id,
        "_principal": principal,
    }


def _grant_on(raw: Mapping[str, Any]) -> LiveRef:
    """The space, collection or site a listed grant is on (`_tagged`)."""
    return LiveRef(raw["_on"], raw["_on_id"])


def _principal_of(raw: Mapping[str, Any]) -> str:
    """Whom a listed grant is to: ``team`` or ``user`` (`_tagged`)."""
    principal: str = raw["_principal"]
    return principal


def _title(raw: Mapping[str, Any], principal: str) -> str:
    if principal == "team":
        return str(raw["team"].get("title") or raw["team"]["id"])
    return str(raw["user"].get("email") or raw["user"]["id"])


def _person(who: object, raw: Mapping[str, Any] | None) -> str:
    """The person a user grant is to: ``member.EMAIL`` when an entry manages them, else the
    email the live grant shows, or ``~`` and the user id."""
    name = who.address.split(".", 1)[1] if isinstance(who, Ref) else ""
    if name and not name.startswith("~"):
        return name
    user = (raw or {}).get("user") or {}
    fallback = who.id if isinstance(who, Unresolved) else name.lstrip("~")
    return person(user.get("email"), user.get("id") or fallback)
