"""The parts of shortening Markdown to a limit that a plan and a drift report share
(`docform.render.limit`): rows taken while they fit, the room left, the note that says the
whole is elsewhere, and changes counted by kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from docform.engine.plan import Change
from docform.render.markdown import code

RESERVE = 1_000
"""Kept free while rows are added, for the lines that count what was left out."""


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


def counted(changes: Sequence[Change]) -> str:
    """``3 member create, 1 team update``: changes counted by kind and action."""
    counts = Counter((c.kind, c.action) for c in changes)
    return ", ".join(f"{n} {kind} {action}" for (kind, action), n in sorted(counts.items()))
