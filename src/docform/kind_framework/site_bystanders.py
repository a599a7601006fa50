"""What a delete reaches inside sites planning does not read (`docform.engine.bystanders`):
the site spaces of a site no manifest manages that show a deleted space, and everything a
deleted site holds."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.kind import Bystander, Gone
from docform.engine.live import LiveReader
from docform.engine.match import unmanaged_address
from docform.kind_framework.marks import site_id
from docform.kind_framework.rest import site_prefix


def site_named(site: Mapping[str, Any]) -> str:
    """``site Acme Help Center (site_help)``."""
    title = site.get("title")
    return f"site {title} ({site['id']})" if title else f"site {site['id']}"


def unread_sites(reader: LiveReader, gone: Sequence[Gone]) -> list[dict[str, Any]]:
    """The live sites no manifest manages that the plan keeps: their parts are never read,
    and one with no site space (the site's own count) has none to show a deleted space."""
    managed = {site["id"] for site in reader.managed("site")}
    deleted = {g.live_id for g in gone if g.kind == "site"}
    return [
        site
        for site in reader.live("site")
        if site["id"] not in managed | deleted and site.get("siteSpaces") != 0
    ]


async def site_spaces_showing(
    reader: LiveReader, kind: str, org_id: str, gone: Sequence[Gone]
) -> list[Bystander]:
    """The site spaces of sites no manifest manages that show a space of ``gone``: the API
    deletes them with the space, and what each leaves of its site is said."""
    spaces = {g.live_id: g.delete for g in gone if g.kind == "space"}
    if not spaces:
        return []
    sites = unread_sites(reader, gone)
    lists = await asyncio.gather(
        *(reader.list(kind, f"{site_prefix(org_id, site['id'])}/site-spaces") for site in sites)
    )
    found = []
    for site, items in zip(sites, lists, strict=True):
        lost = [item for item in items if (item.get("space") or {}).get("id") in spaces]
        left = len(items) - len(lost)
        leaves = f"{left} of its {len(items)} site spaces" if left else "no site space"
        found += [
            Bystander(
                address=unmanaged_address(kind, item["id"]),
                title=item.get("title") or item.get("path"),
                fate=f"deleted with it, leaving {site_named(site)} {leaves}",
                delete=spaces[item["space"]["id"]],
                where=f"lies in {site_named(site)} that no manifest manages",
            )
            for item in lost
        ]
    return found


#: What a site's structure holds, by its ``object``: the kind each is an object of.
STRUCTURE_KINDS = {
    "site-section-group": "section_group",
    "site-section": "section",
    "site-space": "site_space",
    "site-external-link": "external_link",
}
#: The lists of what a site holds beside its structure: the kind, and the list's path.
SITE_LISTS = (("redirect", "redirects"), ("share_link", "share-links"))


async def site_holdings(reader: LiveReader, org_id: str, gone: Sequence[Gone]) -> list[Bystander]:
    """Everything each deleted site of ``gone`` holds (planning reads the parts of managed
    sites only, and a site is deleted only once no manifest manages it): its structure, its
    redirects and its share links, which the API deletes with it. They are only parts of what
    is deleted, so the rails judge the site's delete, not them."""
    sites = {g.live_id: g.delete for g in gone if g.kind == "site"}
    found = await asyncio.gather(
        *(_holdings(reader, org_id, site, delete) for site, delete in sorted(sites.items()))
    )
    return [bystander for holdings in found for bystander in holdings]


async def _holdings(reader: LiveReader, org_id: str, site_id: str, delete: str) -> list[Bystander]:
    prefix = site_prefix(org_id, site_id)
    structure, *lists = await asyncio.gather(
        reader.get_or_none("site", f"{prefix}/structure"),
        *(reader.list(kind, f"{prefix}/{path}") for kind, path in SITE_LISTS),
    )
    # A group holds its sections twice (``children`` and the older ``sections``).
    objects = {o["id"]: o for o in _structure_objects(structure)}
    held = [(STRUCTURE_KINDS[o["object"]], o) for o in objects.values()]
    for (kind, _), items in zip(SITE_LISTS, lists, strict=True):
        held += [(kind, item) for item in items]
    return [_held(kind, item, delete) for kind, item in held]


def _structure_objects(node: object) -> list[Mapping[str, Any]]:
    """Each section group, section, site space and external link in a site's structure."""
    if isinstance(node, list):
        return [found for item in node for found in _structure_objects(item)]
    if not isinstance(node, Mapping):
        return []
    own = [node] if node.get("object") in STRUCTURE_KINDS and "id" in node else []
    return own + [found for value in node.values() for found in _structure_objects(value)]


def _held(kind: str, item: Mapping[str, Any], delete: str) -> Bystander:
    # A share link's name only: its URL holds its key.
    title = item.get("title") or item.get("name") or item.get("path") or item.get("source")
    return Bystander(
        address=unmanaged_address(kind, item["id"]),
        title=str(title) if title else None,
        fate="deleted with the site",
        delete=delete,
        where="is part of the deleted site",
        judged=False,
    )


#: Where a redirect's destination names a section or a site space.
DESTINATION_IDS = {"section": "siteSectionId", "site_space": "siteSpaceId"}


async def redirects_to(
    reader: LiveReader, kind: str, org_id: str, gone: Sequence[Gone], unread: Sequence[str]
) -> list[Bystander]:
    """The redirects of the sites ``unread`` (managed sites whose redirects planning did not
    read) that point at a section or site space of ``gone``: the API leaves them pointing at
    nothing."""
    targets = {(g.kind, g.live_id): g.delete for g in gone if g.kind in DESTINATION_IDS}
    sites_of = {raw["id"]: site_id(raw) for name in DESTINATION_IDS for raw in reader.live(name)}
    sites = sorted({sites_of[i] for _, i in targets if sites_of.get(i) in unread})
    lists = await asyncio.gather(
        *(reader.list(kind, f"{site_prefix(org_id, site)}/redirects") for site in sites)
    )
    titles = {site["id"]: site for site in reader.live("site")}
    found = []
    for site, items in zip(sites, lists, strict=True):
        for item in items:
            destination = item.get("destination") or {}
            for target, field in DESTINATION_IDS.items():
                delete = targets.get((target, str(destination.get(field))))
                if delete is None or (target == "site_space" and destination.get("pageId")):
                    continue
                found.append(
                    Bystander(
                        address=unmanaged_address(kind, item["id"]),
                        title=item.get("source"),
                        fate="to pointing at nothing",
                        delete=delete,
                        where=f"lies in {site_named(titles[site])}, whose entry writes no "
                        "redirects:",
                    )
                )
    return found
