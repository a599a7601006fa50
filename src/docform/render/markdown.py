"""The plan as a pull-request comment: summary first, deletions first and marked, details folded.

Everything user-controlled goes through `code` or `escape`, so a title cannot break out of
the table or inject HTML into GitHub's renderer.
"""

from __future__ import annotations

import html

from docform.engine.plan import Change, Plan
from docform.render.values import (
    ACTION_SYMBOLS,
    field_sides,
    show_body,
    show_value,
    summary_line,
)

HEADING = "### docform plan"


def render_markdown(plan: Plan, diagram: str | None = None) -> str:
    """The comment; ``diagram`` (from `docform.render.mermaid.diagram_details`) is appended."""
    lines = [HEADING, "", f"**{summary_line(plan.summary())}**", ""]
    lines.append(f"Organization `{escape(plan.organization)}` · checksum `{plan.checksum()}`")
    lines.append("")
    deletes = [c for c in plan.changes if c.action == "delete"]
    if deletes:
        lines += [f"> [!CAUTION]\n> **{len(deletes)} to delete**", ""]
        lines += [_row(c) for c in deletes]
        lines.append("")
    others = [c for c in plan.changes if c.action != "delete"]
    if others:
        lines += ["| | address | action |", "|---|---|---|"]
        lines += [_table_row(c) for c in others]
        lines.append("")
    if plan.changes:
        lines += ["<details><summary>Details: fields and API calls</summary>", "", "```diff"]
        for change in plan.changes:
            lines += _details(change)
        lines += ["```", "", "</details>", ""]
    if plan.unmanaged:
        lines.append(f"<details><summary>{len(plan.unmanaged)} unmanaged</summary>")
        lines.append("")
        for item in plan.unmanaged:
            lines.append(f"- {item.kind} `{code(item.id)}` {escape(show_value(item.title))}")
        lines += ["", "</details>", ""]
    if plan.notes:
        lines += [f"> [!NOTE]\n> {escape(note)}\n" for note in plan.notes]
    lines += ignored_details(plan)
    if diagram:
        lines += [diagram, ""]
    return "\n".join(lines)


def _row(change: Change) -> str:
    title = (change.before or {}).get("title") or (change.before or {}).get("email") or ""
    named = f" ({escape(show_value(title))})" if title else ""
    replaced = change.replacement
    by = f", **replaced** by `{code(replaced['create'])}`" if replaced else ""
    return f"- :wastebasket: **delete** `{code(change.address)}`{named}{by}"


def _table_row(change: Change) -> str:
    if change.replacement:
        replaced = code(change.replacement["id"])
        return f"| `-/+` | `{code(change.address)}` | {change.action}, **replaces** `{replaced}` |"
    symbol = ACTION_SYMBOLS[change.action]
    return f"| `{symbol}` | `{code(change.address)}` | {change.action} |"


def _details(change: Change) -> list[str]:
    symbol = "-" if change.action == "delete" else ("+" if change.action == "create" else "!")
    lines = [fence_safe(f"{symbol} {change.address} ({change.action})")]
    for field in change.fields:
        before, after = field_sides(field)
        lines.append(fence_safe(f"    {field.path}: {before} -> {after}"))
    for call in change.calls:
        lines.append(fence_safe(f"    {call.method} {call.path} {show_body(call.body)}".rstrip()))
    return lines


def ignored_details(plan: Plan) -> list[str]:
    """What ``ignore:`` left out, folded (no lines when nothing was)."""
    if not plan.ignored:
        return []
    items = [f"- {escape(item.describe())}" for item in plan.ignored]
    summary = f"<details><summary>{len(plan.ignored)} ignored (settings)</summary>"
    return [summary, "", *items, "", "</details>", ""]


def code(text: str) -> str:
    return str(text).replace("`", "'").replace("|", "\\|")


def escape(text: str) -> str:
    return html.escape(str(text)).replace("|", "\\|").replace("`", "'")


def fence_safe(text: str) -> str:
    """Inside a code fence only a line of backticks could end it early."""
    return text.replace("```", "'''")
