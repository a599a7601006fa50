"""The shape of a whole manifest: which section holds which kind, and the root model the JSON
Schema is generated from, both built from the sections the kinds declare
(`docform.kind_framework.declaration.Section`)."""

from __future__ import annotations

from types import GenericAlias
from typing import Any

from pydantic import ConfigDict, Field, create_model

from docform.kind_framework.declaration import Section, holds_entries
from docform.kind_registry import sections
from docform.manifest.settings import Settings
from docform.model.entry import BoundModel, Entry, ManifestModel
from docform.model.fields import Name
from docform.policies.model import PolicyEntry

EntrySection = Section[Entry]
"""A top-level section of named entries: ``teams:`` holds `TeamEntry` values by name."""

ENTRY_SECTIONS: dict[str, EntrySection] = {s.name: s for s in sections() if holds_entries(s)}
"""The sections of named entries, by section name, in plan order."""


class _ManifestRoot(ManifestModel):
    model_config = ConfigDict(title="docform manifest")
    # An empty section (``teams:`` with nothing under it) is allowed.
    nullable_fields = frozenset({"docform", "policies", *(s.name for s in sections())})


def _section_field(section: Section[BoundModel]) -> tuple[Any, Any]:
    if section.single:
        annotation: Any = section.entry
    else:
        # dict[key, value] of types known only here, at run time.
        annotation = GenericAlias(dict, (section.key, section.value or section.entry))
    return annotation | None, Field(None, description=section.description)


_FIELDS: dict[str, Any] = {
    "docform": (Settings | None, Field(None, description="Settings: api, prune, limits, ignore.")),
    **{section.name: _section_field(section) for section in sections()},
    "policies": (
        GenericAlias(dict, (Name, PolicyEntry)) | None,
        Field(None, description="The organization's own rules, checked in every plan."),
    ),
}
ManifestDocument: type[ManifestModel] = create_model(
    "ManifestDocument",
    __base__=_ManifestRoot,
    __doc__="One manifest file. A directory may hold many; each section may be split across them.",
    __module__=__name__,
    **_FIELDS,
)
