"""Collections (``collections:``), nested through ``parent`` (a collection's manifest name)."""

from __future__ import annotations

from pydantic import Field

from docform.kinds.base import Entry
from docform.kinds.fields import Level, Name


class CollectionEntry(Entry):
    """One collection."""

    kind = "collection"
    key_label = "parent and title"

    title: str = Field(min_length=1, max_length=50)
    description: str | None = Field(None, max_length=100)
    parent: Name | None = Field(None, description="Manifest name of the parent collection.")
    defaultLevel: Level | None = Field(None, description="A role, guest or inherit.")

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: titles repeat across a tree ("Guides" in two products), never under one parent.
        return (self.parent, self.title)
