"""Teams (``teams:``) and their memberships, keyed by title.

``members`` maps member emails to a team role; every email must be listed under ``members:``
too, since only organization members can join a team.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

from docform.engine.audience import Fact, Seen, in_team, label
from docform.engine.capabilities import (
    HasRails,
    HasRailsAcrossKinds,
    NamesByKey,
    ReadsPartsOfEach,
    TellsAudience,
)
from docform.engine.field_rules import ChangedBy
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.match import unmanaged_address
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change
from docform.engine.rails import Violation
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, member_ref
from docform.kind_framework.rest import created
from docform.kinds.member import MEMBER_FIELDS
from docform.model.entry import Entry
from docform.model.fields import MemberEmail, TeamRole
from docform.service.answer_description import within


class TeamEntry(Entry):
    """One team; ``members`` (when written) is the complete list of its members."""

    kind = "team"
    key_label = "title"
    former_key_fields = ("title",)

    title: str = Field(min_length=1, max_length=64)
    members: Annotated[dict[MemberEmail, TeamRole] | None, ChangedBy("membership")] = Field(
        None, description="Member email -> owner (manages the team) or member."
    )

    def natural_key(self) -> str:
        # NOTE: the API finds teams by title only; two teams may share one (then pin ids).
        return self.title


class TeamKind(Kind, TellsAudience, HasRails, HasRailsAcrossKinds, NamesByKey, ReadsPartsOfEach):
    """Teams by title; all membership changes of a team go in one ``PUT .../members``."""

    name = "team"
    declaration = Declaration(
        position=30,
        section=Section(TeamEntry),
        export_file="teams.yaml",
        reads=Reads(
            fields={
                "/orgs/*/teams": ("id", "title"),
                "/orgs/*/teams/*/members": (*within("organization", MEMBER_FIELDS), "team.role"),
            },
            list_names=("teams", "members"),
        ),
    )
    references = ("member",)
    guard_replacement = True
    guard_weak = False
    replacement_loses = (
        "its grants and memberships would be lost (the new team holds only what the manifests "
        "list) and what names it by id (a SAML default team) would not follow"
    )
    fields = TeamEntry

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        teams = await reader.list(self.name, f"/orgs/{self.org_id}/teams")
        found = await reader.still_there(teams, lambda team: self._members(reader, team["id"]))
        return [{**team, "members": members} for team, members in found]

    async def _members(self, reader: LiveReader, team_id: str) -> list[dict[str, Any]]:
        earlier = reader.unchanged(self.name, team_id)
        if earlier is not None and "members" in earlier:
            return list(earlier["members"])
        items = await reader.list("team member", self._members_path(team_id))
        # In place: the client's recording of the answer holds these very items.
        for item in items:
            item["organization"] = reader.one_copy(item["organization"])
        return items

    def parts_read_apart(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {"members": raw["members"]}

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("teams").values()]

    def _desired(self, e: TeamEntry) -> Desired:
        fields: dict[str, Any] = {"title": e.title}
        if e.members is not None:
            fields["members"] = {email.lower(): role for email, role in e.members.items()}
        members = frozenset(member_ref(m).address for m in fields.get("members", {}))
        return entry_desired(
            e,
            fields,
            e.natural_key(),
            requires=members,
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        members = {
            team_member_key(item["organization"], lower=True): item["team"]["role"]
            for item in raw["members"]
        }
        return Observed(
            id=raw["id"],
            key=(raw["title"],),
            fields={"title": raw["title"], "members": members},
            title=raw["title"],
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        # The service creates a team by PUT: a repeat after a lost answer could make two.
        title = {"title": desired.fields["title"]}
        calls = [Call("PUT", f"/orgs/{self.org_id}/teams", title, retry=False)]
        if desired.fields.get("members"):
            path = self._members_path(created(desired.address).in_path())
            calls.append(membership_call(path, {}, desired.fields["members"]))
        return calls

    def change_calls(self, change: ChangeContext) -> list[Call]:
        if change.action == "membership":
            have, want = change.observed.fields["members"], change.changed["members"]
            return [membership_call(self._members_path(change.observed.id), have, want)]
        path = f"/orgs/{self.org_id}/teams/{change.observed.id}"
        return [Call("PATCH", path, {"title": change.changed["title"]})]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/orgs/{self.org_id}/teams/{observed.id}")]

    def rail_violations(self, matching: Matching, changes: Sequence[Change]) -> list[Violation]:
        """Never leave a team that had an owner without one."""
        found = []
        for c in changes:
            if c.action != "membership":
                continue
            had = "owner" in (c.before or {}).get("members", {}).values()
            keeps = "owner" in (c.after or {}).get("members", {}).values()
            if had and not keeps:
                found.append(
                    Violation(
                        "team-owner",
                        f"{c.address_with_key}: the plan would leave the team without an "
                        "owner; give one member the owner role",
                        address=c.address,
                        changes=(c.key,),
                    )
                )
        return found

    def rails_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[Violation]:
        """Never remove from the organization every owner of a team the plan keeps but does
        not manage (its members are not the manifests' to fix): the team would be left
        without an owner."""
        removed = {
            (c.human_key or "").lower(): c.key
            for c in changes
            if c.kind == "member" and c.action == "delete"
        }
        deleted = {c.address for c in changes if c.kind == self.name and c.action == "delete"}
        found = []
        for obs in matchings[self.name].unmatched if removed else ():
            address = unmanaged_address(self.name, obs.id)
            owners = [e for e, role in obs.fields["members"].items() if role == "owner"]
            if address in deleted or not owners or not all(e in removed for e in owners):
                continue
            found.append(
                Violation(
                    "team-owner",
                    f"{address} ({obs.title}): removing {', '.join(sorted(owners))} from the "
                    "organization would leave this unmanaged team without an owner; make "
                    "another member its owner first, or manage the team under teams:",
                    address=address,
                    changes=tuple(sorted(removed[e] for e in owners)),
                )
            )
        return found

    def named_in(self, change: Change) -> set[tuple[str, str]]:
        """A membership change names each member it keeps, adds or removes, by email."""
        names = {
            *(change.before or {}).get("members", {}),
            *(change.after or {}).get("members", {}),
        }
        return {("member", email.lower()) for email in names}

    def _members_path(self, team_id: str) -> str:
        return f"/orgs/{self.org_id}/teams/{team_id}/members"

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Each team's name and members (by email, or user id: `team_member_key`)."""
        facts = []
        for seen in objects:
            facts.append(label(seen.address, f"team {seen.fields.get('title')}"))
            for key in seen.fields.get("members") or {}:
                facts.append(in_team(seen.address, key if "@" in key else f"~{key}"))
        return facts

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        members = {
            team_member_key(item["organization"]): item["team"]["role"]
            for item in raw["members"]
            if item["organization"]["user"].get("email") is not None
        }
        fields = {"id": raw["id"], "title": raw["title"], "members": dict(sorted(members.items()))}
        return Exported("teams", self.name, raw["id"], raw["title"], fields)


def team_member_key(member: Mapping[str, Any], *, lower: bool = False) -> str:
    """A team member by email (lower-cased for comparing), or by user id when the service
    shows no email: the manifest cannot name such a member, and the API takes either."""
    email: str | None = member["user"].get("email")
    if email is None:
        return str(member["id"])
    return email.lower() if lower else email


def membership_call(path: str, have: Mapping[str, str], want: Mapping[str, str]) -> Call:
    """Every add, removal and role change of one team in one call (users by email).

    Added users join as ``member`` unless ``memberships`` gives them another role.
    """
    add = sorted(email for email in want if email not in have)
    remove = sorted(email for email in have if email not in want)
    roles = {
        email: {"role": role}
        for email, role in sorted(want.items())
        if have.get(email, "member") != role
    }
    body: dict[str, Any] = {}
    if add:
        body["add"] = add
    if remove:
        body["remove"] = remove
    if roles:
        body["memberships"] = roles
    return Call("PUT", path, body)
