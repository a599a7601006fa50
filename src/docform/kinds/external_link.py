"""External links in a site's navigation (``sites.<site>.externalLinks``), keyed by title.

A link sits at the top level of a site with sections, or in one of its section groups
(``group``), never in a section. ``after`` places it right after a section, a section group or
another link of the same container; a link without ``after`` stays where the service put it
(a new one lands last). The API has no list of links: they are read from the site's structure
(one GET per site whose entry writes ``externalLinks``), which gives each link's place.

Its place is planned as sections' is (docs/site-structure-order.md): a ``reorder`` change, one
``PATCH .../structure/sort`` call, after the link's create or move and after the sort calls of
the site's sections and groups, so it ends next to the item it follows whatever they did.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from docform.engine.capabilities import OrdersSiblings
from docform.engine.field_rules import ChangedBy
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change, FieldChange
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Nested
from docform.kind_framework.marks import site_id, site_of, under_site
from docform.kind_framework.ordering import AS_CREATED
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import PathValues, SiteRestKind, site_prefix
from docform.kinds.navigation import ADDRESS_PARTS, GROUP, LINK, STRUCTURE_KINDS
from docform.model.entry import Entry, Unknown, WrittenProblems
from docform.model.fields import Name
from docform.service.adaptive_schema import ConditionPath, conditions_of
from docform.service.site_customization import URL_PATTERN

#: The changes of a site's sections and groups that may move what a link follows.
SETTLING = ("create", "update", "move", "reorder")


class ExternalLinkEntry(Entry):
    """One link of a site's navigation."""

    kind = "externalLink"
    nullable_fields = frozenset({"description", "icon", "condition"})
    key_label = "title"
    former_key_fields = ("title",)

    title: str = Field(min_length=2, max_length=128)
    url: str = Field(pattern=URL_PATTERN, max_length=2048)
    description: str | None = Field(None, max_length=256)
    icon: str | None = Field(None, min_length=1, max_length=50)
    condition: str | None = Field(
        None, min_length=1, max_length=1024, description="Shown only when true (adaptive)."
    )
    draft: bool | None = None
    group: Annotated[Name | None, ChangedBy("move")] = Field(
        None, description="The section group it is in (manifest name); left out: the top level."
    )
    after: Name | None = Field(
        None,
        description="The section, section group or link of the same container it follows; "
        "left out: its place is not managed.",
    )

    def located_paths(self) -> Iterator[ConditionPath]:
        # Conditions are checked again at plan time, against the site's live schema.
        return (path for path, _ in conditions_of(self))

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.externalLink.{self.name}"

    def natural_key(self) -> str:
        # NOTE: a link has no path; its title is what a visitor sees (pin ids if two match).
        return self.title


@dataclass(slots=True)
class PlacedLink(Desired):
    """A link as the engine sees it, and the changes that settle its siblings first."""

    siblings: tuple[str, ...] = ()
    """Addresses of the site's sections and groups: their ``reorder`` changes go first."""


class ExternalLinkKind(SiteRestKind, OrdersSiblings):
    """External links of managed sites, by title within their site."""

    name = "external_link"
    declaration = Declaration(
        position=85,
        nested=Nested(ExternalLinkEntry),
        prune_description="External links of managed sites that write externalLinks.",
    )
    references = ("site", "section", "section_group")
    # The links come in the site structures the navigation kind reads (no request of their
    # own), and that kind is read once every item it orders is matched.
    read_after = (
        "site", "navigation", "section", "section_group", "space", "collection", "member",
    )  # fmt: skip
    fields = ExternalLinkEntry
    create_path = "{site}/external-links"
    object_path = "{site}/external-links/{id}"
    created_with = ("title", "url", "description", "icon", "draft", "condition")
    patched = created_with
    parent_field = "group"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = {
            site["id"]
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.externalLinks is not None
        }
        return [
            link
            for structure in reader.live("navigation")
            if site_id(structure) in sites
            for link in links_in(structure["structure"], site_id(structure))
        ]

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._writing: set[str] = set()

    def desired(self, manifests: ManifestView) -> list[Desired]:
        found: list[Desired] = []
        sites = manifests.section("sites").values()
        self._writing = {site.address for site in sites if site.externalLinks is not None}
        for site in sites:
            siblings = (
                *(s.address for s in site.sections.values()),
                *(g.address for g in site.sectionGroups.values()),
            )
            for link in (site.externalLinks or {}).values():
                found.append(self._desired(site, link, siblings))
        return found

    def _desired(self, site: Any, e: ExternalLinkEntry, siblings: tuple[str, ...]) -> Desired:
        site_ref_ = Ref(site.address)
        fields = {k: v for k, v in e.managed().items() if k not in ("group", "after")}
        fields["site"] = site_ref_
        fields["group"] = Ref(f"{site.address}.sectionGroup.{e.group}") if e.group else None
        # The service takes links only in a site with sections: a site's first ones may be
        # created by the same apply.
        sections = frozenset(s for s in siblings if ".section." in s)
        desired = entry_desired(e, fields, e.title, scope=(site_ref_,), requires=sections)
        return PlacedLink(**_fields_of(desired), siblings=siblings)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        # The links of a site whose entry has no externalLinks are left alone (read anyway
        # when reading without manifests).
        if site is None or site.address not in self._writing:
            return None
        fields = {k: raw.get(k) for k in self.patched}
        fields["draft"] = bool(raw.get("draft"))
        fields["site"] = site
        fields["group"] = index.ref("section_group", raw.get("sectionGroup"))
        return Observed(
            id=raw["id"], key=(site, raw["title"]), fields=fields, title=raw["title"], raw=raw
        )

    def move_call(self, change: ChangeContext, at: PathValues) -> Call:
        body = {"parent": change.resolve(change.changed["group"])}
        return Call("PATCH", self.path(self.object_path, at, change.observed.id), body)

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        previous = {
            address: raw.get("_previous")
            for raw in live
            if (address := index.address_of(self.name, raw["id"]))
        }
        group_of = {
            address: raw.get("sectionGroup")
            for raw in live
            if (address := index.address_of(self.name, raw["id"]))
        }
        changes: list[Change] = []
        for d in desired:
            after = _after(d)
            if after is None:
                continue
            now = _previous_address(previous.get(d.address), index)
            moved = d.address in group_of and index.resolve(d.fields["group"]) != group_of.get(
                d.address
            )
            if d.address in previous and now == after and not moved:
                continue
            known = d.address in previous
            changes.append(self._reorder(d, after, now, known, changes, index))
        return changes

    def _reorder(
        self,
        d: Desired,
        after: str,
        now: str | None,
        known: bool,
        made: list[Change],
        index: AddressIndex,
    ) -> Change:
        site = index.resolve(d.fields["site"])
        anchor_type = ADDRESS_PARTS[after.split(".")[-2]]
        body = {
            "item": {"type": LINK, "id": index.resolve(Ref(d.address))},
            "position": {"after": {"type": anchor_type, "id": index.resolve(Ref(after))}},
        }
        before = f"after {now}" if now else "first" if known else AS_CREATED
        siblings = d.siblings if isinstance(d, PlacedLink) else ()
        return Change(
            address=d.address,
            kind=self.name,
            action="reorder",
            action_reason=f"the manifest places it after {after}",
            before={"position": before},
            after={"position": f"after {after}"},
            fields=[FieldChange("position", before, f"after {after}")],
            calls=[Call("PATCH", f"{site_prefix(self.org_id, site)}/structure/sort", body)],
            # Keys of changes this plan may not hold: those are dropped (`link_dependencies`).
            depends_on=[
                f"{d.address}#create",
                f"{d.address}#move",
                *(f"{s}#{action}" for s in siblings for action in SETTLING),
                *(c.key for c in made),
                f"{after}#create",
            ],
        )

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "title": raw["title"], "url": raw["url"]}
        fields |= {k: raw[k] for k in ("description", "icon", "condition") if raw.get(k)}
        if raw.get("draft"):
            fields["draft"] = True
        if raw.get("sectionGroup"):
            fields["group"] = LiveRef("section_group", raw["sectionGroup"])
        if raw.get("_previous"):
            kind = STRUCTURE_KINDS[raw["_previous"]["object"]]
            fields["after"] = LiveRef(kind, raw["_previous"]["id"])
        site = site_of(raw)
        return Exported("sites", self.name, raw["id"], raw["title"], fields, within=site,
                        nested_as="externalLinks")  # fmt: skip


def _after(d: Desired) -> str | None:
    """The address of the item the manifest puts ``d`` right after, if it says."""
    entry: ExternalLinkEntry = d.entry
    if entry.after is None:
        return None
    site = d.fields["site"].address
    siblings = d.siblings if isinstance(d, PlacedLink) else ()
    for part in ("section", "sectionGroup"):
        if f"{site}.{part}.{entry.after}" in siblings:
            return f"{site}.{part}.{entry.after}"
    return f"{site}.externalLink.{entry.after}"


def _previous_address(previous: Mapping[str, Any] | None, index: AddressIndex) -> str | None:
    if previous is None:
        return None
    ref = index.ref(STRUCTURE_KINDS[previous["object"]], previous["id"])
    return None if ref is None else str(ref)


def links_in(structure: Mapping[str, Any], site: str) -> Iterator[dict[str, Any]]:
    """Each link of a site's structure, tagged with its site and the item before it."""
    if structure.get("type") != "sections":
        return
    yield from _links_among(structure.get("structure") or [], site)
    for item in structure.get("structure") or []:
        if item.get("object") == GROUP:
            yield from _links_among(item.get("children") or [], site)


def _links_among(items: Sequence[Mapping[str, Any]], site: str) -> Iterator[dict[str, Any]]:
    previous: Mapping[str, Any] | None = None
    for item in items:
        if item.get("object") == LINK:
            place = {"object": previous["object"], "id": previous["id"]} if previous else None
            yield {**under_site(item, site), "_previous": place}
        previous = item


def _fields_of(desired: Desired) -> dict[str, Any]:
    return {name: getattr(desired, name) for name in Desired.__dataclass_fields__}


def link_problems(site_name: str, site: Mapping[str, Any], unknown: Unknown) -> WrittenProblems:
    """A link's ``group`` names a group of its site, and ``after`` a section, group or link
    of the same container, which no other item of the container follows."""
    groups = _mapping(site.get("sectionGroups"))
    sections = _mapping(site.get("sections"))
    links = _mapping(site.get("externalLinks"))
    grouped = {s: g for g, group in groups.items() for s in _list(_mapping(group).get("sections"))}
    container_of = {**{s: grouped.get(s) for s in sections}, **{g: None for g in groups}}
    container_of |= {n: _mapping(link).get("group") for n, link in links.items()}
    followed: dict[tuple[Any, str], str] = {}
    for name, link in links.items():
        path = (site_name, "externalLinks", name)
        group, after = _mapping(link).get("group"), _mapping(link).get("after")
        if isinstance(group, str) and group not in groups:
            yield (*path, "group"), unknown("section group", group, list(groups))
        if not isinstance(after, str):
            continue
        if after not in container_of:
            yield (*path, "after"), unknown("section, group or link", after, list(container_of))
        elif container_of[after] != group:
            where = f"section group '{group}'" if group else "the top level"
            yield (*path, "after"), f"'{after}' is not in {where}, where this link is"
        elif (group, after) in followed:
            yield (*path, "after"), f"'{followed[(group, after)]}' already follows '{after}'"
        followed.setdefault((group, after), name)


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
