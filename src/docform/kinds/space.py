"""Spaces (``spaces:``), optionally in a collection (by manifest name).

``visibility`` is read-only through the API (docs/service.md), so it is not part of the format.
``icon`` is the URL of an image (the definition's space icon is a URL). It is sent but not
compared: an answer gives the icon only as ``urls.icon``, which the service need not keep as
it was sent, so docform sets it when it creates the space or when ``emoji`` changes, and
otherwise leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from docform.engine.audience import Fact, Seen, contained
from docform.engine.capabilities import Restores, TellsAudience, TellsWhatIsLost
from docform.engine.field_rules import ChangedBy, NullMeans
from docform.engine.kind import (
    AddressIndex,
    Desired,
    Observed,
    Ref,
    Resolve,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import merge_rules_entry, role_entry, set_fields
from docform.kind_framework.planning import (
    entry_desired,
    level_value,
    merge_rules_desired,
    merge_rules_observed,
    ref,
)
from docform.kind_framework.rest import RestKind
from docform.kinds.access import ACCESS_DESCRIPTION, Access
from docform.model.entry import Entry
from docform.model.fields import (
    MERGE_RULES_FIELDS,
    CollectionName,
    Language,
    Level,
    SpaceMergeRules,
    Url,
)
from docform.service.answer_description import within

SPACE_FIELDS = (
    "id", "title", "emoji", "parent", "organization", "deletedAt", "language", "editMode",
    "defaultLevel", *within("mergeRules", MERGE_RULES_FIELDS),
    "comments", "changeRequestsOpen", "changeRequestsDraft",
)  # fmt: skip


class SpaceEntry(Entry):
    """One space."""

    kind = "space"
    nullable_fields = frozenset({"emoji", "icon"})
    key_label = "collection and title"
    former_key_fields = ("collection", "title")
    child_fields = frozenset({"access"})
    unknown_key_hints: ClassVar[Mapping[str, str]] = {
        "visibility": "space visibility is read-only through the API"
    }

    title: str = Field(min_length=1, max_length=50)
    emoji: str | None = Field(None, min_length=1, max_length=50)
    icon: Url | None = Field(
        None, description="Instead of emoji: the URL of an image (the service's definition)."
    )
    collection: Annotated[CollectionName | None, ChangedBy("move")] = Field(
        None, description="Manifest name of the collection."
    )
    language: Language | None = None
    editMode: Literal["live", "locked"] | None = None
    defaultLevel: Annotated[Level | None, NullMeans("guest")] = Field(
        None, description="A role, guest or inherit."
    )
    mergeRules: SpaceMergeRules | None = None
    access: Access | None = Field(None, description=ACCESS_DESCRIPTION)

    @model_validator(mode="after")
    def _one_icon(self) -> SpaceEntry:
        if self.emoji is not None and self.icon is not None:
            raise ValueError("set either emoji or icon, not both")
        return self

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: like collections, a title is only meaningful within its collection.
        return (self.collection, self.title)


def content_lost(raw: Mapping[str, Any]) -> str:
    """What a deleted space takes with it, as far as the service's answer tells: it gives no
    page count, only its open comments and change requests."""
    counted = [
        (raw.get("comments"), "open comment"),
        (raw.get("changeRequestsOpen"), "open change request"),
        (raw.get("changeRequestsDraft"), "draft change request"),
    ]
    held = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in counted if isinstance(n, int) and n]
    with_them = f", {', '.join(held)}" if held else ", no open comment or change request"
    return (
        f"every page (the service's answer gives no page count){with_them}; the service keeps a "
        "deleted space restorable for a while, and a plan restores one its entry still names"
    )


class SpaceKind(RestKind, TellsAudience, Restores, TellsWhatIsLost):
    """Spaces keyed by (collection, title); moved between collections, restored when deleted.

    A pinned space that the lists no longer show is looked up once: if it was deleted less than
    7 days ago the plan restores it instead of creating a copy.
    """

    name = "space"
    declaration = Declaration(
        position=50,
        section=Section(SpaceEntry),
        export_file="content.yaml",
        reads=Reads(
            fields={"/spaces/*": SPACE_FIELDS, "/orgs/*/spaces": SPACE_FIELDS},
            list_names=("spaces",),
        ),
    )
    fields = SpaceEntry
    container_key_parts = (0,)
    guard_replacement = True
    references = ("collection", "member")
    reads_pinned_ids = True
    create_path = "/orgs/{org}/spaces"
    object_path = "/spaces/{id}"
    created_with = ("title", "emoji", "language", "editMode")
    set_after_create = ("defaultLevel", "mergeRules")
    patched = ("title", "emoji", "language", "editMode", "defaultLevel", "mergeRules")
    parent_field = "collection"

    def lost_with(self, observed: Observed) -> str:
        return content_lost(observed.raw)

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        spaces = await reader.list(self.name, f"/orgs/{self.org_id}/spaces")
        listed = {s["id"] for s in spaces}
        for space_id in wanted_ids:
            if space_id in listed:
                continue
            found = await reader.get_or_none(self.name, f"/spaces/{space_id}")
            # Only a space of this organization: a token may see others.
            if found and found.get("organization") == self.org_id and found.get("deletedAt"):
                spaces.append(found)
        return spaces

    def restorable(self, raw: Mapping[str, Any]) -> bool:
        return bool(raw.get("deletedAt"))

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("spaces").values()]

    def _desired(self, e: SpaceEntry) -> Desired:
        written = e.managed()
        fields = {k: v for k, v in written.items() if k not in ("collection", "icon")}
        fields["collection"] = ref("collection", e.collection)
        if "defaultLevel" in fields:
            fields["defaultLevel"] = level_value(fields["defaultLevel"])
        if "mergeRules" in fields:
            fields["mergeRules"] = merge_rules_desired(e.mergeRules)
        return entry_desired(
            e, fields, e.title, scope=(fields["collection"],), refs={"collection": _collection}
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        collection = index.ref("collection", raw.get("parent"))
        fields = {k: raw.get(k) for k in self.patched}
        # The API answers an emoji removed with null as "".
        fields["emoji"] = raw.get("emoji") or None
        fields["mergeRules"] = merge_rules_observed(raw.get("mergeRules"), index)
        fields["collection"] = collection
        return Observed(
            id=raw["id"], key=(collection, raw["title"]), fields=fields, title=raw["title"], raw=raw
        )

    def settings_after_create(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        settings = super().settings_after_create(desired, resolve)
        entry: SpaceEntry = desired.entry
        if entry.icon is not None:
            settings["icon"] = entry.icon
        return settings

    def restore_calls(self, observed: Observed) -> list[Call]:
        return [Call("POST", f"/spaces/{observed.id}/restore")]

    #: What a new space has; left out of an export (a field left out is not managed).
    EXPORT_DEFAULTS: ClassVar[Mapping[str, Any]] = {"editMode": "live"}

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """The collection each lies in (whose grants reach it) and its default level."""
        return contained(objects, "collection", new_level="inherit")

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        if raw.get("deletedAt"):
            return None
        # The icon is left out: the API answers with an icon URL, not the name that was set.
        fields = {"id": raw["id"], **set_fields(raw, ("title", "emoji"))}
        if raw.get("parent"):
            fields["collection"] = LiveRef("collection", raw["parent"])
        fields |= set_fields(raw, ("language", "editMode"), self.EXPORT_DEFAULTS)
        if raw.get("defaultLevel") != "inherit":
            fields["defaultLevel"] = role_entry(raw.get("defaultLevel"))
        rules = merge_rules_entry(raw.get("mergeRules"))
        if rules is not None and rules != {"type": "inherit"}:
            fields["mergeRules"] = rules
        return Exported("spaces", self.name, raw["id"], raw["title"], fields)


def _collection(name: str | None) -> Ref | None:
    return ref("collection", name)
