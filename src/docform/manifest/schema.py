"""The JSON Schema of the manifest format, generated from the models.

``schemas/docform.schema.json`` is this schema, committed; a test fails when it is stale.
Editors use it through a first line ``# yaml-language-server: $schema=<path or URL>``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from docform.errors import DocformError
from docform.manifest.document import ManifestDocument

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://docform.dev/schemas/docform.schema.json"
SCHEMA_FILE = "docform.schema.json"


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


@cache
def schema_text() -> str:
    """The schema as committed: indented JSON, keys in model order, newline at the end. Made
    once per process: export writes it into every manifest directory it exports, and the
    models it is generated from do not change while docform runs."""
    return json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n"


def write_schema(target: Path) -> Path:
    """Write the schema to ``target``, or into it as `SCHEMA_FILE` when it is a directory or
    a name without an extension (``schemas``); returns the file written. Missing directories
    are created."""
    path = target / SCHEMA_FILE if target.is_dir() or not target.suffix else target
    blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise DocformError(
            f"cannot write the schema to {path}: {blocking} is a file, not a directory; choose "
            "another --write path"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(schema_text(), encoding="utf-8")
    except OSError as exc:
        raise DocformError(
            f"cannot write the schema to {path}: {exc.strerror}; choose a writable --write path"
        ) from None
    return path
