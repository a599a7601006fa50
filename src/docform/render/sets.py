"""Plans of several manifest sets, grouped by organization, with one total.

Each organization's part is the usual rendering of its plan (or its error); the total adds
their summaries. The JSON form wraps each set's plan JSON (README, "Several organizations").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from docform.engine.plan import FORMAT_VERSION, Plan
from docform.render.markdown import code, fence_safe, render_markdown
from docform.render.text import render_text
from docform.render.values import summary_line
from docform.workflow.sets import SetOutcome, total_summary


def total_line(outcomes: Sequence[SetOutcome]) -> str:
    """``Total for 2 organizations: Plan: 1 to create, ...`` (and how many failed)."""
    plans = [o.plan for o in outcomes if o.plan is not None]
    failed = sum(1 for o in outcomes if o.failed)
    summary = total_summary(plans)
    line = f"Total for {len(outcomes)} organizations:"
    if any(summary.values()):
        line += " " + summary_line(summary)
    elif failed and plans:
        line += f" No changes in the {len(plans)} planned."
    elif not failed:
        line += " No changes. The live organizations match the manifests."
    ignored = sum(len(p.ignored) for p in plans)
    if ignored:
        line += f" {ignored} ignored by the settings."
    if failed:
        line += f" {failed} could not be planned."
    return line


def render_sets_text(
    outcomes: Sequence[SetOutcome], *, color: bool = False, show_calls: bool = True
) -> str:
    parts = []
    for outcome in outcomes:
        parts.append(f"== {outcome.label()} ==\n\n")
        if outcome.plan is not None:
            parts.append(render_text(outcome.plan, color=color, show_calls=show_calls))
        else:
            parts.append(f"Error: {outcome.error}\n")
        parts.append("\n")
    parts.append(total_line(outcomes) + "\n")
    return "".join(parts)


def render_sets_markdown(
    outcomes: Sequence[SetOutcome],
    *,
    show_calls: bool = True,
    plan_markdown: Callable[[Plan], str] | None = None,
) -> str:
    """Each organization's part is ``plan_markdown(plan)`` (`render_markdown` by default)."""
    lines = [f"## docform plan: {len(outcomes)} organizations", "", f"**{total_line(outcomes)}**"]
    for outcome in outcomes:
        title = f"#### `{code(outcome.organization or outcome.name)}` (`{code(outcome.name)}/`)"
        lines += ["", title, ""]
        if outcome.plan is not None:
            if plan_markdown is not None:
                lines.append(plan_markdown(outcome.plan))
            else:
                lines.append(render_markdown(outcome.plan, show_calls=show_calls))
        else:
            lines += ["Could not be planned:", "", "```", fence_safe(outcome.error or ""), "```"]
    return "\n".join(lines) + "\n"


def sets_json(outcomes: Sequence[SetOutcome]) -> dict[str, Any]:
    plans = [o.plan for o in outcomes if o.plan is not None]
    return {
        "format_version": FORMAT_VERSION,
        "organizations": [
            {
                "directory": o.name,
                "organization": o.organization,
                "error": o.error,
                "plan": o.plan.to_json() if o.plan is not None else None,
            }
            for o in outcomes
        ],
        "summary": total_summary(plans),
    }


def render_sets_json(outcomes: Sequence[SetOutcome]) -> str:
    return json.dumps(sets_json(outcomes), indent=2, ensure_ascii=False)
