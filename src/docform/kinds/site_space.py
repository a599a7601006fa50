"""Site spaces: a space published in a site, under a section (``sections.<s>.spaces``) or,
for a site without sections, directly under the site (``sites.<site>.spaces``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, ClassVar

from pydantic import Field

from docform.engine.capabilities import LimitsMoves, OrdersSiblings, ReadsBystanders
from docform.engine.field_rules import ChangedBy, Unique
from docform.engine.kind import (
    AddressIndex,
    Bystander,
    ChangeContext,
    Desired,
    Gone,
    Observed,
    Ref,
    Resolve,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change, Placeholder
from docform.errors import DocformError
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.ordering import Container, arriving, racing_creates, reorder_changes
from docform.kind_framework.planning import entry_desired, read_per_site, ref, site_ref
from docform.kind_framework.rest import PathValues, SiteRestKind, created, id_in_path
from docform.kind_framework.site_bystanders import site_spaces_showing
from docform.kinds.override import OverrideBlock
from docform.model.entry import ID_PATTERN, Entry
from docform.model.fields import SpaceName
from docform.service.adaptive_schema import ConditionPath, conditions_of


class SiteSpaceEntry(Entry):
    """One site space; its scope is (site,) or (site, section)."""

    kind = "space"
    nullable_fields = frozenset({"condition", "page"})
    child_fields = frozenset({"customization"})  # its own kind: `docform.kinds.override`
    key_is_unique = True
    key_label = "path"
    former_key_fields = ("section", "path")

    space: SpaceName = Field(description="Manifest name of the space published here.")
    path: str = Field(min_length=1, max_length=100)
    condition: str | None = Field(None, min_length=1, max_length=1024)
    hidden: bool | None = Field(None, description="Hidden from the site navigation.")
    draft: bool | None = Field(None, description="Not on the published site yet.")
    page: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        pattern=ID_PATTERN,
        description="The live id of the page of its space shown at its path's root (its home "
        "page); null: the space's own landing page.",
    )
    default: bool | None = Field(
        None, description="The default site space of its section (or of a site without sections)."
    )
    customization: OverrideBlock | None = Field(
        None,
        description="What this site space shows differently from its site: a field left out "
        "is not managed, a value overrides the site's, null shows the site's again.",
    )

    def located_paths(self) -> Iterator[ConditionPath]:
        # Conditions are checked again at plan time, against the site's live schema.
        return (path for path, _ in conditions_of(self))

    @property
    def address(self) -> str:
        site, *section = self.scope
        inner = f".section.{section[0]}" if section else ""
        return f"site.{site}{inner}.space.{self.name}"

    @property
    def section(self) -> str | None:
        """Manifest name of the enclosing section, None at the site root."""
        return self.scope[1] if len(self.scope) > 1 else None

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: the path is the site space's URL within its section: unique there.
        return (self.section, self.path)


@dataclass(frozen=True)
class Place:
    """A site space entry where its section lists it: the kind's record on `Desired.entry`."""

    entry: SiteSpaceEntry
    first: bool = False
    before: str | None = None
    after: str | None = None
    """Addresses of the site spaces written just before and after it in its section."""


class SiteSpaceFields:
    """The fields of a site space that carry a rule: the section it is in (a change of it is a
    move) and its path, unique in that section."""

    section: Annotated[Ref | None, ChangedBy("move")]
    path: Annotated[str, Unique()]


class SiteSpaceKind(SiteRestKind, ReadsBystanders, OrdersSiblings, LimitsMoves):
    """Site spaces of managed sites, keyed by (section, path); ``default: true`` makes one the
    default of its section (of the site, for a site without sections).

    The first site space of a section that this apply creates is made by the section's own
    create call; this kind then only sets its path, condition and visibility.
    """

    name = "site_space"
    declaration = Declaration(
        position=90,
        nested=Nested(SiteSpaceEntry),
        prune_description="Site spaces of managed sites.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/site-spaces": (
                    "id",
                    "path",
                    "title",
                    "section",
                    "space.id",
                    "condition",
                    "hidden",
                    "draft",
                    "pageId",
                    "default",
                ),
            },
            list_names=("site-spaces",),
        ),
    )
    container_key_parts = (1,)
    references = ("site", "section", "space")
    unmanaged_go_with_container = True
    deleted_with: ClassVar[Mapping[str, str]] = {"space": "deleted with it"}
    read_after = ("site",)
    reached_by = frozenset({"space"})
    fields = SiteSpaceFields
    create_path = "{site}/site-spaces"
    object_path = "{site}/site-spaces/{id}"
    set_after_create = ("path", "condition", "hidden", "draft", "page")
    patched = ("path", "condition", "hidden", "draft", "page")

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await read_per_site(reader, self.name, self.org_id, "site-spaces")

    async def read_bystanders(self, reader: LiveReader, gone: Sequence[Gone]) -> list[Bystander]:
        return await site_spaces_showing(reader, self.name, self.org_id, gone)

    def desired(self, manifests: ManifestView) -> list[Desired]:
        out = []
        for site in manifests.section("sites").values():
            for section in site.sections.values():
                entries = list(section.spaces.values())
                for i, e in enumerate(entries):
                    # The site spaces written next to it in its section: where a move places it.
                    before = entries[i - 1].address if i else None
                    after = entries[i + 1].address if i + 1 < len(entries) else None
                    place = Place(e, first=i == 0, before=before, after=after)
                    out.append(self._desired(site.address, Ref(section.address), place))
            out += [self._desired(site.address, None, Place(e)) for e in site.spaces.values()]
        return out

    def _desired(self, site_address: str, section: Ref | None, place: Place) -> Desired:
        e = place.entry
        site = Ref(site_address)
        fields: dict[str, Any] = {**e.managed(), "site": site, "section": section}
        fields["space"] = ref("space", e.space)
        # A site space whose path changed is still the one showing the same space.
        showing = [(site, section, "showing", fields["space"])]
        requires = frozenset({section.address}) if section else frozenset()

        def section_ref(name: str | None) -> Ref | None:
            return Ref(f"{site_address}.section.{name}") if name else None

        return entry_desired(
            e, fields, e.path, scope=(site, section), formerly=showing, requires=requires,
            entry=place, refs={"section": section_ref},
        )  # fmt: skip

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        section = index.ref("section", raw.get("section"))
        fields = {k: raw.get(k) for k in (*self.patched, "default")}
        fields["page"] = raw.get("pageId")
        space = raw.get("space") or {}
        fields |= {"site": site, "section": section, "space": index.ref("space", space.get("id"))}
        return Observed(
            id=raw["id"],
            key=(site, section, raw["path"]),
            fields=fields,
            title=raw.get("title", ""),
            raw=raw,
            other_keys=((site, section, "showing", fields["space"]),),
        )

    def create_body(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        body = {"spaceId": resolve(desired.fields["space"])}
        section = resolve(desired.fields["section"])
        if section is not None:
            body["sectionId"] = section
        return body

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        section = resolve(desired.fields["section"])
        place: Place = desired.entry
        if not (place.first and isinstance(section, Placeholder)):
            return super().create_calls(desired, resolve)
        # The section's create made this site space: only its settings are left to set.
        at = self.path_values(desired, resolve)
        made = Placeholder(section.address, "siteSpaces.0.id")
        settings = self.settings_after_create(desired, resolve)
        patch = Call("PATCH", self.path(self.object_path, at, made), settings)
        return [patch, *self.after_create(desired, resolve, at)]

    def after_create(self, desired: Desired, resolve: Resolve, at: PathValues) -> list[Call]:
        if not desired.fields.get("default"):
            return []
        holder = _default_holder(at["site"], resolve(desired.fields["section"]))
        return [Call("PATCH", holder, {"defaultSiteSpace": created(desired.address)})]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        # The API drops a site space's home page when its space changes: a kept one goes again.
        page = change.desired.fields.get("page")
        if "space" in change.changed and page is not None and "page" not in change.changed:
            change = replace(change, changed={**change.changed, "page": page})
        return super().change_calls(change)

    def settings_after_create(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        return _page_as_page_id(super().settings_after_create(desired, resolve))

    def patch_body(self, changed: Mapping[str, Any], resolve: Resolve) -> dict[str, Any]:
        body = _page_as_page_id(super().patch_body(changed, resolve))
        if "space" in changed:
            body["spaceId"] = resolve(changed["space"])
        return body

    def after_change(self, change: ChangeContext, at: PathValues) -> list[Call]:
        section = change.resolve(change.desired.fields["section"])
        if change.changed.get("default") is True:
            default = {"defaultSiteSpace": change.observed.id}
            return [Call("PATCH", _default_holder(at["site"], section), default)]
        if "default" in change.changed:
            holder = "section" if section is not None else "site"
            raise DocformError(
                f"{change.where}: default: a {holder} always has a "
                "default site space; mark another one `default: true` instead"
            )
        return []

    def may_move(self, desired: Desired, index: AddressIndex) -> bool:
        # The first site space of a section this apply creates is made by the section's create;
        # a move needs a site space next to it in its new section.
        place: Place = desired.entry
        section = desired.fields["section"]
        if place.first and section is not None and index.is_created(section.address):
            return False
        return place.before is not None or place.after is not None

    def move_call(self, change: ChangeContext, at: PathValues) -> Call:
        """The API has no call that changes a site space's section: a sort that places it next
        to a site space of the other section moves it there."""
        place: Place = change.desired.entry
        before, after = place.before, place.after
        if before is None and after is None:
            raise DocformError(
                f"{change.where}: the API moves a site space to another "
                "section only next to a site space already there; list one before it, or "
                "delete this one and create it anew (drop its line from docform.lock)"
            )
        side, anchor = ("after", before) if before else ("before", after)
        body = {
            "item": {"type": "site-space", "id": change.observed.id},
            "position": {side: {"type": "site-space", "id": change.resolve(Ref(str(anchor)))}},
        }
        return Call("PATCH", self.path("{site}/structure/sort", at), body)

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        wanted: dict[tuple[str, str | None], list[Desired]] = defaultdict(list)
        for d in desired:
            section = d.fields["section"]
            wanted[(d.fields["site"].address, section.address if section else None)].append(d)
        in_live: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
        for raw in live:
            address = index.address_of(self.name, raw["id"])
            holder = (
                index.address_of("site", site_id(raw)),
                index.address_of("section", raw.get("section")),
            )
            if address:
                in_live[holder].append(address)
        containers: list[Container] = []
        for (site, section), entries in wanted.items():
            container = Container(entries, in_live.get((site, section), []))
            # A new section's create makes its first site space, before any other can come.
            made_first = section is not None and index.is_created(section)
            arrivals = arriving(container)[1 if made_first else 0 :]
            container.racing = racing_creates(arrivals, index)
            containers.append(container)
        return reorder_changes(self.name, "site-space", self.org_id, containers, index)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "space": LiveRef("space", raw["space"]["id"])}
        fields["path"] = raw["path"]
        if raw.get("condition") is not None:
            fields["condition"] = raw["condition"]
        if raw.get("hidden"):
            fields["hidden"] = True
        if raw.get("draft"):
            fields["draft"] = True
        if raw.get("pageId"):
            fields["page"] = raw["pageId"]
        section = raw.get("section")
        if raw.get("default") and section:  # only a section has a default site space
            fields["default"] = True
        within = LiveRef("section", section) if section else site_of(raw)
        return Exported("sites", self.name, raw["id"], raw["path"], fields, within=within,
                        nested_as="spaces")  # fmt: skip


def _page_as_page_id(body: dict[str, Any]) -> dict[str, Any]:
    """The manifest's ``page`` is the API's ``pageId``."""
    if "page" in body:
        body["pageId"] = body.pop("page")
    return body


def _default_holder(prefix: str, section: str | Placeholder | None) -> str:
    """What holds a site space's ``defaultSiteSpace``: its section, or the site itself for a
    site without sections."""
    return prefix if section is None else f"{prefix}/sections/{id_in_path(section)}"
