"""Site spaces: a space published in a site, under a section (``sections.<s>.spaces``) or,
for a site without sections, directly under the site (``sites.<site>.spaces``)."""

from __future__ import annotations

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Name


class SiteSpaceEntry(Entry):
    """One site space; its scope is (site,) or (site, section)."""

    kind = "space"
    nullable_fields = frozenset({"condition"})
    key_is_unique = True
    key_label = "path"

    space: Name = Field(description="Manifest name of the space published here.")
    path: str = Field(min_length=1, max_length=100)
    condition: str | None = Field(None, min_length=1, max_length=1024)
    hidden: bool | None = Field(None, description="Hidden from the site navigation.")
    default: bool | None = Field(None, description="The default site space of its section.")

    @property
    def address(self) -> str:
        site, *section = self.scope
        inner = f".section.{section[0]}" if section else ""
        return f"site.{site}{inner}.space.{self.name}"

    @property
    def section(self) -> str | None:
        """Manifest name of the enclosing section, None at the site root."""
        return self.scope[1] if len(self.scope) > 1 else None

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: the path is the site space's URL within its section: unique there.
        return (self.section, self.path)
