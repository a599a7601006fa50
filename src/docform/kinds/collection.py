"""Collections (``collections:``), nested through ``parent`` (a collection's manifest name)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

from docform.engine.audience import Fact, Seen, contained
from docform.engine.capabilities import Nests, TellsAudience
from docform.engine.field_rules import ChangedBy, NullMeans
from docform.engine.kind import AddressIndex, Desired, Observed, Ref
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import role_entry, set_fields
from docform.kind_framework.planning import entry_desired, level_value, ref
from docform.kind_framework.rest import RestKind
from docform.kinds.access import ACCESS_DESCRIPTION, Access
from docform.model.entry import Entry, Unknown, WrittenProblems
from docform.model.fields import CollectionName, Level


class CollectionEntry(Entry):
    """One collection."""

    kind = "collection"
    key_label = "parent and title"
    former_key_fields = ("parent", "title")
    child_fields = frozenset({"access"})

    title: str = Field(min_length=1, max_length=50)
    description: str | None = Field(None, max_length=100)
    parent: Annotated[CollectionName | None, ChangedBy("move")] = Field(
        None, description="Manifest name of the parent collection."
    )
    defaultLevel: Annotated[Level | None, NullMeans("guest")] = Field(
        None, description="A role, guest or inherit."
    )
    access: Access | None = Field(None, description=ACCESS_DESCRIPTION)

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: titles repeat across a tree ("Guides" in two products), never under one parent.
        return (self.parent, self.title)

    @classmethod
    def section_problems(cls, written: Mapping[str, Any], unknown: Unknown) -> WrittenProblems:
        """Parents that lead back to the collection they start from."""
        parents = {name: _parent(entry) for name, entry in written.items()}
        done: set[str] = set()
        for start in parents:
            trail: list[str] = []
            name: str | None = start
            while name is not None and name not in done and name not in trail:
                trail.append(name)
                name = parents.get(name)
            if name is not None and name in trail:
                cycle = [*trail[trail.index(name) :], name]
                yield (name, "parent"), f"collection parents form a cycle: {' -> '.join(cycle)}"
            done.update(trail)


def _parent(written: Any) -> str | None:
    parent = written.get("parent") if isinstance(written, dict) else None
    return parent if isinstance(parent, str) else None


class CollectionKind(RestKind, TellsAudience, Nests):
    """Collections, nested in each other: keyed by (parent, title), moved when the parent changes.

    The create call takes only a title and a parent, so a description or default level is set
    by a PATCH right after it.
    """

    name = "collection"
    declaration = Declaration(
        position=40,
        section=Section(CollectionEntry),
        export_file="content.yaml",
        reads=Reads(
            fields={
                "/orgs/*/collections": ("id", "title", "parent", "description", "defaultLevel"),
            },
            list_names=("collections",),
        ),
    )
    fields = CollectionEntry
    container_key_parts = (0,)
    guard_replacement = True
    references = ("collection",)
    create_path = "/orgs/{org}/collections"
    object_path = "/collections/{id}"
    created_with = ("title",)
    set_after_create = ("description", "defaultLevel")
    patched = ("title", "description", "defaultLevel")
    parent_field = "parent"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, f"/orgs/{self.org_id}/collections")

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("collections").values()]

    def _desired(self, e: CollectionEntry) -> Desired:
        fields = e.managed()
        fields["parent"] = ref(self.name, e.parent)
        if "defaultLevel" in fields:
            fields["defaultLevel"] = level_value(fields["defaultLevel"])
        return entry_desired(
            e, fields, e.title, scope=(fields["parent"],), refs={"parent": _collection}
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        parent = index.ref(self.name, raw.get("parent"))
        return Observed(
            id=raw["id"],
            key=(parent, raw["title"]),
            fields={
                "title": raw["title"],
                "description": raw.get("description"),
                "defaultLevel": raw.get("defaultLevel"),
                "parent": parent,
            },
            title=raw["title"],
            raw=raw,
        )

    def nesting_parent(self, raw: Mapping[str, Any]) -> str | None:
        return raw.get("parent")

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """The collection each lies in (whose grants reach it) and its default level."""
        return contained(objects, "parent", new_level="inherit")

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields = {"id": raw["id"], **set_fields(raw, ("title", "description"))}
        if raw.get("parent"):
            fields["parent"] = LiveRef(self.name, raw["parent"])
        if raw.get("defaultLevel") != "inherit":  # inherit is what a new collection has
            fields["defaultLevel"] = role_entry(raw.get("defaultLevel"))
        return Exported("collections", self.name, raw["id"], raw["title"], fields)


def _collection(name: str | None) -> Ref | None:
    return ref("collection", name)
