"""Link invites of the organization (``linkInvites:``): anyone holding one joins the
organization with its role, or one space or collection with its level.

    linkInvites:
      support-join: {role: read}
      partner-guests: {level: guest, space: handbook}

An invite's id is the whole secret (whoever holds it joins), and the service answers it with
every invite. docform keeps it out of everything it shows or writes: as it reads, it puts a
keyed fingerprint (``li_`` and 24 hex digits, an HMAC of the id keyed by the organization) in
its place, which is what plans, drift reports, exports, logs and docform.lock name, and what
``id:`` pins. A change of a live invite sends the real id in its call's path, held in memory
for apply and written nowhere (`docform.engine.plan.Call.held`). An invite's target never
changes: an entry whose target differs from its invite's is refused with what to do. Live
invites no entry matches are listed as unmanaged (open join links nobody declared), and
deleted with ``prune: {linkInvites: true}``. Invites are read only by a plan whose manifests
write the section (``linkInvites: {}``: none should be open) or prune them, since listing them
needs the admin role, and by export.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field, model_validator

from docform.engine.audience import ORGANIZATION, Fact, Seen, address_of, door
from docform.engine.capabilities import LocksOtherThanId, TellsAudience
from docform.engine.field_rules import Immutable, NullMeans
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import role_entry
from docform.kind_framework.planning import entry_desired, ref
from docform.model.entry import Entry
from docform.model.fields import CollectionName, RoleOrGuest, SpaceName, role_value

TARGETS = ("space", "collection")
FINGERPRINT = re.compile(r"^li_[0-9a-f]{24}$")
WHOLE_ORGANIZATION = "the organization"


def fingerprint(org_id: str, invite_id: str) -> str:
    """What stands for an invite's id everywhere docform shows or keeps it."""
    digest = hmac.new(org_id.encode(), invite_id.encode(), hashlib.sha256).hexdigest()
    return f"li_{digest[:24]}"


class LinkInviteEntry(Entry):
    """One link invite: ``{role}`` to join the organization, or ``{level, space}`` /
    ``{level, collection}`` for one space or collection."""

    kind = "link_invite"
    key_label = "target and role"

    role: RoleOrGuest | None = Field(None, description="The role whoever joins gets.")
    level: RoleOrGuest | None = Field(None, description="The level on the space or collection.")
    space: SpaceName | None = None
    collection: CollectionName | None = None

    @model_validator(mode="after")
    def _one_form(self) -> LinkInviteEntry:
        targets = [t for t in TARGETS if getattr(self, t) is not None]
        if len(targets) > 1:
            raise ValueError("an invite is to a space or to a collection, not both")
        if targets and (self.level is None or self.role is not None):
            raise ValueError(f"an invite to a {targets[0]} takes level:, not role:")
        if not targets and (self.role is None or self.level is not None):
            raise ValueError(
                "an invite to the organization takes role: (level: goes with space: or collection:)"
            )
        return self

    def natural_key(self) -> tuple[str, str]:
        return (self.target_address or ORGANIZATION, self.granted)

    @property
    def target_address(self) -> str | None:
        target = next((t for t in TARGETS if getattr(self, t) is not None), None)
        return f"{target}.{getattr(self, target)}" if target else None

    @property
    def granted(self) -> str:
        return self.role or self.level or "guest"


def _place(target: object) -> str:
    return str(target) if isinstance(target, Ref) else WHOLE_ORGANIZATION


class InviteFields:
    """A link invite as compared: what it opens (a space, a collection or the organization)
    and the role whoever joins gets."""

    target: Annotated[
        Ref | str,
        Immutable(
            "a link invite's target never changes",
            "give the entry a new name for a new invite (the old one is then unmanaged, or pruned)",
            show=_place,
        ),
    ]
    role: Annotated[str | None, NullMeans("guest")]


class LinkInviteKind(Kind, TellsAudience, LocksOtherThanId):
    """The organization's link invites, tied by the keyed fingerprint of their id."""

    name = "link_invite"
    declaration = Declaration(
        position=125,
        section=Section(LinkInviteEntry),
        export_file="link-invites.yaml",
        reads=Reads(
            fields={"/orgs/*/link-invites": ("id", "role", "level", "space.id", "collection.id")},
            # The definition lists organization invites only; its single GET (and the service)
            # answers space and collection invites too.
            items_as={"/orgs/*/link-invites": "/orgs/*/link-invites/*"},
            list_names=("link-invites",),
        ),
    )
    references = ("space", "collection")
    guard_replacement = True
    replacement_loses = "its id is the join link people were given: a new invite has another"
    fields = InviteFields
    guard_creates = False  # a second invite of the same role harms nothing a plan shows

    # Read only once the manifests say whether they manage invites (exporting reads them all).
    reads_pinned_ids = True

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._ids: dict[str, str] = {}  # fingerprint -> the invite's id, held in memory only
        self._managed: bool | None = None

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Every invite, when the manifests write the section or prune them (listing invites
        needs the admin role: a plan that manages none asks nothing of the token for them)."""
        if self._managed is False:
            return []
        items = await reader.list(self.name, f"/orgs/{self.org_id}/link-invites")
        return [self._without_id(item) for item in items]

    def _without_id(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The invite as docform keeps it: its fingerprint for its id, its target by id."""
        held = fingerprint(self.org_id, item["id"])
        self._ids[held] = item["id"]
        target = next((t for t in TARGETS if isinstance(item.get(t), Mapping)), None)
        role = item.get("level") if target else item.get("role")
        kept = {"id": held, "role": role, "redundant": item.get("redundant")}
        return {**kept, **({target: item[target]["id"]} if target else {})}

    def desired(self, manifests: ManifestView) -> list[Desired]:
        entries = manifests.section("linkInvites").values()
        prune = getattr(getattr(manifests.settings, "prune", None), "linkInvites", False)
        self._managed = manifests.writes("linkInvites") or bool(prune)
        return [self._desired(e) for e in entries]

    def _desired(self, e: LinkInviteEntry) -> Desired:
        target = ref("space", e.space) or ref("collection", e.collection)
        fields = {"target": target or ORGANIZATION, "role": role_value(e.granted)}
        scope = (target or ORGANIZATION,)
        return entry_desired(e, fields, e.granted, scope=scope)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        target_kind = next((t for t in TARGETS if raw.get(t)), None)
        target = index.ref(target_kind, raw[target_kind]) if target_kind else ORGANIZATION
        role = raw.get("role")
        return Observed(
            id=raw["id"],
            key=(target, role or "guest"),
            fields={"target": target, "role": role},
            title=f"joins {_place(target)} as {role or 'guest'}",
            raw=raw,
        )

    def lock_id(self, live_id: str) -> str:
        return live_id if FINGERPRINT.match(live_id) else fingerprint(self.org_id, live_id)

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        target, role = desired.fields["target"], desired.fields["role"]
        if target == ORGANIZATION:
            body: dict[str, Any] = {"role": role}
        else:
            body = {"level": role, target.address.split(".", 1)[0]: resolve(target)}
        return [Call("POST", f"/orgs/{self.org_id}/link-invites", body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        key = "role" if change.observed.fields["target"] == ORGANIZATION else "level"
        return [self._call("PATCH", change.observed, {key: change.changed["role"]})]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [self._call("DELETE", observed)]

    def _call(self, method: str, observed: Observed, body: Any = None) -> Call:
        name = f"secret.{observed.id}"
        path = f"/orgs/{self.org_id}/link-invites/${{{name}}}"
        return Call(method, path, body, held={name: self._ids[observed.id]})

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Whoever holds an invite joins its target with its role."""
        facts = []
        for seen in objects:
            target = seen.fields.get("target")
            on = address_of(target) or ORGANIZATION
            role = seen.fields.get("role") or "guest"
            facts.append(door(on, f"anyone holding {seen.address}, joining as {role}"))
        return facts

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        target = next((t for t in TARGETS if raw.get(t)), None)
        role = role_entry(raw.get("role"))
        fields: dict[str, Any] = {"id": raw["id"]}
        if target:
            fields |= {"level": role, target: LiveRef(target, raw[target])}
        else:
            fields["role"] = role
        hint = f"{target or 'join'}-{role}"
        return Exported("linkInvites", self.name, raw["id"], hint, fields)
