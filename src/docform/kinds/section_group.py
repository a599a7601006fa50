"""Section groups of a site (``sites.<site>.sectionGroups``): titled groups of its sections."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import Field

from docform.engine.capabilities import OrdersSiblings
from docform.engine.kind import AddressIndex, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change
from docform.errors import DocformError
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.ordering import Container, arriving, racing_creates, reorder_changes
from docform.kind_framework.planning import entry_desired, read_per_site, site_ref
from docform.kind_framework.rest import PathValues, SiteRestKind
from docform.kinds.navigation import navigated_sites
from docform.model.entry import Entry
from docform.model.fields import Name

SECTION_OBJECT, GROUP_OBJECT = "site-section", "site-section-group"


class SectionGroupEntry(Entry):
    """One section group; ``sections`` names sections of the same site, in order."""

    kind = "sectionGroup"
    nullable_fields = frozenset({"icon"})
    key_label = "title"
    former_key_fields = ("title",)

    title: str = Field(min_length=1, max_length=100)
    icon: str | None = Field(None, min_length=1, max_length=50)
    sections: list[Name] | None = Field(None, description="Manifest names of sections.")

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.sectionGroup.{self.name}"

    def natural_key(self) -> str:
        # NOTE: groups have no path; the title is all a person sees (pin ids if two match).
        return self.title


ROOT = ""
"""Where `SectionGroupKind.desired` lists the sections at a site's top level."""


class GroupSections(tuple[Ref, ...]):
    """The sections a group should hold, in manifest order, equal to a live list that holds
    the same ones in any order: order inside a group is the sections' own ``reorder`` changes,
    so a group's ``sections`` changes only when a section joins or leaves it. A section that
    another group of the manifests lists (``elsewhere``) may still be here: that group's
    ``POST .../sections`` takes it; so may one the manifests place at the top level, which
    its own sort (``PATCH .../structure/sort``) takes out of the group."""

    elsewhere: frozenset[Ref]
    top_level: frozenset[Ref]
    """The sections the manifests place at the site's top level (part of ``elsewhere``)."""

    def __new__(
        cls, sections: Iterable[Ref], elsewhere: Iterable[Ref] = (), top_level: Iterable[Ref] = ()
    ) -> GroupSections:
        made = super().__new__(cls, sections)
        made.elsewhere = frozenset(elsewhere)
        made.top_level = frozenset(top_level)
        return made

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return set(self) == set(other) - self.taken_elsewhere(other)

    def taken_elsewhere(self, have: Sequence[object]) -> frozenset[Ref]:
        """The sections of ``have`` (the group's live ones) that leave it without a call of
        its own: for another group, or for the top level when a section stays there, next to
        which their sort places them."""
        if any(s not in have for s in self.top_level):
            return self.elsewhere
        return self.elsewhere - self.top_level

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(frozenset(self))


class SectionGroupKind(SiteRestKind, OrdersSiblings):
    """Section groups of managed sites, by title; ``sections`` lists the sections in a group.

    The API adds a section to a group but has no call to take one out: a section leaves a group
    only by joining another one (that group's ``POST .../sections`` moves it) or by being
    deleted. The order of a group's sections is the sections' own ``reorder`` changes.

    A group's content is read from ``children`` (``sections`` is deprecated, and read only from
    an answer without ``children``). Groups nested in groups are refused when met live in a
    managed site: the manifest has no way to place a group in another, and the API cannot move
    a group into another after creating it, so docform could neither keep nor converge them.
    """

    name = "section_group"
    prune_setting = "sectionGroups"
    declaration = Declaration(
        position=80,
        nested=Nested(SectionGroupEntry, "section groups"),
        prune_description="Section groups of managed sites.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/section-groups": (
                    "id",
                    "title",
                    "icon",
                    # Sections, nested groups and external links: `object` says which.
                    "children[].object",
                    "children[].id",
                    # deprecated: read when no children
                    "sections[].id",
                ),
            },
            # An answer without `children` is read from the deprecated `sections`.
            copes_without={"/orgs/*/sites/*/section-groups": ("children",)},
            list_names=("section-groups",),
        ),
    )
    references = ("site", "section")
    read_after = ("site",)
    create_path = "{site}/section-groups"
    object_path = "{site}/section-groups/{id}"
    created_with = ("title", "icon")
    patched = ("title", "icon")

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await read_per_site(reader, self.name, self.org_id, "section-groups")

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._navigated: frozenset[str] = frozenset()
        """Sites whose ``navigation:`` orders their top level (`NavigationKind` plans it)."""

    def desired(self, manifests: ManifestView) -> list[Desired]:
        self._navigated = navigated_sites(manifests)
        out = []
        for site in manifests.section("sites").values():
            listed = {
                group.address: [Ref(f"{site.address}.section.{name}") for name in group.sections]
                for group in site.sectionGroups.values()
                if group.sections is not None
            }
            # Sections at the top level: their own sort takes them out of a group.
            grouped = {ref for refs in listed.values() for ref in refs}
            listed[ROOT] = [
                ref
                for name in site.sections
                if (ref := Ref(f"{site.address}.section.{name}")) not in grouped
            ]
            # With a navigation, a section leaves a group for the top level by a sort next to
            # any other item there, not only a section.
            anchors_beyond_sections = len(site.navigation or ()) > 1
            for group in site.sectionGroups.values():
                out.append(self._desired(site.address, group, listed, anchors_beyond_sections))
        return out

    def _desired(
        self,
        site_address: str,
        e: SectionGroupEntry,
        listed: Mapping[str, list[Ref]],
        anchors_beyond_sections: bool,
    ) -> Desired:
        site = Ref(site_address)
        fields: dict[str, Any] = {**e.managed(), "site": site}
        if e.address in listed:
            elsewhere = {
                ref for group, refs in listed.items() if group != e.address for ref in refs
            }
            top_level = () if anchors_beyond_sections else listed[ROOT]
            fields["sections"] = GroupSections(listed[e.address], elsewhere, top_level)
        return entry_desired(e, fields, e.title, scope=(site,))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        refuse_nested(raw, site)
        sections = sections_of(raw)
        fields = {
            "title": raw["title"],
            "icon": raw.get("icon"),
            # An unmanaged section stays where it is (or goes when sections are pruned).
            "sections": [
                ref for s in sections if (ref := index.managed_ref("section", s["id"])) is not None
            ],
            "site": site,
        }
        return Observed(
            id=raw["id"], key=(site, raw["title"]), fields=fields, title=raw["title"], raw=raw
        )

    def create_body(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        body = super().create_body(desired, resolve)
        if "sections" in desired.fields:
            body["sections"] = [resolve(ref) for ref in desired.fields["sections"]]
        return body

    def after_change(
        self,
        observed: Observed,
        desired: Desired,
        changed: Mapping[str, Any],
        resolve: Resolve,
        at: PathValues,
    ) -> list[Call]:
        if "sections" not in changed:
            return []
        return self._section_calls(
            self.path(self.object_path, at, observed.id), observed, desired, resolve
        )

    def _section_calls(
        self, path: str, observed: Observed, desired: Desired, resolve: Resolve
    ) -> list[Call]:
        have, want = observed.fields["sections"], desired.fields["sections"]
        elsewhere = want.taken_elsewhere(have)
        leaving = [str(s) for s in have if s not in want and s not in elsewhere]
        if leaving:
            raise DocformError(
                f"{desired.location}: {desired.address}: sections: the API takes "
                f"{', '.join(leaving)} out of a group only by a sort next to a section at the "
                "top level, and none stays there; keep one there, list it in another group, "
                "or delete it"
            )
        return [
            Call("POST", f"{path}/sections", {"sectionId": resolve(section)})
            for section in want
            if section not in have
        ]

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        wanted: dict[str, list[Desired]] = defaultdict(list)
        for d in desired:
            wanted[d.fields["site"].address].append(d)
        in_live: dict[str | None, list[str]] = defaultdict(list)
        for raw in live:
            address = index.address_of(self.name, raw["id"])
            if address:
                in_live[index.address_of("site", raw["_site"])].append(address)
        containers = []
        for site, entries in wanted.items():
            if site in self._navigated:
                continue
            container = Container(entries, in_live.get(site, []))
            container.racing = racing_creates(arriving(container), index)
            containers.append(container)
        return reorder_changes(self.name, "site-section-group", self.org_id, containers, index)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "title": raw["title"]}
        if raw.get("icon") is not None:
            fields["icon"] = raw["icon"]
        refuse_nested(raw, raw["_site"])
        fields["sections"] = [LiveRef("section", s["id"]) for s in sections_of(raw)]
        site = LiveRef("site", raw["_site"])
        return Exported("sites", self.name, raw["id"], raw["title"], fields, within=site,
                        nested_as="sectionGroups")  # fmt: skip


def sections_of(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The group's own sections, in order: from ``children`` (which also holds nested groups
    and external links), or from the deprecated ``sections`` when the answer has no children."""
    if "children" in raw:
        return [c for c in raw["children"] if c["object"] == SECTION_OBJECT]
    return list(raw.get("sections") or [])


def refuse_nested(raw: Mapping[str, Any], site: object) -> None:
    """Stop at a group that sits in another group or holds one (see `SectionGroupKind`)."""
    inner = [c for c in raw.get("children") or [] if c["object"] == GROUP_OBJECT]
    if raw.get("sectionGroup") is None and not inner:
        return
    where = (
        f"sits in section group {raw['sectionGroup']}"
        if raw.get("sectionGroup") is not None
        else f"holds section group(s) {', '.join(c['id'] for c in inner)}"
    )
    raise DocformError(
        f"{site}: section group {raw['id']} ({raw['title']!r}) {where}; docform manages only "
        "section groups at the top level of a site. Move the nested group to the top level "
        "(or delete it) in the service, then plan again"
    )
