"""The JSON Schema of the manifest format, generated from the models.

``schemas/docform.schema.json`` is this schema, committed; a test fails when it is stale.
Editors use it through a first line ``# yaml-language-server: $schema=<path or URL>``.
"""

from __future__ import annotations

import json
from typing import Any

from docform.manifest.document import ManifestDocument

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://docform.dev/schemas/docform.schema.json"


def manifest_schema() -> dict[str, Any]:
    """The JSON Schema of one manifest file."""
    schema = ManifestDocument.model_json_schema(mode="validation")
    _close_keyed_mappings(schema)
    return {"$schema": SCHEMA_DIALECT, "$id": SCHEMA_ID, **schema}


def _close_keyed_mappings(node: Any) -> None:
    # Entry names and emails have a pattern; a key not matching it is a mistake the editor
    # should flag, not an extra key to let through.
    if isinstance(node, dict):
        if "patternProperties" in node:
            node.setdefault("additionalProperties", False)
        for value in node.values():
            _close_keyed_mappings(value)
    elif isinstance(node, list):
        for value in node:
            _close_keyed_mappings(value)


def schema_text() -> str:
    """The schema as committed: indented JSON, keys in model order, newline at the end."""
    return json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n"
