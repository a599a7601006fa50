"""Spaces (``spaces:``), optionally in a collection (by manifest name).

``visibility`` is read-only through the API (gaps.md), so it is not part of the format.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from docform.kinds.base import Entry
from docform.kinds.fields import Language, Level, Name, SpaceMergeRules


class SpaceEntry(Entry):
    """One space."""

    kind = "space"
    nullable_fields = frozenset({"emoji", "icon"})
    key_label = "collection and title"

    title: str = Field(min_length=1, max_length=50)
    emoji: str | None = Field(None, min_length=1, max_length=50)
    icon: str | None = Field(None, min_length=1, max_length=50, description="Instead of emoji.")
    collection: Name | None = Field(None, description="Manifest name of the collection.")
    language: Language | None = None
    editMode: Literal["live", "locked"] | None = None
    defaultLevel: Level | None = Field(None, description="A role, guest or inherit.")
    mergeRules: SpaceMergeRules | None = None

    @model_validator(mode="after")
    def _one_icon(self) -> SpaceEntry:
        if self.emoji is not None and self.icon is not None:
            raise ValueError("set either emoji or icon, not both")
        return self

    def natural_key(self) -> tuple[str | None, str]:
        # NOTE: like collections, a title is only meaningful within its collection.
        return (self.collection, self.title)
