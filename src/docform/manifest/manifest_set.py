"""`ManifestSet`: a validated manifest directory, as the planner consumes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import TypeVar

from docform.kind_registry import nested_kinds
from docform.kinds.organization import OrganizationEntry
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.lock import Lock
from docform.manifest.settings import Settings
from docform.model.entry import BoundModel, Entry
from docform.policies.model import PolicyEntry

E = TypeVar("E", bound=Entry)


@dataclass
class ManifestSet:
    """Settings, the organization and, per section, entries by manifest name in manifest order
    (files sorted by path, then document order). Every entry knows its name, path, location,
    address and natural key; site structure is nested in each `SiteEntry`.
    """

    directory: FsPath
    settings: Settings
    organization: OrganizationEntry
    sections: dict[str, dict[str, Entry]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    lock: Lock = field(default_factory=Lock)
    """The ids of ``docform.lock`` beside the manifests (`docform.manifest.lock`)."""
    api_location: str | None = None
    """Where ``docform: api`` is written (``main.yaml:2:8``), for messages about that URL."""
    policies: dict[str, PolicyEntry] = field(default_factory=dict)
    """``policies:`` by name, each rule checked (`docform.policies`)."""
    written: frozenset[str] = frozenset()
    """The sections the files write, those written empty (``linkInvites: {}``) included."""

    def section(self, name: str) -> dict[str, Entry]:
        """The entries of one top-level section (``"teams"``) by manifest name."""
        return self.sections.setdefault(name, {})

    def writes(self, name: str) -> bool:
        """Whether the files write section ``name``, if only as ``{}`` (no entries)."""
        return name in self.written or bool(self.sections.get(name))

    def section_as(self, name: str, model: type[E]) -> dict[str, E]:
        """The entries of section ``name``, each a ``model`` (its kind's entry model)."""
        entries: dict[str, E] = {}
        for key, entry in self.section(name).items():
            if not isinstance(entry, model):
                raise TypeError(f"{name}.{key} is a {type(entry).__name__}, not a {model.__name__}")
            entries[key] = entry
        return entries

    def entries(self) -> Iterator[BoundModel]:
        """The organization, then every entry of every section, nested ones after their parent."""
        yield self.organization
        for name in ENTRY_SECTIONS:
            for entry in self.section(name).values():
                yield entry
                yield from entry.children()

    def counts(self) -> dict[str, int]:
        """How many entries of each kind, by plural noun, zero counts left out."""
        counts = {"organization": 1}
        written_inside = nested_kinds()
        for name, section in ENTRY_SECTIONS.items():
            entries = self.section(name).values()
            counts[section.plural] = len(entries)
            nested = [type(child) for entry in entries for child in entry.children()]
            for kind in written_inside:
                if kind.entry in nested:
                    counts[kind.plural] = nested.count(kind.entry)
        return {noun: count for noun, count in counts.items() if count}

    def summary(self) -> str:
        """``1 organization, 3 members, 2 teams, ... in 4 files``."""
        parts = []
        for plural, count in self.counts().items():
            noun = plural if count != 1 else _singular(plural)
            parts.append(f"{count} {noun}")
        files = len(self.files)
        return f"{', '.join(parts)} in {files} file{'s' if files != 1 else ''}"


def _singular(plural: str) -> str:
    if plural.endswith("ies"):
        return plural.removesuffix("ies") + "y"  # glossary entries
    return plural if plural == "organization" else plural.removesuffix("s")
