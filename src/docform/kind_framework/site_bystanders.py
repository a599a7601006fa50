"""What a delete reaches inside sites planning does not read (`docform.engine.bystanders`):
the site spaces of a site no manifest manages that show a deleted space, and everything a
deleted site holds."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.kind import Bystander, Gone
from docform.engine.live import LiveReader
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
                address=f"{kind}.~{item['id']}",
                title=item.get("title") or item.get("path"),
                fate=f"deleted with it, leaving {site_named(site)} {leaves}",
                delete=spaces[item["space"]["id"]],
                where=f"lies in {site_named(site)} that no manifest manages",
            )
            for item in lost
        ]
    return found
