"""Site section groups (``sites.<site>.sectionGroups``): titled groups of the site's sections."""

from __future__ import annotations

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Name


class SiteSectionGroupEntry(Entry):
    """One section group; ``sections`` names sections of the same site, in order."""

    kind = "sectionGroup"
    nullable_fields = frozenset({"icon"})
    key_label = "title"

    title: str = Field(min_length=1, max_length=100)
    icon: str | None = Field(None, min_length=1, max_length=50)
    sections: list[Name] | None = Field(None, description="Manifest names of sections.")

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.sectionGroup.{self.name}"

    def natural_key(self) -> str:
        # NOTE: groups have no path; the title is all a person sees (pin ids if two match).
        return self.title
