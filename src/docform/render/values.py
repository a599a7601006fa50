"""How a planned value reads to a person, the same in every human-facing rendering."""

from __future__ import annotations

import json
from typing import Any

from docform.engine.plan import Placeholder

SENSITIVE = "(sensitive)"
ACTION_SYMBOLS = {
    "create": "+",
    "update": "~",
    "membership": "~",
    "reorder": "~",
    "delete": "-",
    "move": ">",
    "restore": "^",
}


def show_value(value: Any, limit: int = 80) -> str:
    """A short, unambiguous one-line form: strings quoted, references by address."""
    if value is None:
        return "(none)"
    if isinstance(value, Placeholder):
        return f"(known after apply: {value.ref})"
    if hasattr(value, "plan_json"):
        shown = value.plan_json()
        return shown.get("$ref", SENSITIVE) if isinstance(shown, dict) else str(shown)
    text = json.dumps(_plain(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_body(body: Any, limit: int = 100) -> str:
    if body is None:
        return ""
    return show_value(body, limit)


def _plain(value: Any) -> Any:
    if isinstance(value, Placeholder):
        return f"(known after apply: {value.ref})"
    if hasattr(value, "plan_json"):
        shown = value.plan_json()
        return shown.get("$ref", SENSITIVE) if isinstance(shown, dict) else shown
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def summary_line(summary: dict[str, int]) -> str:
    if not any(summary.values()):
        return "No changes. The live organization matches the manifests."
    parts = [
        f"{summary['create']} to create",
        f"{summary['update']} to update",
        f"{summary['delete']} to delete",
        f"{summary['move']} to move",
    ]
    if summary.get("restore"):
        parts.append(f"{summary['restore']} to restore")
    return "Plan: " + ", ".join(parts) + "."


def field_sides(field: Any) -> tuple[str, str]:
    """A field change's live and wanted values as shown, secrets as ``(sensitive)``."""
    before = SENSITIVE if field.hides_before else show_value(field.before)
    after = SENSITIVE if field.sensitive else show_value(field.after)
    return before, after
