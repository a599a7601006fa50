"""Changes a token of the wrong kind cannot make, left out of the plan with why.

The service takes some calls from a user's token only (docs/service.md, "Tokens"), and answers
401 to a token of another kind (an integration's). Every plan reads the site list, one of those
calls, so by the time a plan is made docform knows which kind of token it holds: if a read was
refused for the token's kind (`LiveState.refused_kind`), every change with a call of that sort
would fail at apply. Such changes, and those that need them, are not planned, and the plan says
so per kind (``not_planned``); the rest of the plan is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from docform.engine.plan import Call, Change, Plan

UserOnly = Callable[[str, str], bool]
"""Whether the service takes ``METHOD path`` from a user's token only (paths may hold a plan's
``${...}`` placeholders)."""


def set_aside_user_only(plan: Plan, refused: str | None, user_only: UserOnly | None) -> None:
    """Drop from ``plan`` the changes a token that is not a user's cannot make, when the
    service ``refused`` a read to this token for its kind; each kind left out says why."""
    if refused is None or user_only is None:
        return
    dropped: dict[str, list[Change]] = {}
    keys: set[str] = set()
    for change in plan.changes:  # in dependency order: what a change needs comes before it
        if _refused_calls(change, user_only) or keys.intersection(change.depends_on):
            keys.add(change.key)
            dropped.setdefault(change.kind, []).append(change)
    if not keys:
        return
    plan.changes = [c for c in plan.changes if c.key not in keys]
    for kind, changes in dropped.items():
        plan.not_planned.setdefault(kind, _reason(changes, refused, user_only))


def _refused_calls(change: Change, user_only: UserOnly) -> list[Call]:
    return [call for call in change.calls if user_only(call.method, call.path)]


def _reason(changes: Sequence[Change], refused: str, user_only: UserOnly) -> str:
    own = [c for c in changes if _refused_calls(c, user_only)]
    needing = [c for c in changes if c not in own]
    refused_calls = (call for c in own for call in _refused_calls(c, user_only))
    calls = sorted({f"{call.method} {call.path}" for call in refused_calls})
    parts = []
    if own:
        parts.append(
            f"{_listed(own)}: not planned: the service takes {', '.join(calls)} from a user's "
            "API token only, and this token is of another kind (an integration's, say: the "
            f"service refused it the {refused} for the same reason)"
        )
    if needing:
        parts.append(
            f"{_listed(needing)}: not planned: each needs a change that only a user's "
            "token may make"
        )
    return "; ".join(parts) + "; plan and apply with a user's token to make them"


def _listed(changes: Sequence[Change]) -> str:
    return ", ".join(f"{c.address} ({c.action})" for c in changes)
