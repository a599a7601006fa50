"""The order of a site's top level (``sites.<site>.navigation``): its sections outside groups,
its section groups and its external links outside groups, as one list of manifest names.

Without ``navigation:`` a site's groups are ordered among themselves and its top-level sections
among themselves, and how the two interleave is left as it is. With it, the list is the whole
top level: every item written there is listed once, in the order the site shows them, and the
plan sorts the items that are out of place (``PATCH .../structure/sort``, whatever their type),
so a group moved among sections by hand is drift. It reads the site's structure (``GET
.../structure``, the only answer that holds that order), one request per site that writes
``navigation:`` or ``externalLinks:``; the external links are read from the same answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.capabilities import OrdersSiblings
from docform.engine.kind import AddressIndex, Desired, Kind, Observed, Ref
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Change
from docform.errors import DocformError
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_setting
from docform.kind_framework.ordering import Container, Move, planned_moves, sort_change
from docform.kind_framework.rest import site_prefix
from docform.model.entry import Unknown, WrittenProblems

LINK, SECTION, GROUP = "site-external-link", "site-section", "site-section-group"
#: The kind of each structure object, and the part of an address that names it.
STRUCTURE_KINDS = {SECTION: "section", GROUP: "section_group", LINK: "external_link"}
ADDRESS_PARTS = {"section": SECTION, "sectionGroup": GROUP, "externalLink": LINK}
#: Changes that bring an item to a site's top level or take one away: the sorts wait for them.
ARRIVING = ("create", "update", "move")
NAVIGATION_DESCRIPTION = (
    "The whole top level of the site in order: each section outside a group, each section "
    "group and each external link outside a group, by manifest name. Left out: how groups, "
    "sections and links interleave is not managed."
)


class NavigationKind(Kind, OrdersSiblings):
    """The top-level order of each managed site whose entry writes ``navigation:``.

    Nothing is matched: the kind reads the structures and plans one ``reorder`` change per
    item out of place, planned as any container's (`docform.kind_framework.ordering`)."""

    name = "navigation"
    plural = "site navigations"
    prune_setting = None
    locked = False
    declaration = Declaration(
        position=86,
        reads=Reads(
            fields={"/orgs/*/sites/*/structure": ("type", "structure")},
        ),
    )
    # Every item of the top level is matched first: the live order is read in their addresses.
    references = ("site", "section", "section_group", "external_link")
    read_after = ("site",)

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._wanted: dict[str, list[str]] = {}
        """Site address -> the addresses of its top level, in manifest order."""
        self._items: dict[str, list[str]] = {}
        """Site address -> the addresses of every group, section and link it writes."""

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            site["id"]
            for site, desired in reader.managed_with_entries("site")
            if desired is None or _reads_structure(desired.entry)
        ]
        answers = await asyncio.gather(
            *(
                reader.get_or_none(self.name, f"{site_prefix(self.org_id, s)}/structure")
                for s in sites
            )
        )
        return [
            site_setting({"structure": answer}, site)
            for site, answer in zip(sites, answers, strict=True)
            if answer is not None
        ]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        self._wanted, self._items = {}, {}
        for site in manifests.section("sites").values():
            if site.navigation is None:
                continue
            self._wanted[site.address] = [top_level_address(site, n) for n in site.navigation]
            self._items[site.address] = [entry.address for entry in _structure_entries(site)]
        return []

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        return None  # nothing to match: the order is planned in `order_changes`

    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        structures = {
            address: raw["structure"]
            for raw in live
            if (address := index.address_of("site", site_id(raw))) is not None
        }
        changes: list[Change] = []
        for site, order in self._wanted.items():
            now = live_top_level(structures.get(site) or {}, index)
            container = Container((), now, racing=_racing(site, order, now, index))
            # The site's sorts run one after the other, once every item has come or gone.
            previous = [f"{item}#{action}" for item in self._items[site] for action in ARRIVING]
            for move in planned_moves(order, container):
                change = self._sort(site, move, index)
                change.depends_on, previous = previous, [change.key]
                changes.append(change)
        return changes

    def _sort(self, site: str, move: Move, index: AddressIndex) -> Change:
        item = pointer(move.address, index)
        anchor = pointer(move.anchor, index)
        return sort_change(self.name, self.org_id, index.resolve(Ref(site)), move, item, anchor)

    def export_entry(self, raw: Mapping[str, Any]) -> None:
        # Export writes each external link's `after:` instead (no list to keep in step).
        return None


def navigated_sites(manifests: ManifestView) -> frozenset[str]:
    """The addresses of the sites whose entries write ``navigation:``."""
    sites = manifests.section("sites").values()
    return frozenset(site.address for site in sites if site.navigation is not None)


def _reads_structure(site: Any) -> bool:
    return site.navigation is not None or site.externalLinks is not None


def _structure_entries(site: Any) -> Iterable[Any]:
    yield from site.sections.values()
    yield from site.sectionGroups.values()
    yield from (site.externalLinks or {}).values()


def top_level_address(site: Any, name: str) -> str:
    """The address of the top-level item ``name`` of ``site`` (load-time rules make it one)."""
    if name in site.sectionGroups:
        return f"{site.address}.sectionGroup.{name}"
    if name in (site.externalLinks or {}):
        return f"{site.address}.externalLink.{name}"
    return f"{site.address}.section.{name}"


def pointer(address: str, index: AddressIndex) -> dict[str, Any]:
    """The API's pointer to the structure item of ``address`` (its id or a placeholder)."""
    return {"type": ADDRESS_PARTS[address.split(".")[-2]], "id": index.resolve(Ref(address))}


def live_top_level(structure: Mapping[str, Any], index: AddressIndex) -> list[str]:
    """The addresses of the managed items at the top level of a live structure, in order."""
    if structure.get("type") != "sections":
        return []
    found = []
    for item in structure.get("structure") or []:
        kind = STRUCTURE_KINDS.get(item.get("object", ""))
        address = index.address_of(kind, item.get("id")) if kind else None
        if address is not None:
            found.append(address)
    return found


def _racing(
    site: str, order: Sequence[str], now: Sequence[str], index: AddressIndex
) -> frozenset[str]:
    """The items whose place on arrival the apply cannot know: each one coming to the top
    level, unless it is the only one and a new section or group (those land last). When no
    item of ``order`` is there yet, a created one is the first anchor (its create puts it at
    the top level); the others are sorted next to it."""
    arrivals = [a for a in order if a not in now]
    if len(arrivals) == 1 and index.is_created(arrivals[0]) and _lands_last(arrivals[0]):
        return frozenset()
    if arrivals and len(arrivals) == len(order):
        created = [a for a in order if index.is_created(a)]
        if not created:
            raise DocformError(
                f"{site}: navigation: none of its items is at the top level of the site yet, "
                f"so there is nothing to place {order[0]} next to; place one item there in "
                "the service (or create one), then plan again"
            )
        return frozenset(arrivals) - {created[0]}
    return frozenset(arrivals)


def _lands_last(address: str) -> bool:
    # Where a new external link lands is not stated by the API (docs/service.md).
    return ADDRESS_PARTS[address.split(".")[-2]] != LINK


def navigation_problems(
    site_name: str, site: Mapping[str, Any], unknown: Unknown
) -> WrittenProblems:
    """A site's ``navigation`` lists each top-level item it writes once, and nothing else; a
    link it places has no ``after`` of its own."""
    listed = site.get("navigation")
    if not isinstance(listed, list):
        return
    top = top_level_names(site)
    grouped = _grouped_names(site)
    seen: set[str] = set()
    for index, name in enumerate(listed):
        path = (site_name, "navigation", index)
        if not isinstance(name, str):
            continue
        if name in seen:
            yield path, f"'{name}' is listed twice"
        elif name in grouped:
            yield path, f"'{name}' is in section group '{grouped[name]}'; list the group instead"
        elif name not in top:
            yield path, unknown("section, section group or external link", name, list(top))
        elif len(top[name]) > 1:
            yield path, f"'{name}' names both a {' and a '.join(top[name])}; rename one of them"
        seen.add(name)
    missing = [f"'{name}' ({top[name][0]})" for name in top if name not in seen]
    if missing:
        yield (
            (site_name, "navigation"),
            (f"lists the whole top level: add {', '.join(missing)} where it should show"),
        )
    for name, link in _mapping(site.get("externalLinks")).items():
        if name in seen and _mapping(link).get("after") is not None:
            yield (
                (site_name, "externalLinks", name, "after"),
                ("the site's navigation places this link; remove after"),
            )


def top_level_names(site: Mapping[str, Any]) -> dict[str, list[str]]:
    """The manifest names of the items a site writes at its top level, and what each names."""
    grouped = _grouped_names(site)
    top: dict[str, list[str]] = {}
    for name in _mapping(site.get("sections")):
        if name not in grouped:
            top.setdefault(name, []).append("section")
    for name in _mapping(site.get("sectionGroups")):
        if name not in grouped:
            top.setdefault(name, []).append("section group")
    for name, link in _mapping(site.get("externalLinks")).items():
        if _mapping(link).get("group") is None:
            top.setdefault(name, []).append("external link")
    return top


def _grouped_names(site: Mapping[str, Any]) -> dict[str, str]:
    """Sections, groups and links in a group, by name, with their group's name."""
    found: dict[str, str] = {}
    for group_name, group in _mapping(site.get("sectionGroups")).items():
        listed = _mapping(group).get("sections")
        for section in listed if isinstance(listed, list) else []:
            if isinstance(section, str):
                found.setdefault(section, group_name)
        parent = _mapping(group).get("group")
        if isinstance(parent, str):
            found.setdefault(group_name, parent)
    for name, link in _mapping(site.get("externalLinks")).items():
        group = _mapping(link).get("group")
        if isinstance(group, str):
            found.setdefault(name, group)
    return found


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
