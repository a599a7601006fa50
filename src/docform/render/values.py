"""How a planned value reads to a person, the same in every human-facing rendering."""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import Any

from docform.engine.plan import Call, Change, FieldChange, Placeholder, Plan
from docform.untrusted.lookalikes import escape_controls

SENSITIVE = "(sensitive)"
ACTION_SYMBOLS = {
    "create": "+",
    "update": "~",
    "membership": "~",
    "reorder": "~",
    "rotate": "~",
    "release": "~",
    "delete": "-",
    "move": ">",
    "restore": "^",
}


SAVED_MARKERS = {
    "$ref": "{}",
    "$placeholder": "(known after apply: {})",
    "$secret": SENSITIVE,
}
"""How plan JSON writes a reference, a placeholder and a secret, and how each reads."""

WIDTH = 100
"""A value or call longer than this (after its indentation) is shown over several lines."""


def show_value(value: Any, null_means: str | None = None) -> str:
    """The whole value on one line, unambiguous: strings quoted, references by address;
    ``null_means`` names what the API's null stands for (``guest``)."""
    if value is None:
        return null_means or "(none)"
    marked = _marked(value)
    return marked if marked is not None else _json(_plain(value))


def wrapped(head: str, value: Any, width: int = WIDTH) -> list[str]:
    """``head`` and ``value`` on one line when it fits in ``width``, else ``head`` then the
    value as indented JSON: every character shown, nothing cut."""
    shown = show_value(value)
    if len(head) + 1 + len(shown) <= width or not isinstance(value, dict | list):
        return [f"{head} {shown}".rstrip()]
    return [head, *_folded(_plain(value), "  ", width)]


def _folded(value: Any, indent: str, width: int, prefix: str = "", suffix: str = "") -> list[str]:
    """JSON over lines: a container that fits in ``width`` stays on one line, a larger one
    puts each item on a line of its own, one level deeper."""
    flat = _json(value)
    if len(indent) + len(prefix) + len(flat) + len(suffix) <= width or not value:
        return [f"{indent}{prefix}{flat}{suffix}"]
    if isinstance(value, dict):
        opening, closing = "{", "}"
        items = [(_json(str(k)) + ": ", v) for k, v in value.items()]
    elif isinstance(value, list):
        opening, closing, items = "[", "]", [("", v) for v in value]
    else:
        return [f"{indent}{prefix}{flat}{suffix}"]
    lines = [f"{indent}{prefix}{opening}"]
    for n, (key, item) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        lines += _folded(item, indent + "  ", width, key, comma)
    return [*lines, f"{indent}{closing}{suffix}"]


def call_lines(call: Call) -> list[str]:
    """One call, ``METHOD PATH BODY``, wrapped (`wrapped`)."""
    if call.body is None:
        return [f"{call.method} {call.path}"]
    return wrapped(f"{call.method} {call.path}", call.body)


def _json(value: Any) -> str:
    """``value`` as JSON on one line, every character readable: JSON escapes the ASCII
    controls, this the rest (a direction change, a line separator)."""
    return escape_controls(json.dumps(value, ensure_ascii=False))


def _marked(value: Any) -> str | None:
    """How a reference, a placeholder or a secret reads (by address, "known after apply",
    sensitive), whether planned now or read back from a saved plan (``{"$ref": ADDRESS}``);
    None for any other value."""
    if isinstance(value, Placeholder):
        return f"(known after apply: {value.ref})"
    if hasattr(value, "plan_json"):
        value = value.plan_json()
        if not isinstance(value, dict):
            return str(value)
    if isinstance(value, dict) and len(value) == 1:
        ((marker, inner),) = value.items()
        if marker in SAVED_MARKERS and isinstance(inner, str):
            return SAVED_MARKERS[marker].format(inner)
    return None


def _plain(value: Any) -> Any:
    """``value`` as JSON a person reads, references and the like as `_marked` reads them."""
    marked = _marked(value)
    if marked is not None:
        return marked
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


def plan_summary_line(plan: Plan) -> str:
    """The summary of one plan; a narrowed plan with no changes does not claim the whole
    organization matches."""
    if plan.targeting is not None and not plan.changes:
        return "No changes among the targeted addresses."
    if getattr(plan, "not_planned", None) and not plan.changes:
        return "No changes among what was planned (a partial plan: see 'Not planned')."
    return summary_line(plan.summary())


NOT_PLANNED_HEAD = (
    "Not planned: the token may not read these, so what they would change is unknown, or may "
    "not make these changes (apply refuses a partial plan; a token that may, an admin's, and "
    "a user's where the service takes no other kind, plans them):"
)


def not_planned_lines(plan: Plan) -> list[str]:
    """The kinds a partial plan left out, with why (none for a whole plan)."""
    return list(getattr(plan, "not_planned", {}).values())


def field_sides(field: FieldChange) -> tuple[str, str]:
    """A field change's live and wanted values as shown, secrets as ``(sensitive)``."""
    before = SENSITIVE if field.hides_before else show_value(field.before, field.null_means)
    after = SENSITIVE if field.sensitive else show_value(field.after, field.null_means)
    return before, after


def field_lines(field: FieldChange, *, create: bool) -> list[str]:
    """``path: before -> after`` (``path: after`` for a create), a long pair over three lines."""
    before, after = field_sides(field)
    one = f"{field.path}: {after}" if create else f"{field.path}: {before} -> {after}"
    if len(one) <= WIDTH:
        return [one]
    if create:
        return [f"{field.path}:", *_side("", field.after, after, field.sensitive)]
    hidden = field.sensitive or field.hides_before
    if not hidden and isinstance(field.before, str) and isinstance(field.after, str):
        return [f"{field.path}: (words changed)", *word_changes(field.before, field.after)]
    before_lines = _side("- ", field.before, before, field.hides_before)
    return [f"{field.path}:", *before_lines, *_side("+ ", field.after, after, field.sensitive)]


CONTEXT_WORDS = 3
"""How many unchanged words a line of a word diff shows on each side of a change."""


def word_changes(before: str, after: str) -> list[str]:
    """A long text's edit, word by word: each run of changed words on a line, as ``[-gone-]``
    and ``{+new+}`` between a few unchanged words, rather than both whole texts."""
    old, new = before.split(), after.split()
    lines = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lead = old[max(0, i1 - CONTEXT_WORDS) : i1]
        tail = old[i2 : i2 + CONTEXT_WORDS]
        parts = [("..." if i1 > CONTEXT_WORDS else ""), *lead]
        parts += [f"[-{' '.join(old[i1:i2])}-]"] if i2 > i1 else []
        parts += [f"{{+{' '.join(new[j1:j2])}+}}"] if j2 > j1 else []
        parts += [*tail, "..." if i2 + CONTEXT_WORDS < len(old) else ""]
        lines.append("  " + escape_controls(" ".join(p for p in parts if p)))
    return lines or ["  (only spacing)"]


def _side(mark: str, value: Any, shown: str, hidden: bool) -> list[str]:
    if hidden or not isinstance(value, dict | list):
        return [f"  {mark}{shown}"]
    return _folded(_plain(value), "  ", WIDTH, mark)


def change_symbol(change: Change) -> str:
    """``-/+`` for a change of a likely replacement, else its action's symbol."""
    return "-/+" if change.replacement else ACTION_SYMBOLS[change.action]


def replacement_lines(change: Change) -> list[str]:
    """What a change of a likely replacement (``-/+``) says under its address: the live object
    a create replaces and what keeps it, or the create that replaces a deleted object."""
    replacement = change.replacement
    if not replacement:
        return []
    if change.action == "create":
        return [f"replaces {replacement['id']}: {replacement['hint']}"]
    return [f"replaced by {replacement['create']}"]


def takes_lines(change: Change) -> list[str]:
    """What a delete takes with it, one object a line: ``takes site.help.space.~ss_1 (help):
    deleted with it`` (unmanaged objects marked so)."""
    lines = [f"loses {change.loses}"] if change.loses else []
    for taken in change.takes:
        key = taken.get("human_key")
        named = f"{taken['address']} ({key})" if key else taken["address"]
        unmanaged = "" if taken.get("managed") else ", unmanaged"
        lines.append(f"takes {named}{unmanaged}: {taken['fate']}")
    return lines
