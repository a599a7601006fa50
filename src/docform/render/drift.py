"""A drift report for a terminal, as a CI issue body (Markdown), and as versioned JSON.

Field values read "live X, manifests Y": a drifted field is one whose live value moved away
from what the manifests say. Renderers format; they compute nothing the report does not hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from docform.engine.plan import Change, Plan, Unmanaged
from docform.render.markdown import (
    code,
    escape,
    fence_safe,
    ignored_details,
    note_lines,
    render_markdown,
)
from docform.render.policies import live_policies_markdown, live_policies_text
from docform.render.rails import rails_markdown, rails_text
from docform.render.shortening import take_rows
from docform.render.values import (
    change_symbol,
    field_sides,
    not_planned_lines,
    replacement_lines,
)
from docform.untrusted.lookalikes import escape_for_terminal
from docform.workflow.audit import AuditEvent
from docform.workflow.drift import DriftReport, OrgDrift

HEADING = "### docform drift"
WHEN_UNKNOWN = (
    "docform compares the live organization with the manifests; it cannot tell when a "
    "difference appeared, only that it is there now: a change made outside docform since the "
    "last apply, or a change to the manifests that was never applied."
)
FROM_AUDIT = (
    "Who changed what, when and from where comes from the organization's audit log, read "
    "since {since}; a difference with no one named was made before that, or is a change to "
    "the manifests that was never applied."
)
#: Events shown per drifted object; the rest are counted.
SHOWN_EVENTS = 3
_WHAT = {
    "create": "in the manifests, missing from the live organization",
    "restore": "in the manifests, deleted live (still restorable)",
    "delete": "live, not in the manifests, and prune is on",
    "move": "live in another place",
    "reorder": "live in another order",
    "membership": "live members differ",
    "rotate": "a key rotation the manifests ask for was never made",
    "update": "live fields differ",
    "release": "a unique value another entry takes is still held here",
}


def render_drift_json(report: DriftReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False)


def render_drift_text(report: DriftReport) -> str:
    lines: list[str] = []
    several = len(report.orgs) > 1
    for org in report.orgs:
        if several:
            lines += [f"== {org.outcome.label()} ==", ""]
        lines += _org_text(org)
    lines.append(_totals_line(report))
    return escape_for_terminal("\n".join(lines)) + "\n"


def _org_text(org: OrgDrift) -> list[str]:
    plan, name = org.plan, org.outcome.label()
    if plan is None:
        return [f"Could not check {name}: {org.outcome.error}", ""]
    if org.status == "in_sync":
        lines = [f"In sync: {name} matches its manifests{_except_unread(plan)}.", ""]
    else:
        lines = [f"Drift in {name}:", ""]
    if plan.not_planned:
        lines += [f"  {NOT_CHECKED}", *(f"    {line}" for line in not_planned_lines(plan)), ""]
    lines += [f"  {line}" if line else "" for line in live_policies_text(plan.policies)]
    if plan.rails is not None and (plan.rails.violations or plan.rails.at_apply):
        lines.append("  The plan that would fix it:")
        lines += [f"  {line}" if line else "" for line in rails_text(plan.rails)]
    for change in plan.changes:
        symbol = change_symbol(change)
        lines.append(f"  {symbol} {change.address_with_key}  ({_WHAT[change.action]})")
        lines += [f"      {line}" for line in (*replacement_lines(change), *_field_lines(change))]
        lines += [f"      {line}" for line in _who(org.changed_by(change))]
    if plan.unmanaged:
        lines.append("  Unmanaged (live, no manifest entry):")
        for u in plan.unmanaged:
            lines.append(f"    {u.address_with_key}")
            lines += [f"      {line}" for line in _who(org.unmanaged_changed_by(u))]
    if plan.ignored:
        lines.append(f"  Ignored ({len(plan.ignored)}, by `ignore:` in the settings):")
        lines += [f"    {item.describe()}" for item in plan.ignored]
    if plan.notes:
        lines.append("  Notes:")
        lines += [f"    {note}" for note in plan.notes]
    if org.status == "drift" and org.audit is not None and org.audit.unavailable:
        lines.append(f"  Who changed it: unknown, {org.audit.unavailable}.")
    if plan.changes or plan.unmanaged or plan.ignored or plan.notes:
        lines.append("")
    if org.status == "drift":
        lines += [*_next_steps(org.outcome.source.directory.as_posix()), ""]
    return lines


def _next_steps(directory: str) -> list[str]:
    return [
        f"  Revert it (the live organization as the manifests say): docform apply {directory}",
        f"  Adopt it (the manifests as the live organization is): docform adopt {directory}",
    ]


def _field_lines(change: Change) -> list[str]:
    if change.action in ("create", "delete"):
        return []
    out = []
    for field in change.fields:
        live, wanted = field_sides(field)
        out.append(f"{field.path}: live {live}, manifests {wanted}")
    return out


def _who(events: list[AuditEvent]) -> list[str]:
    """``changed by Alice <alice@acme.test> at ... in the UI (organization.space.updated)``."""
    lines = [f"changed {event.describe()}" for event in events[:SHOWN_EVENTS]]
    if len(events) > SHOWN_EVENTS:
        lines.append(f"and {len(events) - SHOWN_EVENTS} earlier changes")
    return lines


def _when(report: DriftReport) -> str:
    trails = [o.audit for o in report.orgs if o.audit is not None and not o.audit.unavailable]
    if not trails:
        return WHEN_UNKNOWN
    since = min(trail.since for trail in trails).strftime("%Y-%m-%dT%H:%M:%SZ")
    return FROM_AUDIT.format(since=since)


def _totals_line(report: DriftReport) -> str:
    totals = report.totals()
    counts = (
        f"{totals['changes']} change{_s(totals['changes'])}, "
        f"{totals['unmanaged']} unmanaged, {totals['ignored']} ignored"
    )
    orgs = totals["organizations"]
    scope = f" across {orgs} organizations" if orgs > 1 else ""
    if report.status == "in_sync" and report.partial:
        return f"No drift{scope} in what was checked ({counts}); {PARTLY_CHECKED}."
    if report.status == "in_sync":
        return f"No drift{scope} ({counts})."
    failed = f"; {totals['error']} could not be checked" if totals["error"] else ""
    return f"Drift{scope}: {counts}{failed}."


def render_drift_markdown(report: DriftReport, *, short: Shortening | None = None) -> str:
    """A CI issue body: the verdict, what drifted, that when is unknown, the fixing plan.
    ``short``: the form that fits an issue (`docform.render.limit.fit_drift_markdown`)."""
    totals = report.totals()
    verdict = {
        "in_sync": "No drift: the live organizations match the manifests",
        "drift": f"Drift found in {totals['drift']} of {totals['organizations']} organizations",
        "error": f"{totals['error']} of {totals['organizations']} organizations could not be "
        "checked",
    }[report.status]
    if totals["organizations"] == 1 and report.status == "drift":
        verdict = "Drift found"
    if report.status == "in_sync" and report.partial:
        verdict = f"No drift in what was checked; {PARTLY_CHECKED}"
    lines = [HEADING, "", f"**{verdict}.** {_counts(totals)}", ""]
    lines += [f"Checked at {report.checked_at_text}. {_when(report)}", ""]
    if short is not None:
        lines += short.note
    for org in report.orgs:
        lines += _org_markdown(org, short)
    return "\n".join(lines).rstrip("\n") + "\n"


@dataclass(frozen=True)
class Shortening:
    """How a drift report too long for an issue is shortened: a note first, no fixing plans,
    and at most ``rows`` characters of rows per organization (deletions always listed)."""

    note: list[str]
    rows: int | None = None


def _counts(totals: dict[str, int]) -> str:
    return (
        f"{totals['changes']} change{_s(totals['changes'])}, "
        f"{totals['unmanaged']} unmanaged object{_s(totals['unmanaged'])}, "
        f"{totals['ignored']} ignored by the settings."
    )


PARTLY_CHECKED = "some kinds were not checked, as the token may not read them"
NOT_CHECKED = (
    "Not checked: the token may not read these, so whether they drifted is unknown (a token "
    "that may, an admin's, checks them):"
)


def _except_unread(plan: Plan) -> str:
    return ", except what was not checked" if plan.not_planned else ""


def _org_markdown(org: OrgDrift, short: Shortening | None) -> list[str]:
    outcome, plan = org.outcome, org.plan
    title = f"#### `{code(outcome.organization or outcome.name)}`"
    if outcome.name != ".":
        title += f" (`{code(outcome.name)}/`)"
    if plan is None:
        message = fence_safe(outcome.error or "")
        return [f"{title}: could not be checked", "", "```", message, "```", ""]
    lines = [f"{title}: {org.status.replace('_', ' ')}{_except_unread(plan)}", ""]
    if plan.not_planned:
        lines += [f"> [!WARNING]\n> **{escape(NOT_CHECKED)}**"]
        lines += [*(f"> - {escape(line)}" for line in not_planned_lines(plan)), ""]
    lines += live_policies_markdown(plan.policies, escape)
    if org.status == "drift" and org.audit is not None and org.audit.unavailable:
        lines += [f"Who changed it is unknown: {escape(org.audit.unavailable)}.", ""]
    lines += rails_markdown(plan.rails, escape)
    # Deletions and likely replacements first: a shortened report always lists them.
    first = [c for c in plan.changes if c.action == "delete" or c.replacement]
    rows = [_change_row(c, org.changed_by(c)) for c in first]
    rows += [_change_row(c, org.changed_by(c)) for c in plan.changes if c not in first]
    unmanaged = [_unmanaged_item(u, org.unmanaged_changed_by(u)) for u in plan.unmanaged]
    left_out = 0
    if short is not None and short.rows is not None:
        deletions = len(first)
        kept, rest = take_rows(rows[deletions:], short.rows - len("\n".join(rows[:deletions])))
        rows = rows[:deletions] + kept
        unmanaged, more = take_rows(unmanaged, short.rows - len("\n".join(rows)))
        left_out = len(rest) + len(more)
    if rows:
        lines += ["| | address | what differs |", "|---|---|---|", *rows, ""]
    if unmanaged:
        lines += [f"**Unmanaged** (live, no manifest entry): {len(plan.unmanaged)}", ""]
        lines += [*unmanaged, ""]
    if left_out:
        lines += [f"...and {left_out} more differences: see the whole report.", ""]
    lines += ignored_details(plan)
    if short is None or short.rows is None:
        lines += note_lines(plan.notes)
    if org.status == "drift":
        lines += _fix_markdown(org, fix_plan=short is None)
    return lines


def _change_row(change: Change, events: list[AuditEvent]) -> str:
    symbol = change_symbol(change)
    lines = [*(_field_lines(change) or [_WHAT[change.action]]), *replacement_lines(change)]
    parts = [escape(line) for line in lines] + [_who_markdown(e) for e in events[:SHOWN_EVENTS]]
    if len(events) > SHOWN_EVENTS:
        parts.append(f"and {len(events) - SHOWN_EVENTS} earlier changes")
    key = escape(change.address_with_key.removeprefix(change.address))
    return f"| `{symbol}` | `{code(change.address)}`{key} | {'<br>'.join(parts)} |"


def _unmanaged_item(unmanaged: Unmanaged, events: list[AuditEvent]) -> str:
    item = f"- `{code(unmanaged.address)}` ({escape(unmanaged.title)})"
    return f"{item}: {_who_markdown(events[0])}" if events else item


def _who_markdown(event: AuditEvent) -> str:
    """``changed by **Alice Admin** (alice@acme.test) at 2030-... in the UI``."""
    if event.own:
        who = "**docform** (this token)"
    else:
        who = f"**{escape(event.actor_label or event.actor_id)}**"
        who += f" ({escape(event.actor_email)})" if event.actor_email else ""
    via = "in" if event.source == "ui" else "through"
    return f"changed by {who} at {event.occurred_at} {via} {escape(event.where())}"


def _fix_markdown(org: OrgDrift, *, fix_plan: bool) -> list[str]:
    directory = code(org.outcome.source.directory.as_posix())
    lines = [
        f"To revert the drift, making the live organization match the manifests again: "
        f"`docform apply {directory}`. To keep it instead, writing the live values and "
        f"objects into the manifests in place: `docform adopt {directory}` (`--target "
        "ADDRESS` for some of it; or list what should stay different under `ignore:`).",
        "",
    ]
    if fix_plan and org.plan is not None and org.plan.changes:
        lines += ["<details><summary>The plan that would fix it</summary>", ""]
        lines += [render_markdown(org.plan), "</details>", ""]
    return lines


def _s(count: int) -> str:
    return "" if count == 1 else "s"
