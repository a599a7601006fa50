"""Organization members (``members:``), keyed by email: ``email: role`` or ``{role, sso}``.

The role ``guest`` is the API's ``null`` role. A member listed here is invited when missing.
The service does not promise a user's email: a member whose user has none can only be matched
by its pinned ``id``, and the plan says so where an entry is left looking for its email.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field, model_validator

from docform.engine.audience import Fact, Seen, org_role
from docform.engine.capabilities import (
    ExplainsCreates,
    ExplainsPending,
    GuardsCaller,
    HasRails,
    TellsAudience,
    WarnsAcrossKinds,
)
from docform.engine.client import ServiceClient
from docform.engine.field_rules import NullMeans
from docform.engine.kind import (
    AddressIndex,
    ChangeContext,
    Desired,
    Kind,
    Observed,
    Resolve,
    default_create_reason,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change
from docform.engine.rails import Violation
from docform.errors import DocformError, ServiceCallError
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import role_entry
from docform.kind_framework.planning import entry_desired
from docform.model.entry import Entry
from docform.model.fields import EMAIL_PATTERN, Email, RoleOrGuest, escape_invisible, role_value
from docform.service.answer_description import within

#: What docform reads of a user: its email, which the service does not promise (such a member
#: matches by id).
USER_FIELDS = ("email",)
MEMBER_FIELDS = ("id", "role", *within("user", USER_FIELDS), "sso")


class MemberEntry(Entry):
    """One member; the manifest key is the member's email."""

    kind = "member"
    key_is_unique = True
    key_label = "email"
    former_key_fields = ("email",)

    role: Annotated[RoleOrGuest, NullMeans("guest")] = Field(
        description="Organization role; guest is the API's null role."
    )
    sso: bool | None = Field(None, description="Sign-in through SSO only.")

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, value: Any) -> Any:
        # `alice@acme.test: admin` is the common case; it means {role: admin}.
        return {"role": value} if isinstance(value, str) else value

    @property
    def email(self) -> str:
        return self.name

    def natural_key(self) -> str:
        # NOTE: users sign in with their email and the service lower-cases it, so a member is
        # the same whatever the case written.
        return self.name.lower()


NO_EMAIL = "(no email)"


def without_email_title(raw: Mapping[str, Any]) -> str:
    """How the plan names a member whose user has no email, with the one way to manage it."""
    name = raw["user"].get("displayName") or raw["id"]
    return f"{name} (no email: only an entry with `id: {raw['id']}` matches this member)"


class MemberKind(
    Kind, TellsAudience, WarnsAcrossKinds, HasRails, GuardsCaller, ExplainsCreates, ExplainsPending
):
    """Members by email: invited when missing, their role and SSO flag kept as written."""

    name = "member"
    declaration = Declaration(
        position=20,
        section=Section(
            MemberEntry,
            key=Email,
            key_pattern=EMAIL_PATTERN,
            value=RoleOrGuest | MemberEntry,
            description="Members by email: a role, or {role, sso}.",
        ),
        export_file="members.yaml",
        reads=Reads(
            fields={"/user": ("id",), "/orgs/*/members": MEMBER_FIELDS},
            list_names=("members",),
        ),
    )
    fields = MemberEntry
    created_id = "users.0"
    renamable = False

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._without_email: set[str] = set()

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        members = await reader.list(self.name, f"/orgs/{self.org_id}/members")
        # Each team's member list shows these members again: held once (in place, as the
        # client's recording holds this list).
        members[:] = map(reader.one_copy, members)
        return members

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("members").values()]

    def _desired(self, e: MemberEntry) -> Desired:
        fields: dict[str, Any] = {"role": role_value(e.role)}
        if e.sso is not None:
            fields["sso"] = e.sso
        return entry_desired(e, fields, e.natural_key(), former=str.lower)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        email = raw["user"].get("email")
        if email is None:
            self._without_email.add(raw["id"])
        return Observed(
            id=raw["id"],
            # No email: a key no entry has, so only a pinned id matches it.
            key=(email.lower(),) if email is not None else (NO_EMAIL, raw["id"]),
            fields={"role": raw["role"], "sso": raw["sso"]},
            title=escape_invisible(email) if email is not None else without_email_title(raw),
            raw=raw,
        )

    def create_reason(self, desired: Desired) -> str:
        """Why the entry is invited; when some members have no email, that one of them may be
        this person, and how to say so."""
        reason = default_create_reason(self, desired)
        if not self._without_email:
            return reason
        ids = ", ".join(sorted(self._without_email))
        return (
            f"{reason}; the service shows no email for member(s) {ids}: if one of them is "
            f"{desired.entry.email}, pin its id with `id:` in the entry instead of inviting"
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        email: str = desired.entry.email
        body: dict[str, Any] = {"emails": [email], "role": desired.fields["role"]}
        if desired.fields.get("sso"):
            body["sso"] = True
        return [Call("POST", f"/orgs/{self.org_id}/invites", body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        path = f"/orgs/{self.org_id}/members/{change.observed.id}"
        calls = []
        if "role" in change.changed:
            calls.append(Call("PATCH", path, {"role": change.changed["role"]}))
        if change.changed.get("sso") is True:
            calls.append(Call("POST", f"{path}/sso"))
        elif "sso" in change.changed:
            raise DocformError(
                f"{change.where}: sso: the API can turn SSO on for a "
                "member but not off; remove `sso: false` or turn it off in the service"
            )
        return calls

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/orgs/{self.org_id}/members/{observed.id}")]

    def pending_reason(self, change: Change) -> str:
        # The service answers a removal it will not make at once with 202 (docs/service.md).
        return (
            "the service sent a request to remove this member to the organization's admins "
            "(202) instead of removing it; it stays a member until an admin accepts"
        )

    def warnings_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[str]:
        """An invite to an email outside the organization's ``emailDomains`` (the manifest's,
        else the live ones): a look-alike domain reads like the real one in review."""
        domains = _organization_domains(matchings.get("organization"))
        invited = {d.address: d for d in matchings[self.name].creates}
        outside = [
            invited[c.address]
            for c in changes
            if c.kind == self.name and c.action == "create" and c.address in invited
        ]
        return [
            f"{d.location}: {escape_invisible(d.entry.email)} is invited, but its domain is "
            f"not one of the organization's emailDomains ({', '.join(sorted(domains))}): "
            "check that it is the person meant and not a look-alike address, or add the "
            "domain to organization.emailDomains"
            for d in outside
            if domains and d.entry.email.rsplit("@", 1)[-1].lower() not in domains
        ]

    def rail_violations(self, matching: Matching, changes: Sequence[Change]) -> list[Violation]:
        """Never leave the organization without an admin."""
        observed = [p.observed for p in matching.pairs] + list(matching.unmatched)
        admins = {o.id: o.title for o in observed if o.fields["role"] == "admin"}
        losing = {
            c.live_id: c.key
            for c in changes
            if (c.before or {}).get("role") == "admin"
            and (c.action == "delete" or (c.after or {}).get("role", "admin") != "admin")
        }
        gaining = any((c.after or {}).get("role") == "admin" for c in changes)
        if not admins or not admins.keys() <= losing.keys() or gaining:
            return []
        return [
            Violation(
                "last-admin",
                "the plan would leave the organization without an admin (it removes or "
                f"demotes {', '.join(sorted(admins.values()))}); keep one admin in members:",
                address="organization",
                changes=tuple(sorted(losing[i] for i in admins)),
            )
        ]

    async def identify_caller(self, client: ServiceClient) -> str | None:
        """``GET /user`` answers the token's own user, and a member's id is its user's id; a
        token that belongs to no user (an integration's) is answered 404."""
        try:
            user = await client.get("/user")
        except ServiceCallError as error:
            if error.status == 404:
                return None
            raise
        return str(user["id"])

    def risky_for_caller(self, changes: Sequence[Change]) -> list[Change]:
        """Removing a member, or taking admin from one, could lock out the token's own user."""
        return [
            c
            for c in changes
            if c.action == "delete"
            or ((c.before or {}).get("role") == "admin" and "role" in (c.after or {}))
        ]

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Each member's organization role."""
        return [org_role(_person(seen.key), seen.fields.get("role")) for seen in objects]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        email = raw["user"].get("email")
        if email is None:
            # Members are written under their email; without one there is no entry to write,
            # and the next plan lists the member as unmanaged with how to pin it.
            return None
        fields: dict[str, Any] = {"id": raw["id"], "role": role_entry(raw.get("role"))}
        if raw.get("sso"):
            fields["sso"] = True
        return Exported("members", self.name, raw["id"], email, fields, name=email)


def _organization_domains(matching: Matching | None) -> set[str]:
    """The organization's email domains as the plan leaves them, lower-cased; none known: empty."""
    if matching is None or not matching.pairs:
        return set()
    pair = matching.pairs[0]
    written = pair.desired.fields.get("emailDomains")
    domains = written if written is not None else pair.observed.fields.get("emailDomains")
    return {str(domain).lower().rstrip(".") for domain in domains or ()}


def _person(key: tuple[Any, ...]) -> str:
    """A member's key as `docform.engine.audience` names people: ``(email,)`` or
    ``(NO_EMAIL, user id)``."""
    return str(key[0]) if len(key) == 1 else f"~{key[1]}"
