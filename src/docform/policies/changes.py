"""The plan as rules read it (``plan``, and ``change`` for a policy evaluated per change):
its changes with what a reviewer reads of them, secrets masked, built only as far as the rules
read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.plan import Change, Plan
from docform.policies.objects import SENSITIVE, plain
from docform.policies.schema import ALL, Wanted


def plan_input(plan: Plan, labels: Sequence[str], wanted: Wanted = ALL) -> dict[str, Any]:
    """``plan``: its changes as a reviewer reads them, secrets masked."""
    return {
        "organization": plan.organization,
        "changes": [change_input(c, wanted) for c in plan.changes],
        "summary": plan.summary(),
        "live_counts": dict(plan.live_counts),
        "unmanaged": [u.to_json() for u in plan.unmanaged],
        "labels": list(labels),
        "deletions": dict(Counter(c.kind for c in plan.changes if c.action == "delete")),
    }


def change_input(change: Change, wanted: Wanted = ALL) -> dict[str, Any]:
    doc: dict[str, Any] = {"address": change.address, "kind": change.kind}
    doc["action"] = change.action
    if wanted.key("human_key"):
        doc["human_key"] = change.human_key or ""
    if wanted.key("id"):
        doc["id"] = change.live_id or ""
    if wanted.key("replacement"):
        doc["replacement"] = change.replacement is not None
    if wanted.key("before"):
        hidden = [*change.sensitive, *change.sensitive_before]
        doc["before"] = _side_of(change.before, hidden, wanted.fields)
    if wanted.key("after"):
        doc["after"] = _side_of(change.after, change.sensitive, wanted.fields)
    if wanted.key("fields"):
        doc["fields"] = [f.to_json() for f in change.fields]
    return doc


def _side_of(
    values: Mapping[str, Any] | None, sensitive: Iterable[str], names: frozenset[str] | None
) -> dict[str, Any]:
    hidden = set(sensitive)
    values = values or {}
    keys = values.keys() if names is None else [k for k in names if k in values]
    return {k: SENSITIVE if k in hidden else plain(values[k]) for k in keys}
