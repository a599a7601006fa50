"""A saved plan is a receipt, never a script: what apply checks before it applies the fresh
plan of the manifests in the saved plan's place.

The fresh plan is applied only when it is exactly the saved one: the same changes with the
same calls (compared change by change, so a difference is named), the live objects it changes
as they were read (fingerprints of the whole objects), and the secrets it sends as they were
(keyed fingerprints). The calls always come from the fresh plan: a saved plan edited, even
with its checksum recomputed, can only be refused.

A secret's fingerprint is an HMAC-SHA256 of its value under a key drawn for that saved plan:
the value never appears, two plans of one secret do not show that it is the same, and no
table of hashes of likely values helps guess it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterator
from typing import Any

from docform.engine.fingerprints import canonical_json
from docform.engine.plan import Plan

KEY_BYTES = 16


def secret_sources(plan: Plan) -> list[str]:
    """Where each secret the plan's calls send is held (``saml.okta.certificate``), sorted."""
    found: set[str] = set()
    for change in plan.changes:
        for call in change.calls:
            found.update(_sources_in(call.body))
    return sorted(found)


def _sources_in(value: Any) -> Iterator[str]:
    source = getattr(value, "source", None)
    if isinstance(source, str) and hasattr(value, "plan_json"):
        yield source
    elif isinstance(value, dict):
        for item in value.values():
            yield from _sources_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _sources_in(item)


def checksum_prints(plan: Plan, resolve: Callable[[str], str]) -> dict[str, str]:
    """A fingerprint of each secret ``plan`` sends (read with ``resolve``), for its checksum:
    an HMAC-SHA256 keyed by the organization, so that the plan and the apply that checks its
    checksum, in two processes, agree without sharing a key; two organizations' plans of one
    secret do not show that it is the same."""
    key = hashlib.sha256(f"docform plan secrets\0{plan.organization}".encode()).digest()
    return {
        source: hmac.new(key, resolve(source).encode(), hashlib.sha256).hexdigest()
        for source in secret_sources(plan)
    }


def secret_fingerprints(
    plan: Plan, resolve: Callable[[str], str], key: str | None = None
) -> dict[str, Any]:
    """``{"key": hex, "fingerprints": {source: hex}}`` for the secrets ``plan`` sends, read
    with ``resolve``; a new key unless ``key`` (the saved plan's) is given."""
    key = key or secrets.token_hex(KEY_BYTES)
    prints = {
        source: hmac.new(bytes.fromhex(key), resolve(source).encode(), hashlib.sha256).hexdigest()
        for source in secret_sources(plan)
    }
    return {"key": key, "fingerprints": prints}


def differences(saved: dict[str, Any], fresh: Plan, resolve: Callable[[str], str]) -> list[str]:
    """What differs between the saved plan document ``saved`` and the ``fresh`` plan, each as
    a phrase naming what; empty when the fresh plan may be applied in its place."""
    _keep_saved_match_reasons(saved, fresh)
    found = _live_objects_changed(saved, fresh)
    found += _changes_differing(saved, fresh)
    found += _secrets_changed(saved, fresh, resolve)
    if not found and saved.get("checksum") != fresh.checksum():
        found.append(
            f"its checksum {saved.get('checksum')} is not the fresh plan's {fresh.checksum()} "
            f"(saved as format {saved.get('format_version')})"
        )
    return found


_MATCHED = re.compile(r", matched by (its natural key|its id in docform\.lock), ")


def _keep_saved_match_reasons(saved: dict[str, Any], fresh: Plan) -> None:
    """A change of the same live object, matched by its natural key when it was saved and by
    docform.lock now (`docform pin` or an apply in between wrote the lock), or the other way
    round, is the same change: its reason is taken as saved, so that the checksum compares
    what apply does, not how the object was found."""
    reasons = {
        (c.get("address"), c.get("action")): c.get("action_reason")
        for c in saved.get("changes") or []
        if isinstance(c, dict)
    }
    for change in fresh.changes:
        then = reasons.get((change.address, change.action))
        if not isinstance(then, str) or then == change.action_reason:
            continue
        if _MATCHED.sub(", matched by ?, ", then) == _MATCHED.sub(
            ", matched by ?, ", change.action_reason
        ):
            change.action_reason = then


def _live_objects_changed(saved: dict[str, Any], fresh: Plan) -> list[str]:
    before = saved.get("fingerprints") or {}
    stale = []
    for change in fresh.changes:
        if change.live_id is None or change.action == "restore":
            continue
        key = f"{change.kind}:{change.live_id}"
        if before.get(key) != fresh.fingerprints.get(key):
            stale.append(f"{change.address} ({change.kind} {change.live_id})")
    if not stale:
        return []
    return ["live objects changed since it was planned: " + ", ".join(sorted(set(stale)))]


def _changes_differing(saved: dict[str, Any], fresh: Plan) -> list[str]:
    if saved.get("organization") != fresh.organization:
        return [f"it plans {saved.get('organization')!r}, the manifests {fresh.organization!r}"]
    then = _by_key(saved.get("changes") or [])
    now = _by_key([change.to_json() for change in fresh.changes])
    found = []
    added = [name for key, name in _names(now).items() if key not in then]
    dropped = [name for key, name in _names(then).items() if key not in now]
    if added:
        found.append("planned now but not in the saved plan: " + ", ".join(added))
    if dropped:
        found.append("in the saved plan but no longer planned: " + ", ".join(dropped))
    differing = [
        f"{_name(now[key])}: {', '.join(_fields_differing(then[key], now[key]))}"
        for key in now
        if key in then and canonical_json(then[key]) != canonical_json(now[key])
    ]
    if differing:
        found.append("planned differently now: " + "; ".join(differing))
    if not found and [_key(c) for c in saved.get("changes") or []] != list(now):
        found.append("the changes are in another order")
    if not found and len(saved.get("changes") or []) != len(then):
        found.append("the saved plan holds a change twice")
    return found


def _secrets_changed(
    saved: dict[str, Any], fresh: Plan, resolve: Callable[[str], str]
) -> list[str]:
    if not secret_sources(fresh):
        return []
    kept = saved.get("secrets") or {}
    key = kept.get("key")
    try:
        now = secret_fingerprints(fresh, resolve, key)["fingerprints"] if key else None
    except (TypeError, ValueError):
        now = None
    if now is None:
        return ["it holds no usable fingerprints of the secrets it sends"]
    then = kept.get("fingerprints") or {}
    return [
        f"the secret {source} is not the one planned (its source now holds another value)"
        for source, value in now.items()
        if not hmac.compare_digest(str(then.get(source, "")), value)
    ]


def _key(change: dict[str, Any]) -> str:
    return f"{change.get('address')}#{change.get('action')}"


def _by_key(changes: list[Any]) -> dict[str, dict[str, Any]]:
    return {_key(c): c for c in changes if isinstance(c, dict)}


def _name(change: dict[str, Any]) -> str:
    return f"{change.get('address')} ({change.get('action')})"


def _names(changes: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {key: _name(change) for key, change in changes.items()}


def _fields_differing(then: dict[str, Any], now: dict[str, Any]) -> list[str]:
    return sorted(
        name
        for name in set(then) | set(now)
        if canonical_json(then.get(name)) != canonical_json(now.get(name))
    )
