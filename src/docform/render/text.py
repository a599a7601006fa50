"""The plan for a terminal: Terraform-like symbols, field changes and the calls, in colour."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from docform.engine.plan import Change, Plan
from docform.render.values import (
    ACTION_SYMBOLS,
    field_sides,
    show_body,
    show_value,
    summary_line,
)

STYLES = {
    "+": "green",
    "~": "yellow",
    "-": "bold red",
    ">": "cyan",
    "^": "magenta",
    "-/+": "bold red",
}


def plan_text(plan: Plan, *, show_calls: bool = True) -> Text:
    out = Text()
    if plan.changes:
        out.append(f"docform will make these changes in organization {plan.organization}:\n\n")
    for change in plan.changes:
        _change(out, change, show_calls)
    if plan.unmanaged:
        out.append("Unmanaged (no manifest entry; left alone unless prune is on):\n", "dim")
        for item in plan.unmanaged:
            out.append(f"  {item.kind} {item.id} {show_value(item.title)}\n", "dim")
        out.append("\n")
    if plan.notes:
        out.append("Notes:\n", "bold")
        for note in plan.notes:
            out.append(f"  {note}\n")
        out.append("\n")
    if plan.ignored:
        out.append(f"Ignored ({len(plan.ignored)}, by `ignore:` in the settings):\n", "dim")
        for item in plan.ignored:
            out.append(f"  {item.describe()}\n", "dim")
        out.append("\n")
    out.append(summary_line(plan.summary()) + "\n", "bold")
    out.append(f"Checksum: {plan.checksum()}\n", "dim")
    return out


def _change(out: Text, change: Change, show_calls: bool) -> None:
    replacement = change.replacement
    symbol = "-/+" if replacement else ACTION_SYMBOLS[change.action]
    style = STYLES[symbol]
    out.append(f"  {symbol} {change.address}", style)
    out.append(f"  ({change.action}", "dim")
    if change.live_id:
        out.append(f" {change.live_id}", "dim")
    out.append(")\n", "dim")
    if replacement and change.action == "create":
        out.append(f"      replaces {replacement['id']}: {replacement['hint']}\n", style)
    elif replacement:
        out.append(f"      replaced by {replacement['create']}\n", style)
    if change.action == "delete" and change.before:
        title = change.before.get("title") or change.before.get("email") or ""
        if title:
            out.append(f"      {show_value(title)} will be deleted\n", style)
    for field in change.fields:
        before, after = field_sides(field)
        if change.action == "create":
            out.append(f"      + {field.path}: {after}\n", "green")
        else:
            out.append(f"      ~ {field.path}: {before} -> {after}\n", "yellow")
    if show_calls:
        for call in change.calls:
            body = show_body(call.body)
            out.append(f"      {call.method} {call.path}{' ' + body if body else ''}\n", "dim")
    out.append("\n")


def render_text(plan: Plan, *, color: bool = False, show_calls: bool = True) -> str:
    """The text plan as a string (ANSI colours only when ``color``)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=200, highlight=False
    )
    console.print(plan_text(plan, show_calls=show_calls), end="", soft_wrap=True)
    return buffer.getvalue()
