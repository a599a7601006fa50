"""Reading the objects a site holds in a list of its own (its share links, context
connections, MCP servers, agent channels): which sites to read, their lists, read at once, and
the entries the manifests write for them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.kind_framework.marks import under_site


def sites_writing(reader: LiveReader, field: str) -> list[str]:
    """The sites whose ``field`` planning reads: each site no entry manages, and each whose
    entry writes the field (even empty, which says the site holds none)."""
    return [
        site["id"]
        for site, desired in reader.managed_with_entries("site")
        if desired is None or getattr(desired.entry, field, None) is not None
    ]


async def site_lists(
    reader: LiveReader, kind: str, sites: Sequence[str], path: Callable[[str], str]
) -> list[tuple[str, dict[str, Any]]]:
    """Every item of each site's list at ``path(site)``, with its site, in the sites' order."""
    lists = await asyncio.gather(*(reader.list(kind, path(site)) for site in sites))
    return [(site, item) for site, items in zip(sites, lists, strict=True) for item in items]


async def site_list_items(
    reader: LiveReader, kind: str, field: str, path: Callable[[str], str]
) -> list[dict[str, Any]]:
    """Every item of the lists at ``path(site)`` of the sites `sites_writing` ``field``, each
    marked with its site (`marks.under_site`)."""
    listed = await site_lists(reader, kind, sites_writing(reader, field), path)
    return [under_site(item, site) for site, item in listed]


def site_held_entries(manifests: ManifestView, field: str) -> list[tuple[str, Any]]:
    """Each entry written under ``sites.<site>.<field>``, with its site's address."""
    return [
        (site.address, entry)
        for site in manifests.section("sites").values()
        for entry in (getattr(site, field, None) or {}).values()
    ]
