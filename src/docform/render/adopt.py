"""What ``docform adopt`` wrote into the manifests, the drift it left alone, and who made the
changes it adopted (as text, and as Markdown: the description of a pull request)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docform.render.markdown import code, escape
from docform.workflow.adopt import Adopted, AdoptResult
from docform.workflow.audit import AuditEvent

_HOW = {"fields": "wrote {fields}", "added": "added its entry", "removed": "removed its entry"}
Events = Mapping[str, Sequence[AuditEvent]]
"""The audit events that explain each drifted address (`OrgDrift.changed_by`)."""
MARKDOWN_HEADING = "### docform adopt"


def render_adopted(results: Sequence[AdoptResult], events: Events | None = None) -> str:
    lines: list[str] = []
    for result in results:
        for adopted in result.adopted:
            lines.append(f"  {adopted.address}: {_how(adopted)} in {adopted.file}")
            who = (events or {}).get(adopted.drifted, ())
            lines += [f"    changed {event.describe()}" for event in who[:1]]
        for address, why in result.left:
            lines.append(f"  {address}: not adopted: {why}")
        lines += [f"  {address}: {why}" for address, why in result.unkept]
    count = sum(len(r.adopted) for r in results)
    unkept = sum(len(r.unkept) for r in results)
    files = sorted({f"{r.directory / f}" for r in results for f in r.files})
    if not count and not unkept:
        head = "Nothing to adopt: the manifests already say what the live organization holds."
        return "\n".join([head, *lines]) + "\n"
    head = f"Adopted {count} drifted object{'s' if count != 1 else ''} into {', '.join(files)}:"
    return "\n".join([head, *lines, _promise(results, unkept)]) + "\n"


def _promise(results: Sequence[AdoptResult], unkept: int) -> str:
    """What planning the written manifests showed (`check_adopted`), never more."""
    if unkept:
        return (
            f"Planning the written manifests still shows changes for {unkept} of what was "
            "written (above); review the files, edit those by hand, and commit them."
        )
    if all(r.checked for r in results if r.adopted):
        return (
            "Planning the written manifests shows no changes for what was adopted; review the "
            "files and commit them."
        )
    return "Review the files and commit them."


def render_adopted_markdown(results: Sequence[AdoptResult], events: Events) -> str:
    """A pull request's description: what was adopted, who made each change, where and when,
    and the two ways to go on."""
    rows = [
        _row(adopted, events.get(adopted.drifted, ())) for r in results for adopted in r.adopted
    ]
    lines = [MARKDOWN_HEADING, ""]
    if not rows:
        return (
            "\n".join([*lines, "Nothing to adopt: the manifests match the live organization."])
            + "\n"
        )
    people = sorted(
        {
            _person(e)
            for r in results
            for a in r.adopted
            for e in events.get(a.drifted, ())
            if not e.own
        }
    )
    by = f" by {', '.join(people)}" if people else ""
    lines += [
        f"The live organization was changed outside the manifests{by}. This writes those "
        "changes into the manifests, so that they say what is live: merge it to keep them, or "
        "close it and run `docform apply` to put the live organization back.",
        "",
        "| adopted | into | changed by |",
        "|---|---|---|",
        *rows,
        "",
    ]
    left = [(address, why) for r in results for address, why in r.left]
    if left:
        lines += ["Not adopted (left for a person):", ""]
        lines += [f"- `{code(address)}`: {escape(why)}" for address, why in left]
        lines.append("")
    return "\n".join(lines)


def _how(adopted: Adopted) -> str:
    return _HOW[adopted.how].format(fields=", ".join(adopted.fields))


def _row(adopted: Adopted, events: Sequence[AuditEvent]) -> str:
    who = "<br>".join(_who(e) for e in events[:3]) or "unknown (not in the audit log read)"
    what = f"`{code(adopted.address)}`: {escape(_how(adopted))}"
    return f"| {what} | `{code(adopted.file)}` | {who} |"


def _person(event: AuditEvent) -> str:
    name = escape(event.actor_label or event.actor_id)
    return f"{name} ({escape(event.actor_email)})" if event.actor_email else name


def _who(event: AuditEvent) -> str:
    person = "docform (this token)" if event.own else _person(event)
    via = "in" if event.source == "ui" else "through"
    return f"**{person}** at {event.occurred_at} {via} {escape(event.where())}"
