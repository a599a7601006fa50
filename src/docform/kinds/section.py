"""Sections of a site (``sites.<site>.sections``), keyed by path; they own their site spaces."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Annotated, Any

from pydantic import Field

from docform.engine.capabilities import OrdersSiblings
from docform.engine.field_rules import ChangedBy, Unique
from docform.engine.kind import (
    AddressIndex,
    ChangeContext,
    Desired,
    Observed,
    Ref,
    Resolve,
    Unresolved,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change
from docform.errors import DocformError
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.exporting import set_fields
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.ordering import Container, reorder_changes
from docform.kind_framework.planning import entry_desired, read_per_site, ref, site_ref
from docform.kind_framework.rest import PathValues, SiteRestKind, created
from docform.kinds.navigation import navigated_sites
from docform.kinds.section_group import arrivals_sorted, live_group
from docform.kinds.site_space import SiteSpaceEntry
from docform.model.entry import Entry
from docform.model.fields import Name
from docform.service.adaptive_schema import ConditionPath, conditions_of
from docform.service.site_customization import LocalizedString128, LocalizedString256

#: Titles and descriptions for the site's other languages: an empty map is none.
LOCALIZED = ("localizedTitle", "localizedDescription")


class SectionEntry(Entry):
    """One section of a site; ``spaces`` are its site spaces in order."""

    kind = "section"
    nullable_fields = frozenset({"condition", "icon", "description"})
    key_is_unique = True
    key_label = "path"
    former_key_fields = ("path",)
    child_fields = frozenset({"spaces"})

    title: str | None = Field(None, min_length=2, max_length=128)
    path: Annotated[str, Unique()] = Field(min_length=1, max_length=100)
    description: str | None = Field(None, max_length=256)
    localizedTitle: LocalizedString128 | None = Field(
        None, description="The title in other languages, by language code ({} for none)."
    )
    localizedDescription: LocalizedString256 | None = Field(
        None, description="The description in other languages, by language code ({} for none)."
    )
    condition: str | None = Field(None, min_length=1, max_length=1024)
    icon: str | None = Field(None, min_length=1, max_length=50)
    draft: bool | None = Field(None, description="Not on the published site yet.")
    default: bool | None = Field(None, description="The default section of the site.")
    spaces: dict[Name, SiteSpaceEntry] = Field(default_factory=dict)

    def located_paths(self) -> Iterator[ConditionPath]:
        # Conditions are checked again at plan time, against the site's live schema.
        return (path for path, _ in conditions_of(self))

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.section.{self.name}"

    def natural_key(self) -> str:
        # NOTE: the path is the section's URL within the site: unique there.
        return self.path

    def children(self) -> list[Entry]:
        return list(self.spaces.values())


class SectionFields:
    """The fields of a section that carry a rule: the group it is in (a change of it is a
    move) and its path, unique in its site."""

    sectionGroup: Annotated[Ref | None, ChangedBy("move")]
    path: Annotated[str, Unique()]


class SectionKind(SiteRestKind, OrdersSiblings):
    """Sections of managed sites, keyed by path within their site.

    The API creates a section together with its first site space (``POST /sections`` takes a
    space), so a section can only be created when the manifest gives it at least one space.
    ``default: true`` is the site's ``defaultSiteSection``. A section joins the group that
    lists it, or the site's top level when none does, through its own PATCH
    (``siteSectionGroupId``: a ``move``, or the PATCH right after its create); a section live
    in a group no manifest entry manages stays there unless a group lists it.
    """

    name = "section"
    # The group a section is in is written on the group (its `sections:` list), not on the
    # section's entry, yet a rule may read it on the section.
    fields_beyond_entry = ("sectionGroup",)
    declaration = Declaration(
        position=70,
        nested=Nested(SectionEntry),
        prune_description="Sections of managed sites.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/sections": (
                    "id",
                    "path",
                    "title",
                    "description",
                    "localizedTitle",
                    "localizedDescription",
                    "condition",
                    "icon",
                    "draft",
                    "default",
                    "sectionGroup",
                    "siteSpaces[].space.id",
                ),
            },
            list_names=("sections",),
        ),
    )
    references = ("site", "space", "section_group")
    read_after = ("site",)
    fields = SectionFields
    create_path = "{site}/sections"
    object_path = "{site}/sections/{id}"
    created_with = ("title", "icon", "draft")
    set_after_create = ("path", "description", "condition", *LOCALIZED)
    patched = ("title", "path", "description", "condition", "icon", "draft", *LOCALIZED)

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await read_per_site(reader, self.name, self.org_id, "sections")

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._navigated: frozenset[str] = frozenset()
        """Sites whose ``navigation:`` orders their top level (`NavigationKind` plans it)."""

    def desired(self, manifests: ManifestView) -> list[Desired]:
        self._navigated = navigated_sites(manifests)
        # Order is per container: a section's container is the group listing it, and its
        # place there is where that list names it (not where `sections:` defines it).
        listed = {
            f"{site.address}.section.{name}": (group.address, place)
            for site in manifests.section("sites").values()
            for group in site.sectionGroups.values()
            for place, name in enumerate(group.sections or ())
        }
        sections = [
            self._desired(site.address, section)
            for site in manifests.section("sites").values()
            for section in site.sections.values()
        ]
        for d in sections:
            group = listed.get(d.address, (None, 0))[0]
            d.fields["sectionGroup"] = Ref(group) if group is not None else None
        return [
            GroupedSection(**_fields_of(d), group=listed.get(d.address, (None, 0)))
            for d in sections
        ]

    def _desired(self, site_address: str, e: SectionEntry) -> Desired:
        site = Ref(site_address)
        first = next(iter(e.spaces.values()), None)
        unfinished = [(site, _unfinished(e.title, ref("space", first.space)))] if first else []
        return entry_desired(
            e, {**e.managed(), "site": site}, e.path, scope=(site,), unfinished_keys=unfinished
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        fields = {k: raw.get(k) for k in (*self.patched, "default")}
        fields |= {k: raw.get(k) or {} for k in LOCALIZED}
        fields["site"] = site
        fields["sectionGroup"] = live_group(raw, index)
        spaces = raw.get("siteSpaces") or []
        first = index.ref("space", spaces[0]["space"]["id"]) if spaces else None
        return Observed(
            id=raw["id"],
            key=(site, raw["path"]),
            fields=fields,
            title=raw["title"],
            raw=raw,
            other_keys=((site, _unfinished(raw["title"], first)),),
        )

    def create_body(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        entry: SectionEntry = desired.entry
        first = next(iter(entry.spaces.values()), None)
        if first is None:
            raise DocformError(
                f"{desired.location}: {desired.address}: the API creates a section together "
                "with its first site space; list at least one under `spaces:`"
            )
        body = {"spaceId": resolve(ref("space", first.space))}
        body |= super().create_body(desired, resolve)
        if _titled_by_path(desired):
            body["title"] = desired.fields["path"]
        return body

    def settings_after_create(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        settings = super().settings_after_create(desired, resolve)
        if _titled_by_path(desired):
            settings["title"] = desired.fields["title"]
        if desired.fields.get("sectionGroup") is not None:
            settings["siteSectionGroupId"] = resolve(desired.fields["sectionGroup"])
        return settings

    def move_call(self, change: ChangeContext, at: PathValues) -> Call:
        body = {"siteSectionGroupId": change.resolve(change.changed["sectionGroup"])}
        return Call("PATCH", self.path(self.object_path, at, change.observed.id), body)

    def after_create(self, desired: Desired, resolve: Resolve, at: PathValues) -> list[Call]:
        if not desired.fields.get("default"):
            return []
        return [Call("PATCH", at["site"], {"defaultSiteSection": created(desired.address)})]

    def after_change(self, change: ChangeContext, at: PathValues) -> list[Call]:
        if change.changed.get("default") is True:
            return [Call("PATCH", at["site"], {"defaultSiteSection": change.observed.id})]
        if "default" in change.changed:
            raise DocformError(
                f"{change.where}: default: a site always has a default "
                "section; mark another section `default: true` instead of this one `false`"
            )
        return []

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        wanted: dict[tuple[str, str | None], list[Desired]] = defaultdict(list)
        for d in desired:
            group, _ = _listed_in(d)
            wanted[(d.fields["site"].address, group)].append(d)
        for entries in wanted.values():
            entries.sort(key=lambda d: _listed_in(d)[1])
        in_live: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
        for raw in live:
            address = index.address_of(self.name, raw["id"])
            group = index.address_of("section_group", raw.get("sectionGroup"))
            if address:
                in_live[(index.address_of("site", site_id(raw)), group)].append(address)
        containers = [
            arrivals_sorted(Container(entries, in_live.get(key, [])), index)
            for key, entries in wanted.items()
            if key[1] is not None or key[0] not in self._navigated
        ]
        return reorder_changes(self.name, "site-section", self.org_id, containers, index)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields = {"id": raw["id"], **set_fields(raw, self.patched, {"draft": False})}
        if raw.get("default"):
            fields["default"] = True
        site = site_of(raw)
        return Exported("sites", self.name, raw["id"], raw["path"], fields, within=site,
                        nested_as="sections")  # fmt: skip


@dataclass(slots=True)
class GroupedSection(Desired):
    """A section as the engine sees it, and where the manifest places it among its siblings."""

    group: tuple[str | None, int] = (None, 0)
    """The address of the section group listing it and its place in that list; no group
    (None) for a section at the site's root, placed where `sections:` defines it."""


def _fields_of(desired: Desired) -> dict[str, Any]:
    return {field.name: getattr(desired, field.name) for field in fields(Desired)}


def _listed_in(desired: Desired) -> tuple[str | None, int]:
    return desired.group if isinstance(desired, GroupedSection) else (None, 0)


def _titled_by_path(desired: Desired) -> bool:
    """Whether the create POST names the section by its path, the title set by the PATCH
    after it.

    The API takes no path in the POST: it derives one from the title (docs/service.md). A
    section created with its own path as its title gets that path at once, so what a create cut
    short leaves (killed before its answer, its PATCH never sent) is at the entry's natural key
    and the next plan finishes it, with no guess. Only for a path that is its own slug and a
    valid title (2 characters or more), and an entry that gives its title."""
    path, title = desired.fields.get("path"), desired.fields.get("title")
    return (
        isinstance(path, str)
        and title is not None
        and len(path) >= 2
        and _SLUG.fullmatch(path) is not None
    )


_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _unfinished(
    title: str | None, first_space: Ref | Unresolved | None
) -> tuple[str, str | None, Ref | Unresolved | None]:
    """A section as its create POST leaves it: the path is set by a PATCH after it."""
    return ("unfinished", title, first_space)
