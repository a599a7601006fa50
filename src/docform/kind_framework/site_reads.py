"""Reading the objects a site holds in a list of its own (its share links, context
connections, MCP servers): which sites to read, and their lists, read at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from docform.engine.live import LiveReader


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
