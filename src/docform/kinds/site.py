"""Published sites (``sites:``) with their section groups, sections and site spaces.

A site is matched by its pinned ``id``, else by title. A site with sections holds its site
spaces in the sections; a site without sections lists them under ``spaces``.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from docform.kinds.base import Entry
from docform.kinds.fields import Level, Name, SiteType, SiteVisibility
from docform.kinds.site_section import SiteSectionEntry
from docform.kinds.site_section_group import SiteSectionGroupEntry
from docform.kinds.site_space import SiteSpaceEntry


class SiteEntry(Entry):
    """One site and its structure (order as written is the order on the site)."""

    kind = "site"
    key_label = "title"
    child_fields = frozenset({"sectionGroups", "sections", "spaces"})

    title: str | None = Field(None, min_length=2, max_length=128)
    type: SiteType | None = None
    visibility: SiteVisibility | None = None
    basename: str | None = Field(None, min_length=1, max_length=100)
    defaultLevel: Level | None = Field(None, description="A role, guest or inherit.")
    sectionGroups: dict[Name, SiteSectionGroupEntry] = Field(default_factory=dict)
    sections: dict[Name, SiteSectionEntry] = Field(default_factory=dict)
    spaces: dict[Name, SiteSpaceEntry] = Field(
        default_factory=dict, description="Site spaces of a site without sections."
    )

    @model_validator(mode="after")
    def _has_key(self) -> SiteEntry:
        if self.id is None and self.title is None:
            raise ValueError("a site needs an id or a title to be matched")
        return self

    def natural_key(self) -> tuple[str, str]:
        # NOTE: sites are usually created outside docform, so the pinned id comes first.
        return ("id", self.id) if self.id else ("title", self.title or "")

    def children(self) -> list[Entry]:
        """Section groups, then sections each followed by its site spaces, then root spaces."""
        nested: list[Entry] = [*self.sectionGroups.values()]
        for section in self.sections.values():
            nested.append(section)
            nested.extend(section.children())
        nested.extend(self.spaces.values())
        return nested
