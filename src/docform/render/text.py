"""The plan for a terminal: Terraform-like symbols, field changes and the calls, in colour."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from docform.engine.plan import Change, Plan
from docform.render.policies import policies_text
from docform.render.rails import rails_text
from docform.render.values import (
    NOT_PLANNED_HEAD,
    call_lines,
    change_symbol,
    field_lines,
    not_planned_lines,
    plan_summary_line,
    replacement_lines,
    takes_lines,
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
    for line in rails_text(plan.rails):
        out.append(line + "\n", "bold red" if plan.refused else "yellow")
    for line in policies_text(plan.policies):
        out.append(line + "\n", "yellow" if plan.policies.warnings else "dim")
    if plan.targeting is not None:
        out.append(plan.targeting.describe() + "\n\n", "bold yellow")
    for warning in plan.warnings:
        out.append(f"Warning: {warning}\n", "yellow")
    if plan.warnings:
        out.append("\n")
    if plan.not_planned:
        out.append(NOT_PLANNED_HEAD + "\n", "bold yellow")
        for line in not_planned_lines(plan):
            out.append(f"  {line}\n", "yellow")
        out.append("\n")
    if plan.changes:
        out.append(f"docform will make these changes in organization {plan.organization}:\n\n")
    for change in plan.changes:
        _change(out, change, show_calls)
    _audience(out, plan)
    if plan.unmanaged:
        out.append("Unmanaged (no manifest entry; left alone unless prune is on):\n", "dim")
        for item in plan.unmanaged:
            out.append(f"  {item.address_with_key}\n", "dim")
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
    out.append(plan_summary_line(plan) + "\n", "bold")
    if plan.refused:
        count = len(plan.rails.blocking)
        out.append(
            f"Apply will refuse this plan: it breaks {count} safety "
            f"rail{'s' if count != 1 else ''} (listed at the top).\n",
            "bold red",
        )
    out.append(f"Checksum: {plan.checksum()}\n", "dim")
    return out


def _audience(out: Text, plan: Plan) -> None:
    if not plan.audience:
        return
    out.append("Audience changes (who can reach what once this is applied):\n", "bold")
    for audience in plan.audience:
        out.append(f"  {audience.on}\n")
        for line in audience.lines:
            out.append(f"    {line.text()}\n", STYLES.get(line.sign, ""))
    out.append("\n")


def _change(out: Text, change: Change, show_calls: bool) -> None:
    symbol = change_symbol(change)
    style = STYLES[symbol]
    out.append(f"  {symbol} {change.address_with_key}", style)
    out.append(f"  ({change.action}", "dim")
    if change.live_id:
        out.append(f" {change.live_id}", "dim")
    out.append(")\n", "dim")
    for line in replacement_lines(change):
        out.append(f"      {line}\n", style)
    for line in takes_lines(change):
        out.append(f"      {line}\n", style)
    create = change.action == "create"
    for field in change.fields:
        mark, colour = ("+", "green") if create else ("~", "yellow")
        for n, line in enumerate(field_lines(field, create=create)):
            out.append(f"      {mark if n == 0 else ' '} {line}\n", colour)
    if show_calls:
        for call in change.calls:
            for line in call_lines(call):
                out.append(f"      {line}\n", "dim")
    out.append("\n")


def render_text(plan: Plan, *, color: bool = False, show_calls: bool = True) -> str:
    """The text plan as a string (ANSI colours only when ``color``)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=200, highlight=False
    )
    console.print(plan_text(plan, show_calls=show_calls), end="", soft_wrap=True)
    return buffer.getvalue()
