"""`ManifestSet`: a validated manifest directory, as the planner consumes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path as FsPath

from docform.kinds.base import BoundModel, Entry
from docform.kinds.collection import CollectionEntry
from docform.kinds.member import MemberEntry
from docform.kinds.openapi import OpenApiEntry
from docform.kinds.organization import OrganizationEntry
from docform.kinds.saml import SamlEntry
from docform.kinds.site import SiteEntry
from docform.kinds.space import SpaceEntry
from docform.kinds.team import TeamEntry
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.lock import Lock
from docform.manifest.settings import Settings

_NESTED_NOUNS = (
    ("sectionGroup", "section groups"),
    ("section", "sections"),
    ("space", "site spaces"),
    ("redirect", "redirects"),
)


@dataclass
class ManifestSet:
    """Settings, the organization and, per section, entries by manifest name in manifest order
    (files sorted by path, then document order). Every entry knows its name, path, location,
    address and natural key; site structure is nested in each `SiteEntry`."""

    directory: FsPath
    settings: Settings
    organization: OrganizationEntry
    members: dict[str, MemberEntry] = field(default_factory=dict)
    teams: dict[str, TeamEntry] = field(default_factory=dict)
    collections: dict[str, CollectionEntry] = field(default_factory=dict)
    spaces: dict[str, SpaceEntry] = field(default_factory=dict)
    sites: dict[str, SiteEntry] = field(default_factory=dict)
    openapi: dict[str, OpenApiEntry] = field(default_factory=dict)
    saml: dict[str, SamlEntry] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    lock: Lock = field(default_factory=Lock)
    """The ids of ``docform.lock`` beside the manifests (`docform.manifest.lock`)."""
    api_location: str | None = None
    """Where ``docform: api`` is written (``main.yaml:2:8``), for messages about that URL."""

    def section(self, name: str) -> dict[str, Entry]:
        """The entries of one top-level section (``"teams"``) by manifest name."""
        return getattr(self, name)

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
        for name, section in ENTRY_SECTIONS.items():
            counts[section.plural] = len(self.section(name))
            if name == "sites":
                nested = [child.kind for site in self.sites.values() for child in site.children()]
                for kind, plural in _NESTED_NOUNS:
                    counts[plural] = nested.count(kind)
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
    return plural if plural == "organization" else plural.removesuffix("s")
