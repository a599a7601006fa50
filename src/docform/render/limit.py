"""Markdown that fits where it is posted: a pull-request comment or an issue body (GitHub takes
at most 65,536 characters).

A Markdown plan or drift report longer than the limit is rebuilt shorter, never cut: it keeps
its head (summary, checksum, safety rails, targeting), every deletion, and as many other rows
as fit; the rest is counted by kind, and a note names the file that holds the whole of it
(``--markdown-out``). Built from whole blocks, it stays valid Markdown: no fence or
``<details>`` is left open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from docform.render.markdown import (
    TABLE_HEAD,
    audience_lines,
    code,
    deletion_row,
    head_lines,
    note_lines,
    render_markdown,
    table_row,
)

GITHUB_LIMIT = 65_536
DEFAULT_LIMIT = 64_000
"""GitHub's limit less room for what a workflow adds around the text (a marker, a footer)."""
RESERVE = 1_000
"""Kept free while rows are added, for the lines that count what was left out."""


def fit_plan_markdown(
    plan: Any,
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
    outcomes: Sequence[Any],
    *,
    show_calls: bool = True,
    limit: int = DEFAULT_LIMIT,
    full_file: str | None = None,
) -> str:
    """The Markdown of several organizations' plans, each part shortened to its share of
    ``limit`` when the whole is over it."""
    from docform.render.sets import render_sets_markdown

    full = render_sets_markdown(outcomes, show_calls=show_calls)
    if len(full) <= limit:
        return full
    share = (limit - RESERVE) // max(1, len(outcomes)) - RESERVE

    def short(plan: Any) -> str:
        return fit_plan_markdown(plan, show_calls=show_calls, limit=share, full_file=full_file)

    return render_sets_markdown(outcomes, plan_markdown=short)


def fit_drift_markdown(
    report: Any, *, limit: int = DEFAULT_LIMIT, full_file: str | None = None
) -> str:
    """The drift report's Markdown; over ``limit``, first without the fixing plans, then with
    each organization's rows cut to its share (deletions and rails always listed)."""
    from docform.render.drift import Shortening, render_drift_markdown

    full = render_drift_markdown(report)
    if len(full) <= limit:
        return full
    note = too_long_note(len(full), limit, full_file, "report")
    without_plans = render_drift_markdown(report, short=Shortening(note))
    if len(without_plans) <= limit:
        return without_plans
    share = (limit - RESERVE) // max(1, len(report.orgs)) - 2 * RESERVE
    return render_drift_markdown(report, short=Shortening(note, rows=share))


def short_plan_markdown(plan: Any, *, whole: int, limit: int, full_file: str | None) -> str:
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


def _audience(plan: Any, budget: int) -> list[str]:
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


def _head(plan: Any, limit: int) -> list[str]:
    """The head with every rail; with fewer when that alone would take half the limit."""
    lines = head_lines(plan)
    most = 100
    while len("\n".join(lines)) > limit // 2 and most:
        lines, most = head_lines(plan, most_rails=most), most // 2
    return lines


def too_long_note(whole: int, limit: int, full_file: str | None, what: str = "plan") -> list[str]:
    where = (
        f"The whole {what} is in `{code(full_file)}`."
        if full_file
        else "Write the whole of it with `--markdown-out FILE`."
    )
    return [
        "> [!NOTE]",
        f"> **Too long to post whole** ({whole:,} characters, over {limit:,}): every "
        f"deletion and safety rail is below, the rest is summarised. {where}",
        "",
    ]


def take_rows(rows: Sequence[str], budget: int) -> tuple[list[str], list[str]]:
    """The first ``rows`` that fit in ``budget`` characters (one newline each), and the rest."""
    used = 0
    for index, row in enumerate(rows):
        used += len(row) + 1
        if used > budget:
            return list(rows[:index]), list(rows[index:])
    return list(rows), []


def room(lines: Sequence[str], limit: int) -> int:
    """Characters still free under ``limit`` after ``lines``, less the `RESERVE`."""
    return limit - len("\n".join(lines)) - RESERVE


def counted(changes: Sequence[Any]) -> str:
    """``3 member create, 1 team update``: changes counted by kind and action."""
    counts = Counter((c.kind, c.action) for c in changes)
    return ", ".join(f"{n} {kind} {action}" for (kind, action), n in sorted(counts.items()))
