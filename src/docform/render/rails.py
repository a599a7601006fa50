"""The safety rails of a plan (`docform.engine.rails.RailReport`), for people: a block at the
top of the text and Markdown plans, so a reviewer sees a refused plan before its changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docform.engine.rails import RailReport, Violation

NEVER_BYPASSED = " (never bypassed, not even with --force)"


def rails_text(report: RailReport) -> list[str]:
    """Lines for a terminal (none when every rail passes and none waits for apply)."""
    if report is None:
        return []
    lines: list[str] = []
    blocking, bypassed = report.blocking, report.bypassed
    if blocking:
        lines.append(f"Safety rails this plan breaks ({len(blocking)}): apply refuses it.")
        lines += [f"  {v}{_never(v)}" for v in blocking]
        if any(v.forceable for v in blocking):
            lines.append(
                "  Fix the manifests, accept one with --allow RAIL:ADDRESS, or plan and apply "
                "with --force to bypass these."
            )
    if report.accepted:
        given = ", ".join(report.allowed)
        lines.append(f"Safety rails accepted with --allow ({given}) ({len(report.accepted)}):")
        lines += [f"  {v}" for v in report.accepted]
    lines += [f"--allow {item} accepts no rail this plan breaks." for item in report.unused_allows]
    if bypassed:
        lines.append(f"Safety rails bypassed with --force ({len(bypassed)}):")
        lines += [f"  {v}" for v in bypassed]
    if report.at_apply:
        lines.append("Checked only at apply:")
        lines += [f"  {v}" for v in report.at_apply]
    return [*lines, ""] if lines else []


def rails_markdown(
    report: RailReport, escape: Callable[[str], str], *, most: int | None = None
) -> list[str]:
    """GitHub alert blocks; ``escape`` makes user text (addresses, titles) safe. ``most``
    (a plan too long for a comment): list at most that many items per block, count the rest."""
    if report is None:
        return []
    blocking, bypassed = report.blocking, report.bypassed
    lines: list[str] = []
    if blocking:
        count = _rails(len(blocking))
        lines += _alert("CAUTION", f"Apply will refuse this plan: it breaks {count}.")
        lines += _items(blocking, escape, most)
        if any(v.forceable for v in blocking):
            lines += [
                ">",
                "> Fix the manifests, accept one with `--allow RAIL:ADDRESS`, or plan and apply "
                "with `--force` to bypass them.",
            ]
        lines.append("")
    if report.accepted:
        lines += _alert("WARNING", f"`--allow` accepts {_rails(len(report.accepted))}:")
        lines += [*_items(report.accepted, escape, most), ""]
    if report.unused_allows:
        unused = ", ".join(f"`{escape(item)}`" for item in report.unused_allows)
        lines += [*_alert("NOTE", f"`--allow` accepts no rail this plan breaks: {unused}"), ""]
    if bypassed:
        lines += _alert("WARNING", f"`--force` bypasses {_rails(len(bypassed))}:")
        lines += [*_items(bypassed, escape, most), ""]
    if report.at_apply:
        lines += _alert("NOTE", "Checked only at apply:")
        lines += [*_items(report.at_apply, escape, most), ""]
    return lines


def _items(violations: list[Any], escape: Callable[[str], str], most: int | None) -> list[str]:
    shown = violations if most is None else violations[:most]
    lines = [_item(v, escape, _never(v)) for v in shown]
    if len(shown) < len(violations):
        lines.append(f"> - ...and {len(violations) - len(shown)} more: see the whole plan")
    return lines


def _alert(kind: str, title: str) -> list[str]:
    return [f"> [!{kind}]", f"> **{title}**", ">"]


def _item(violation: Violation, escape: Callable[[str], str], suffix: str) -> str:
    return f"> - `{violation.rail}`{suffix}: {escape(violation.message)}"


def _never(violation: Violation) -> str:
    return "" if violation.forceable else NEVER_BYPASSED


def _rails(count: int) -> str:
    return f"{count} safety rail{'s' if count != 1 else ''}"
