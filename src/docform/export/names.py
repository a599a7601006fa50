"""Manifest names for exported entries: slugs of titles, distinct within their scope, stable.

Names must match ``[a-z0-9][a-z0-9_-]*`` and be unique among their siblings (the teams, the
sections of one site...). Two objects whose titles give the same slug keep apart this way: the
oldest (by creation time, then id) keeps the plain slug and each other one gets a suffix taken
from its own live id. So exporting the same organization again gives the same names, and a
name never depends on the order the API happens to list objects in.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Hashable, Iterable

from docform.export.model import Exported, LiveRef

MAX_BASE = 60
SUFFIX_LENGTHS = (6, 10, 20)
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def slugify(text: str, fallback: str) -> str:
    """``text`` as a manifest name (``Queue: internals`` -> ``queue-internals``); ``fallback``
    when nothing of it is left (a title made only of emoji)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _NOT_NAME.sub("-", ascii_text.lower()).strip("-")[:MAX_BASE].rstrip("-")
    return slug or _NOT_NAME.sub("-", fallback.lower()).strip("-")


def assign_names(entries: Iterable[Exported]) -> dict[LiveRef, str]:
    """The manifest name of every named entry, by its reference (kind and live id)."""
    scopes: dict[Hashable, list[Exported]] = defaultdict(list)
    for entry in entries:
        if not entry.single and not entry.part:
            scopes[(entry.section, entry.within, entry.nested_as)].append(entry)
    names: dict[LiveRef, str] = {}
    # A scope whose entries are named after others is named once every other scope is.
    for siblings in sorted(scopes.values(), key=lambda s: any(e.named_after for e in s)):
        names |= _names_in_scope(siblings, names)
    return names


def _base(entry: Exported, names: dict[LiveRef, str]) -> str:
    if entry.name:
        return entry.name
    if entry.named_after is not None and entry.named_after[0] in names:
        other, tail = entry.named_after
        return slugify(f"{names[other]}-{tail}" if tail else names[other], entry.kind)
    return slugify(entry.hint, entry.kind)


def _names_in_scope(siblings: list[Exported], named: dict[LiveRef, str]) -> dict[LiveRef, str]:
    oldest_first = sorted(siblings, key=lambda e: (e.created_at, e.id))
    names: dict[LiveRef, str] = {}
    taken: set[str] = set()
    later: list[tuple[Exported, str]] = []
    for entry in oldest_first:
        base = _base(entry, named)
        if base in taken:
            later.append((entry, base))
        else:
            taken.add(base)
            names[entry.ref] = base
    # Suffixes only once every plain slug is taken, so a suffixed name never takes one.
    for entry, base in later:
        name = _suffixed(base, entry.id, taken)
        taken.add(name)
        names[entry.ref] = name
    return names


def _suffixed(base: str, live_id: str, taken: set[str]) -> str:
    """``base-<start of the live id>``, longer when that is taken too, numbered at last."""
    id_slug = slugify(live_id, "x")
    for length in SUFFIX_LENGTHS:
        name = f"{base}-{id_slug[:length]}"
        if name not in taken:
            return name
    number = 2
    while f"{base}-{id_slug}-{number}" in taken:
        number += 1
    return f"{base}-{id_slug}-{number}"
