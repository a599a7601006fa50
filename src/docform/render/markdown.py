"""The plan as a pull-request comment: summary first, deletions first and marked, details folded.

Everything user-controlled goes through `_code` or `_escape`, so a title cannot break out of
the table or inject HTML into GitHub's renderer.
"""

from __future__ import annotations

import html

from docform.engine.plan import Change, Plan
from docform.render.values import ACTION_SYMBOLS, SENSITIVE, show_body, show_value, summary_line

HEADING = "### docform plan"


def render_markdown(plan: Plan, diagram: str | None = None) -> str:
    """The comment; ``diagram`` (from `docform.render.mermaid.diagram_details`) is appended."""
    lines = [HEADING, "", f"**{summary_line(plan.summary())}**", ""]
    lines.append(f"Organization `{_escape(plan.organization)}` · checksum `{plan.checksum()}`")
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
            lines.append(f"- {item.kind} `{_code(item.id)}` {_escape(show_value(item.title))}")
        lines += ["", "</details>", ""]
    if plan.ignored:
        lines.append(f"<details><summary>{len(plan.ignored)} ignored (settings)</summary>")
        lines.append("")
        lines += [f"- {_escape(item.describe())}" for item in plan.ignored]
        lines += ["", "</details>", ""]
    if diagram:
        lines += [diagram, ""]
    return "\n".join(lines)


def _row(change: Change) -> str:
    title = (change.before or {}).get("title") or (change.before or {}).get("email") or ""
    named = f" ({_escape(show_value(title))})" if title else ""
    return f"- :wastebasket: **delete** `{_code(change.address)}`{named}"


def _table_row(change: Change) -> str:
    symbol = ACTION_SYMBOLS[change.action]
    return f"| `{symbol}` | `{_code(change.address)}` | {change.action} |"


def _details(change: Change) -> list[str]:
    symbol = "-" if change.action == "delete" else ("+" if change.action == "create" else "!")
    lines = [_fence_safe(f"{symbol} {change.address} ({change.action})")]
    for field in change.fields:
        before = SENSITIVE if field.hides_before else show_value(field.before)
        after = SENSITIVE if field.sensitive else show_value(field.after)
        lines.append(_fence_safe(f"    {field.path}: {before} -> {after}"))
    for call in change.calls:
        lines.append(_fence_safe(f"    {call.method} {call.path} {show_body(call.body)}".rstrip()))
    return lines


def _code(text: str) -> str:
    return str(text).replace("`", "'").replace("|", "\\|")


def _escape(text: str) -> str:
    return html.escape(str(text)).replace("|", "\\|").replace("`", "'")


def _fence_safe(text: str) -> str:
    """Inside a code fence only a line of backticks could end it early."""
    return text.replace("```", "'''")
