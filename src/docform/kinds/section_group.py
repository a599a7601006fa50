"""Section groups of a site (``sites.<site>.sectionGroups``): titled groups of its sections,
at the site's top level or inside another group."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field

from docform.engine.capabilities import Nests, OrdersSiblings
from docform.engine.field_rules import ChangedBy
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.ordering import Container, arriving, reorder_changes
from docform.kind_framework.planning import entry_desired, read_per_site, site_ref
from docform.kind_framework.rest import PathValues, SiteRestKind
from docform.kinds.navigation import navigated_sites
from docform.model.entry import Entry
from docform.model.fields import Name
from docform.service.site_customization import LocalizedString128

SECTION_OBJECT = "site-section"


class SectionGroupEntry(Entry):
    """One section group; ``sections`` names sections of the same site, in order, and
    ``group`` the group of the same site it sits in."""

    kind = "sectionGroup"
    nullable_fields = frozenset({"icon"})
    key_label = "title"
    former_key_fields = ("title",)

    title: str = Field(min_length=1, max_length=100)
    icon: str | None = Field(None, min_length=1, max_length=50)
    draft: bool | None = Field(None, description="Not on the published site yet.")
    localizedTitle: LocalizedString128 | None = Field(
        None, description="The title in other languages, by language code ({} for none)."
    )
    sections: list[Name] | None = Field(None, description="Manifest names of sections.")
    group: Annotated[Name | None, ChangedBy("move")] = Field(
        None,
        description="Manifest name of the section group of the same site this group sits in; "
        "left out: the site's top level.",
    )

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.sectionGroup.{self.name}"

    def natural_key(self) -> str:
        # NOTE: groups have no path; the title is all a person sees (pin ids if two match).
        return self.title


class SectionGroupKind(SiteRestKind, OrdersSiblings, Nests):
    """Section groups of managed sites, by title; ``group`` nests one in another.

    A group joins another group, or the site's top level, through its own PATCH
    (``parentSectionGroupId``: a ``move``); it is created inside its group (``parent``). The
    sections a group lists join it through their own PATCH (`docform.kinds.section`). The
    order of groups among the groups of their container is their ``reorder`` changes. A group
    live inside a group no manifest entry manages is left there when the manifest writes no
    ``group`` for it.
    """

    name = "section_group"
    declaration = Declaration(
        position=80,
        nested=Nested(SectionGroupEntry),
        prune_description="Section groups of managed sites.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/section-groups": (
                    "id",
                    "title",
                    "icon",
                    "draft",
                    "localizedTitle",
                    "sectionGroup",
                    # Sections, nested groups and external links: `object` says which.
                    "children[].object",
                    "children[].id",
                    # deprecated: read when no children
                    "sections[].id",
                ),
            },
            # The definition promises both lists; an answer without one is read from the other
            # (`sections` is deprecated, `children` newer than some answers).
            copes_without={"/orgs/*/sites/*/section-groups": ("children", "sections")},
            list_names=("section-groups",),
        ),
    )
    references = ("site",)
    read_after = ("site",)
    fields = SectionGroupEntry
    parent_field = "group"
    create_path = "{site}/section-groups"
    object_path = "{site}/section-groups/{id}"
    created_with = ("title", "icon", "draft")
    set_after_create = ("localizedTitle",)
    patched = ("title", "icon", "draft", "localizedTitle")

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await read_per_site(reader, self.name, self.org_id, "section-groups")

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._navigated: frozenset[str] = frozenset()
        """Sites whose ``navigation:`` orders their top level (`NavigationKind` plans it)."""

    def desired(self, manifests: ManifestView) -> list[Desired]:
        self._navigated = navigated_sites(manifests)
        return [
            self._desired(site.address, group)
            for site in manifests.section("sites").values()
            for group in site.sectionGroups.values()
        ]

    def _desired(self, site_address: str, e: SectionGroupEntry) -> Desired:
        site = Ref(site_address)
        fields: dict[str, Any] = {**e.managed(), "site": site}
        fields.pop("sections", None)
        fields["group"] = group_ref(site_address, e.group)
        return entry_desired(e, fields, e.title, scope=(site,))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        fields = {
            "title": raw["title"],
            "icon": raw.get("icon"),
            "draft": raw.get("draft"),
            "localizedTitle": raw.get("localizedTitle") or {},
            "group": live_group(raw, index),
            "site": site,
        }
        return Observed(
            id=raw["id"], key=(site, raw["title"]), fields=fields, title=raw["title"], raw=raw
        )

    def nesting_parent(self, raw: Mapping[str, Any]) -> str | None:
        return raw.get("sectionGroup")

    def move_call(self, change: ChangeContext, at: PathValues) -> Call:
        body = {"parentSectionGroupId": change.resolve(change.changed["group"])}
        return Call("PATCH", self.path(self.object_path, at, change.observed.id), body)

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        wanted: dict[tuple[str, str | None], list[Desired]] = defaultdict(list)
        for d in desired:
            parent = d.fields["group"]
            wanted[(d.fields["site"].address, parent.address if parent else None)].append(d)
        in_live: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
        for raw in live:
            address = index.address_of(self.name, raw["id"])
            parent = index.address_of(self.name, raw.get("sectionGroup"))
            if address:
                in_live[(index.address_of("site", site_id(raw)), parent)].append(address)
        containers = [
            arrivals_sorted(Container(entries, in_live.get(key, [])), index)
            for key, entries in wanted.items()
            if key[1] is not None or key[0] not in self._navigated
        ]
        return reorder_changes(self.name, "site-section-group", self.org_id, containers, index)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "title": raw["title"]}
        if raw.get("icon") is not None:
            fields["icon"] = raw["icon"]
        if raw.get("draft"):
            fields["draft"] = True
        if raw.get("localizedTitle"):
            fields["localizedTitle"] = raw["localizedTitle"]
        fields["sections"] = [LiveRef("section", s["id"]) for s in sections_of(raw)]
        if raw.get("sectionGroup") is not None:
            fields["group"] = LiveRef(self.name, raw["sectionGroup"])
        site = site_of(raw)
        return Exported("sites", self.name, raw["id"], raw["title"], fields, within=site,
                        nested_as="sectionGroups")  # fmt: skip


def group_ref(site_address: str, name: str | None) -> Ref | None:
    """The reference to the group ``name`` of a site's manifest entry (None: the top level)."""
    return None if name is None else Ref(f"{site_address}.sectionGroup.{name}")


def live_group(raw: Mapping[str, Any], index: AddressIndex) -> Ref | None:
    """The managed group a live section or group sits in. One inside a group no entry manages
    reads as at the top level: docform leaves it where it is unless the manifest places it."""
    group = raw.get("sectionGroup")
    return index.managed_ref("section_group", group) if group is not None else None


def arrivals_sorted(container: Container, index: AddressIndex) -> Container:
    """``container`` with its sorts waiting for the changes that bring items into it: each
    one's create or move (its PATCH puts it last there). Two or more arrive in whatever order
    the service receives them, so each is sorted explicitly."""
    arrivals = arriving(container)
    container.after = tuple(f"{a}#{'create' if index.is_created(a) else 'move'}" for a in arrivals)
    container.racing = frozenset(arrivals) if len(arrivals) > 1 else frozenset()
    return container


def sections_of(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The group's own sections, in order: from ``children`` (which also holds nested groups
    and external links), or from the deprecated ``sections`` when the answer has no children."""
    if "children" in raw:
        return [c for c in raw["children"] if c["object"] == SECTION_OBJECT]
    return list(raw.get("sections") or [])
