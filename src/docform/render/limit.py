"""Markdown that fits where it is posted: a pull-request comment or an issue body (GitHub takes
at most 65,536 characters).

A Markdown plan or drift report longer than the limit is rebuilt shorter, never cut: it keeps
its head (summary, checksum, safety rails, targeting), every deletion, and as many other rows
as fit; the rest is counted by kind, and a note names the file that holds the whole of it
(``--markdown-out``). Built from whole blocks, it stays valid Markdown: no fence or
``<details>`` is left open.
"""

from __future__ import annotations

from collections.abc import Sequence

from docform.engine.plan import Plan
from docform.render.drift import Shortening, render_drift_markdown
from docform.render.markdown import (
    TABLE_HEAD,
    audience_lines,
    deletion_row,
    head_lines,
    note_lines,
    render_markdown,
    table_row,
)
from docform.render.post_size import DEFAULT_LIMIT
from docform.render.sets import render_sets_markdown
from docform.render.shortening import (
    RESERVE,
    counted,
    room,
    take_rows,
    too_long_note,
)
from docform.workflow.drift import DriftReport
from docform.workflow.sets import SetOutcome


def fit_plan_markdown(
    plan: Plan,
    diagram: str | None = None,
    *,
    show_calls: bool = True,
    limit: int = DEFAULT_LIMIT,
    full_file: str | None = None,
) -> str:
    """The plan's Markdown, or a shorter form of it when the whole is over ``limit``."""
    full = render_markdown(plan, diagram=diagram, show_calls=show_calls)
    if len(full) <= limit:
        return full
    return short_plan_markdown(plan, whole=len(full), limit=limit, full_file=full_file)


def fit_sets_markdown(
    outcomes: Sequence[SetOutcome],
    *,
    show_calls: bool = True,
    limit: int = DEFAULT_LIMIT,
    full_file: str | None = None,
) -> str:
    """The Markdown of several organizations' plans, each part shortened to its share of
    ``limit`` when the whole is over it."""
    full = render_sets_markdown(outcomes, show_calls=show_calls)
    if len(full) <= limit:
        return full
    share = (limit - RESERVE) // max(1, len(outcomes)) - RESERVE

    def short(plan: Plan) -> str:
        return fit_plan_markdown(plan, show_calls=show_calls, limit=share, full_file=full_file)

    return render_sets_markdown(outcomes, plan_markdown=short)


def fit_drift_markdown(
    report: DriftReport, *, limit: int = DEFAULT_LIMIT, full_file: str | None = None
) -> str:
    """The drift report's Markdown; over ``limit``, first without the fixing plans, then with
    each organization's rows cut to its share (deletions and rails always listed)."""
    full = render_drift_markdown(report)
    if len(full) <= limit:
        return full
    note = too_long_note(len(full), limit, full_file, "report")
    without_plans = render_drift_markdown(report, short=Shortening(note))
    if len(without_plans) <= limit:
        return without_plans
    share = (limit - RESERVE) // max(1, len(report.orgs)) - 2 * RESERVE
    return render_drift_markdown(report, short=Shortening(note, rows=share))


def short_plan_markdown(plan: Plan, *, whole: int, limit: int, full_file: str | None) -> str:
    """The head, a note, every deletion and every likely replacement (as many as fit in
    ``limit``, if even they do not), and as many notes and other changes as fit; the others
    counted."""
    lines = _head(plan, limit) + too_long_note(whole, limit, full_file)
    deletes = [c for c in plan.changes if c.action == "delete"]
    if deletes:
        rows, rest = take_rows([deletion_row(c) for c in deletes], room(lines, limit))
        lines += [f"> [!CAUTION]\n> **{len(deletes)} to delete**", "", *rows]
        if rest:
            lines.append(f"- ...and {len(rest)} more deletions: see the whole plan")
        lines.append("")
    lines += _audience(plan, room(lines, limit) // 3)
    # A replacement is a deletion in effect (its live object goes, or is left unmanaged):
    # its row comes first, as the deletions do, and then the notes that explain it.
    replacing = [c for c in plan.changes if c.action != "delete" and c.replacement]
    others = [c for c in plan.changes if c.action != "delete" and not c.replacement]
    first, _ = take_rows([table_row(c) for c in replacing], room(lines, limit))
    left_out = replacing[len(first) :]
    notes = _notes(plan.notes, room([*lines, *first], limit) // 2)
    rows, _ = take_rows([table_row(c) for c in others], room([*lines, *first, *notes], limit))
    left_out += others[len(rows) :]
    if first or rows:
        lines += [*TABLE_HEAD, *first, *rows, ""]
    if left_out:
        lines.append(
            f"...and {len(left_out)} more changes ({counted(left_out)}): see the whole plan."
        )
        lines.append("")
    return "\n".join([*lines, *notes])


def _audience(plan: Plan, budget: int) -> list[str]:
    """The audience changes whole when they fit in ``budget``, else how many objects they
    touch (a fenced block is never cut)."""
    lines = audience_lines(plan)
    if not lines or len("\n".join(lines)) <= budget:
        return lines
    count = len(plan.audience)
    return [f"**Audience changes** on {count} objects: see the whole plan.", ""]


def _notes(notes: Sequence[str], budget: int) -> list[str]:
    """As many of the plan's notes as fit in ``budget``; the rest counted."""
    shown, rest = take_rows(note_lines(notes), budget - 100)
    if rest:
        shown.append(f"...and {len(rest)} more notes: see the whole plan.\n")
    return shown


def _head(plan: Plan, limit: int) -> list[str]:
    """The head with every rail; with fewer when that alone would take half the limit."""
    lines = head_lines(plan)
    most = 100
    while len("\n".join(lines)) > limit // 2 and most:
        lines, most = head_lines(plan, most_rails=most), most // 2
    return lines
