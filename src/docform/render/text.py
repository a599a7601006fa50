"""The plan for a terminal: Terraform-like symbols, field changes and the calls, in colour."""

from __future__ import annotations

import io

from docform.engine.plan import Change, Plan
from docform.render.policies import policies_text
from docform.render.rails import rails_text
from docform.render.rehearsal import rehearsal_details, rehearsal_line
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
from docform.untrusted.lookalikes import escape_controls, escape_for_terminal

STYLES = {
    "+": "green",
    "~": "yellow",
    "-": "bold red",
    ">": "cyan",
    "^": "magenta",
    "-/+": "bold red",
}


Pieces = list[tuple[str, str]]
"""Text and the style to show it in ("" for none), in order."""


def plan_text(plan: Plan, *, show_calls: bool = True) -> Pieces:
    out: Pieces = []
    for line in rails_text(plan.rails):
        _put(out, line + "\n", "bold red" if plan.refused else "yellow")
    for line in policies_text(plan.policies):
        _put(out, line + "\n", "yellow" if plan.policies.warnings else "dim")
    if plan.targeting is not None:
        _put(out, plan.targeting.describe() + "\n\n", "bold yellow")
    for warning in plan.warnings:
        _line(out, f"Warning: {warning}", "yellow")
    if plan.warnings:
        _put(out, "\n")
    if plan.not_planned:
        _put(out, NOT_PLANNED_HEAD + "\n", "bold yellow")
        for line in not_planned_lines(plan):
            _line(out, f"  {line}", "yellow")
        _put(out, "\n")
    if plan.changes:
        _put(out, f"docform will make these changes in organization {plan.organization}:\n\n")
    for change in plan.changes:
        _change(out, change, show_calls)
    _audience(out, plan)
    if plan.unmanaged:
        _put(out, "Unmanaged (no manifest entry; left alone unless prune is on):\n", "dim")
        for item in plan.unmanaged:
            _line(out, f"  {item.address_with_key}", "dim")
        _put(out, "\n")
    if plan.notes:
        _put(out, "Notes:\n", "bold")
        for note in plan.notes:
            _line(out, f"  {note}")
        _put(out, "\n")
    if plan.ignored:
        _put(out, f"Ignored ({len(plan.ignored)}, by `ignore:` in the settings):\n", "dim")
        for item in plan.ignored:
            _line(out, f"  {item.describe()}", "dim")
        _put(out, "\n")
    if plan.rehearsal is not None:
        style = "green" if plan.rehearsal.ok else "bold red"
        _line(out, rehearsal_line(plan.rehearsal), style)
        for line in rehearsal_details(plan.rehearsal):
            _line(out, line, style)
    _put(out, plan_summary_line(plan) + "\n", "bold")
    if plan.refused:
        count = len(plan.rails.blocking)
        _put(
            out,
            f"Apply will refuse this plan: it breaks {count} safety "
            f"rail{'s' if count != 1 else ''} (listed at the top).\n",
            "bold red",
        )
    _put(out, f"Checksum: {plan.checksum()}\n", "dim")
    return out


def _audience(out: Pieces, plan: Plan) -> None:
    if not plan.audience:
        return
    _put(out, "Audience changes (who can reach what once this is applied):\n", "bold")
    for audience in plan.audience:
        _line(out, f"  {audience.on}")
        for line in audience.lines:
            _line(out, f"    {line.text()}", STYLES.get(line.sign, ""))
    _put(out, "\n")


def _change(out: Pieces, change: Change, show_calls: bool) -> None:
    symbol = change_symbol(change)
    style = STYLES[symbol]
    _put(out, f"  {symbol} {change.address_with_key}", style)
    _put(out, f"  ({change.action}", "dim")
    if change.live_id:
        _put(out, f" {change.live_id}", "dim")
    _put(out, ")\n", "dim")
    for line in replacement_lines(change):
        _put(out, f"      {line}\n", style)
    for line in takes_lines(change):
        _put(out, f"      {line}\n", style)
    create = change.action == "create"
    for field in change.fields:
        mark, colour = ("+", "green") if create else ("~", "yellow")
        for n, line in enumerate(field_lines(field, create=create)):
            _put(out, f"      {mark if n == 0 else ' '} {line}\n", colour)
    if show_calls:
        for call in change.calls:
            for line in call_lines(call):
                _put(out, f"      {line}\n", "dim")
    _put(out, "\n")


def _line(out: Pieces, text: str, style: str = "") -> None:
    """One line of ``text`` that no line end inside it can split: a note or a title holding
    ``\\n`` is shown with it escaped, so it cannot forge a line such as "Plan: 0 to create"."""
    out.append((escape_controls(text) + "\n", style))


def _put(out: Pieces, text: str, style: str = "") -> None:
    """``text`` added to ``out``: a live title or a value that got this far with a control
    character in it is shown escaped, never let through to the terminal."""
    out.append((escape_for_terminal(text), style))


def render_text(plan: Plan, *, color: bool = False, show_calls: bool = True) -> str:
    """The text plan as a string (ANSI colours only when ``color``)."""
    pieces = plan_text(plan, show_calls=show_calls)
    if not color:
        # Every piece went in through `_put` or `_line`, which escape each control character
        # (a tab too), and nothing is wrapped: the pieces are the text as it is shown.
        return "".join(text for text, _ in pieces)
    # rich loads for colours only.
    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, no_color=False, width=200, highlight=False)
    console.print(Text().append_tokens(pieces), end="", soft_wrap=True)
    return buffer.getvalue()
