"""The plan as a pull-request comment: summary first, deletions first and marked, details folded.

Everything user-controlled goes through `code` or `escape`, so a title cannot break out of
the table or inject HTML into GitHub's renderer.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from docform.engine.plan import Change, Plan
from docform.render.policies import policies_markdown
from docform.render.rails import rails_markdown
from docform.render.rehearsal import rehearsal_line
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
from docform.untrusted.lookalikes import escape_controls

HEADING = "### docform plan"


def render_markdown(plan: Plan, diagram: str | None = None, *, show_calls: bool = True) -> str:
    """The comment; ``diagram`` (from `docform.render.mermaid.diagram_details`) is appended.
    Without ``show_calls`` the details hold the fields only."""
    lines = head_lines(plan) + deletion_lines(plan.changes)
    others = [c for c in plan.changes if c.action != "delete"]
    if others:
        lines += [*TABLE_HEAD, *(table_row(c) for c in others), ""]
    if plan.changes:
        what = "fields and API calls" if show_calls else "fields"
        lines += [f"<details><summary>Details: {what}</summary>", "", "```diff"]
        for change in plan.changes:
            lines += _details(change, show_calls)
        lines += ["```", "", "</details>", ""]
    lines += audience_lines(plan)
    lines += unmanaged_details(plan)
    lines += note_lines(plan.notes)
    lines += ignored_details(plan)
    if diagram:
        lines += [diagram, ""]
    return "\n".join(lines)


TABLE_HEAD = ["| | address | action |", "|---|---|---|"]


def head_lines(plan: Plan, *, most_rails: int | None = None) -> list[str]:
    """What the comment opens with, whatever its length: the summary, the organization and
    checksum, the safety rails (at most ``most_rails`` of each kind) and the targeting."""
    lines = [HEADING, "", f"**{plan_summary_line(plan)}**", ""]
    planned = f" · commit `{escape(plan.commit)}`" if plan.commit else ""
    lines.append(
        f"Organization `{escape(plan.organization)}` · checksum `{plan.checksum()}`{planned}"
    )
    lines.append("")
    if plan.rehearsal is not None:
        lines += [escape(rehearsal_line(plan.rehearsal)), ""]
    lines += rails_markdown(plan.rails, escape, most=most_rails)
    lines += policies_markdown(plan.policies, escape)
    if plan.targeting is not None:
        lines += ["> [!WARNING]", f"> {escape(plan.targeting.describe())}", ""]
    if plan.warnings:
        lines += ["> [!WARNING]", *(f"> - {escape(w)}" for w in plan.warnings), ""]
    if plan.not_planned:
        lines += ["> [!WARNING]", f"> **{escape(NOT_PLANNED_HEAD)}**"]
        lines += [*(f"> - {escape(line)}" for line in not_planned_lines(plan)), ""]
    return lines


def deletion_lines(changes: list[Change]) -> list[str]:
    """Every deletion, marked (no lines when there is none)."""
    deletes = [c for c in changes if c.action == "delete"]
    if not deletes:
        return []
    return [f"> [!CAUTION]\n> **{len(deletes)} to delete**", "", *map(deletion_row, deletes), ""]


def deletion_row(change: Change) -> str:
    replaced = change.replacement
    by = f", **replaced** by `{code(replaced['create'])}`" if replaced else ""
    row = f"- :wastebasket: **delete** {_address(change)}{by}"
    return "\n".join([row, *(f"  - {escape(line)}" for line in takes_lines(change))])


def table_row(change: Change) -> str:
    action = change.action
    if change.replacement:
        action += f", **replaces** `{code(change.replacement['id'])}`"
    return f"| `{change_symbol(change)}` | {_address(change)} | {action} |"


def note_lines(notes: Sequence[str]) -> list[str]:
    """Each note of the plan as a GitHub note block (no lines when there is none)."""
    return [f"> [!NOTE]\n> {escape(note)}\n" for note in notes]


def _address(change: Change) -> str:
    """`` `member.~u_bob` (bob@acme.test) ``: the address as code, the human key as text."""
    key = change.address_with_key.removeprefix(change.address)
    return f"`{code(change.address)}`{escape(key)}"


def _details(change: Change, show_calls: bool) -> list[str]:
    symbol = "-" if change.action == "delete" else ("+" if change.action == "create" else "!")
    lines = [f"{symbol} {change.address_with_key} ({change.action})"]
    lines += [f"    {line}" for line in replacement_lines(change)]
    lines += [f"    {line}" for line in takes_lines(change)]
    for field in change.fields:
        lines += [f"    {line}" for line in field_lines(field, create=change.action == "create")]
    if show_calls:
        for call in change.calls:
            lines += [f"    {line}" for line in call_lines(call)]
    return [fence_safe(line) for line in lines]


def audience_lines(plan: Plan) -> list[str]:
    """Who can reach what once the plan is applied, per object whose audience changes."""
    if not plan.audience:
        return []
    inside = []
    for audience in plan.audience:
        inside.append(f"# {audience.on}")
        inside += [line.text() for line in audience.lines]
    head = ["**Audience changes** (who can reach what once this is applied):", "", "```diff"]
    return [*head, *(fence_safe(line) for line in inside), "```", ""]


def unmanaged_details(plan: Plan) -> list[str]:
    """The unmanaged objects, folded (no lines when there are none)."""
    if not plan.unmanaged:
        return []
    items = [f"- `{code(u.address)}` ({escape(u.title)})" for u in plan.unmanaged]
    summary = f"<details><summary>{len(plan.unmanaged)} unmanaged</summary>"
    return [summary, "", *items, "", "</details>", ""]


def ignored_details(plan: Plan) -> list[str]:
    """What ``ignore:`` left out, folded (no lines when nothing was)."""
    if not plan.ignored:
        return []
    items = [f"- {escape(item.describe())}" for item in plan.ignored]
    summary = f"<details><summary>{len(plan.ignored)} ignored (settings)</summary>"
    return [summary, "", *items, "", "</details>", ""]


def code(text: str) -> str:
    """``text`` for inside a code span: on one line (a blank line would end the span and let
    what follows render), without a backtick to close it early."""
    return escape_controls(str(text)).replace("`", "'").replace("|", "\\|")


def escape(text: str) -> str:
    """``text`` (a live title, a service's message: anyone's words) as plain words in Markdown:
    on one line, no link or image (``[Approve](url)`` stays text), no HTML, and no @mention,
    bare link or reference to an issue that GitHub would make of it (a word joiner after
    ``@``, inside ``://``, after ``www`` and ``#``)."""
    text = _LINK_SYNTAX.sub(r"\\\g<0>", escape_controls(str(text)))
    text = _AUTOLINKED.sub(lambda m: m.group(0)[:-1] + WORD_JOINER + m.group(0)[-1], text)
    return html.escape(text).replace("|", "\\|").replace("`", "'")


WORD_JOINER = "\u2060"
_LINK_SYNTAX = re.compile(r"[\\\[\]]")
# What GitHub links in text: @name (not inside an email), "://", www., #number.
_AUTOLINKED = re.compile(r"(?<!\w)@\w|:/(?=/)|(?<![\w.])www\.|(?<!\w)#\d", re.IGNORECASE)


def fence_safe(text: str) -> str:
    """Inside a code fence only a line of backticks could end it early."""
    return text.replace("```", "'''")
