"""The rehearsal of a plan on a twin (`docform.workflow.rehearsal.Rehearsal`), as the line the
text plan, the Markdown comment and apply show, with what follows it when it failed."""

from __future__ import annotations

from typing import Any


def rehearsal_line(rehearsal: Any) -> str:
    """One line: how many calls the twin accepted and whether it converged, or the first call
    it refused."""
    if rehearsal.refused:
        first = rehearsal.refused[0]
        call = f"{first.call.get('method')} {first.call.get('path')}"
        status = f"{first.status} " if first.status is not None else ""
        return (
            f"Rehearsal on a twin failed: {first.change}: {call} was refused "
            f"({status}{first.message}); nothing after it would run"
        )
    accepted = f"{rehearsal.accepted} call{'s' if rehearsal.accepted != 1 else ''} accepted"
    if rehearsal.error is not None:
        return f"Rehearsal on a twin failed after {accepted}: {rehearsal.error}"
    if rehearsal.remaining:
        count = len(rehearsal.remaining)
        return (
            f"Rehearsed on a twin: {accepted}, not converged: a plan against the twin still "
            f"makes {count} change{'s' if count != 1 else ''} ({', '.join(rehearsal.remaining)})"
        )
    line = f"Rehearsed on a twin: {accepted}, converged"
    if rehearsal.broken:
        line += f", but the result breaks: {'; '.join(rehearsal.broken)}"
    return line + _unknown(rehearsal)


def _unknown(rehearsal: Any) -> str:
    if not rehearsal.kinds_not_loaded:
        return ""
    skipped = len(rehearsal.not_rehearsed)
    return (
        f" (the twin holds nothing of {', '.join(rehearsal.kinds_not_loaded)}, not read or not "
        f"loaded: {skipped} "
        f"change{'s' if skipped != 1 else ''} not rehearsed)"
    )


def rehearsal_details(rehearsal: Any) -> list[str]:
    """The entries involved in the first refused call, where the manifests write them."""
    if not rehearsal.refused:
        return []
    return [f"  involved: {entry}" for entry in rehearsal.refused[0].entries]
