"""The manifest format: loading a directory with file:line locations, validation, JSON Schema.

The planner uses `load_manifest_set` and the `ManifestSet` it returns; every problem found is
a `Problem` carried by one `ManifestError`.
"""

from docform.manifest.document import ENTRY_SECTIONS, EntrySection, ManifestDocument
from docform.manifest.loader import load_manifest_set
from docform.manifest.manifest_set import ManifestSet
from docform.manifest.problems import ManifestError, Problem
from docform.manifest.schema import manifest_schema, schema_text
from docform.manifest.settings import LimitSettings, PruneSettings, Settings
from docform.manifest.values import UnresolvedReference, resolve_secret
from docform.model.entry import Entry, Location
from docform.model.fields import Secret, role_value

__all__ = [
    "ENTRY_SECTIONS",
    "Entry",
    "EntrySection",
    "LimitSettings",
    "Location",
    "ManifestDocument",
    "ManifestError",
    "ManifestSet",
    "Problem",
    "PruneSettings",
    "Secret",
    "Settings",
    "UnresolvedReference",
    "load_manifest_set",
    "manifest_schema",
    "resolve_secret",
    "role_value",
    "schema_text",
]
