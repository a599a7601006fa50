"""Site sections (``sites.<site>.sections``), keyed by path; they own their site spaces."""

from __future__ import annotations

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Name
from docform.kinds.site_space import SiteSpaceEntry


class SiteSectionEntry(Entry):
    """One section of a site; ``spaces`` are its site spaces in order."""

    kind = "section"
    nullable_fields = frozenset({"condition", "icon", "description"})
    key_is_unique = True
    key_label = "path"
    child_fields = frozenset({"spaces"})

    title: str | None = Field(None, min_length=2, max_length=128)
    path: str = Field(min_length=1, max_length=100)
    description: str | None = Field(None, max_length=256)
    condition: str | None = Field(None, min_length=1, max_length=1024)
    icon: str | None = Field(None, min_length=1, max_length=50)
    default: bool | None = Field(None, description="The default section of the site.")
    spaces: dict[Name, SiteSpaceEntry] = Field(default_factory=dict)

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.section.{self.name}"

    def natural_key(self) -> str:
        # NOTE: the path is the section's URL within the site: unique there.
        return self.path

    def children(self) -> list[Entry]:
        return list(self.spaces.values())
