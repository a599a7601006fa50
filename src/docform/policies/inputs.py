"""What a policy rule reads: the plan, the organization as the plan leaves it, and as it is.

Rules see plain values only (strings, numbers, booleans, lists, maps): references are the
address of the object they name, and no secret reaches a rule (a field a kind marks sensitive
is left out; a secret in a change reads ``(sensitive)``), so no rule, message or error can print
one. The shapes are documented in docs/policies.md and declared in `docform.policies.schema`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from docform.engine.match import unmatched_address
from docform.engine.objects import Desired, Matching, Observed
from docform.engine.plan import Change, Plan
from docform.policies.evaluate import Inputs
from docform.policies.schema import ALL, Wanted

SENSITIVE = "(sensitive)"
_SCALARS = frozenset({str, bool, int, float})
TIMESTAMP_KEYS = ("createdAt", "updatedAt")


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


def desired_objects(
    kind: str, matching: Matching, deleted: set[str], wanted: Wanted = ALL
) -> list[dict[str, Any]]:
    """One kind's objects as the plan leaves them: what the manifests say over what is live,
    and the unmanaged objects the plan does not delete."""
    after = [_pair_object(kind, p.desired, p.observed, wanted) for p in matching.pairs]
    after += [_pair_object(kind, p.desired, p.observed, wanted) for p in matching.restores]
    after += [_pair_object(kind, d, None, wanted) for d in matching.creates]
    after += [
        _observed_object(kind, o, False, unmatched_address(kind, o), wanted)
        for o in matching.unmatched
        if unmatched_address(kind, o) not in deleted
    ]
    return after


def live_objects(kind: str, matching: Matching, wanted: Wanted = ALL) -> list[dict[str, Any]]:
    """One kind's objects in scope as they are live now."""
    found = [
        _observed_object(kind, pair.observed, True, pair.desired.address, wanted)
        for pair in (*matching.pairs, *matching.restores)
    ]
    found += [
        _observed_object(kind, o, False, unmatched_address(kind, o), wanted)
        for o in matching.unmatched
    ]
    return found


def _observed_object(
    kind: str, obs: Observed, managed: bool, address: str, wanted: Wanted
) -> dict[str, Any]:
    doc = _object(kind, address, obs.id, obs.title, managed, wanted)
    if wanted.key("fields"):
        doc["fields"] = plain_fields(obs.fields, obs.sensitive, wanted.fields)
    _timestamps(doc, obs, wanted)
    return doc


def _pair_object(
    kind: str, desired: Desired, obs: Observed | None, wanted: Wanted
) -> dict[str, Any]:
    names = wanted.fields
    if wanted.key("title") and names is not None:
        names = names | {"title"}
    have = plain_fields(obs.fields, obs.sensitive, names) if obs is not None else {}
    fields = {**have, **plain_fields(desired.fields, desired.sensitive, names)}
    title = str(fields.get("title") or (obs.title if obs else desired.address))
    live_id = obs.id if obs is not None else ""
    doc = _object(kind, desired.address, live_id, title, True, wanted)
    if wanted.key("fields"):
        doc["fields"] = (
            fields if names == wanted.fields else plain_fields(fields, (), wanted.fields)
        )
    if obs is not None:
        _timestamps(doc, obs, wanted)
    return doc


def _object(
    kind: str, address: str, live_id: str, title: str, managed: bool, wanted: Wanted
) -> dict[str, Any]:
    if wanted.keys is None:
        return {"address": address, "id": live_id, "kind": kind, "title": title, "managed": managed}
    doc: dict[str, Any] = {"address": address}
    for name, value in (("id", live_id), ("kind", kind), ("title", title), ("managed", managed)):
        if name in wanted.keys:
            doc[name] = value
    return doc


def _timestamps(doc: dict[str, Any], obs: Observed, wanted: Wanted) -> None:
    for key in TIMESTAMP_KEYS:
        if wanted.key(key) and isinstance(obs.raw.get(key), str):
            doc[key] = obs.raw[key]


def plain_fields(
    fields: Mapping[str, Any], sensitive: Collection[str], names: Iterable[str] | None = None
) -> dict[str, Any]:
    if names is None:
        return {k: plain(v) for k, v in fields.items() if k not in sensitive}
    return {k: plain(fields[k]) for k in names if k in fields and k not in sensitive}


def plain(value: Any) -> Any:
    """``value`` as CEL reads it: references as the address they name, secrets masked."""
    if value is None or type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=str)
    json_form = getattr(value, "plan_json", None)
    if callable(json_form):
        doc = json_form()
        return SENSITIVE if "$secret" in doc else doc.get("$ref", str(value))
    return str(value)


def planned_inputs(plan: Plan, labels: Sequence[str], *, as_live: bool = False) -> Inputs:
    """What rules read of ``plan``. ``as_live`` (drift): ``desired`` is the organization as it
    is live, so a policy checks what someone changed by hand."""
    deleted = {c.address for c in plan.changes if c.action == "delete"}
    sides: dict[tuple[str, str], Callable[[Wanted], list[dict[str, Any]]]] = {}
    for kind, matching in plan.matchings:
        sides["live", kind] = partial(live_objects, kind, matching)
        desired = partial(desired_objects, kind, matching, deleted)
        sides["desired", kind] = sides["live", kind] if as_live else desired
    return Inputs(partial(plan_input, plan, labels), sides, datetime.now(UTC))
