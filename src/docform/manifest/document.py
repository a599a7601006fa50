"""The shape of a whole manifest: which section holds which kind, and the root model the JSON
Schema is generated from, both built from the sections the kinds declare
(`docform.kind_framework.declaration.Section`)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, create_model

from docform.kind_framework.declaration import Section
from docform.kind_registry import sections
from docform.manifest.settings import Settings
from docform.model.entry import ManifestModel
from docform.model.fields import Name
from docform.policies.model import PolicyEntry

EntrySection = Section
"""A top-level section of named entries: ``teams:`` holds `TeamEntry` values by name."""

ENTRY_SECTIONS: dict[str, Section] = {s.name: s for s in sections() if not s.single}
"""The sections of named entries, by section name, in plan order."""


class _ManifestRoot(ManifestModel):
    model_config = ConfigDict(title="docform manifest")
    # An empty section (``teams:`` with nothing under it) is allowed.
    nullable_fields = frozenset({"docform", "policies", *(s.name for s in sections())})


def _section_field(section: Section) -> tuple[Any, Any]:
    if section.single:
        annotation: Any = section.entry
    else:
        annotation = dict[section.key, section.value or section.entry]  # type: ignore[name-defined]
    return annotation | None, Field(None, description=section.description)


ManifestDocument: type[ManifestModel] = create_model(
    "ManifestDocument",
    __base__=_ManifestRoot,
    __doc__="One manifest file. A directory may hold many; each section may be split across them.",
    __module__=__name__,
    docform=(Settings | None, Field(None, description="Settings: api, prune, limits, ignore.")),
    **{section.name: _section_field(section) for section in sections()},
    policies=(
        dict[Name, PolicyEntry] | None,  # type: ignore[valid-type]
        Field(None, description="The organization's own rules, checked in every plan."),
    ),
)
