"""`docform state list` / `state show`: each managed address with the live object it is tied to,
read from the plan (`Plan.matchings`): every kind the registry has is listed, none named."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docform.engine.plan import Plan
from docform.render.values import SENSITIVE, show_value

STATE_FORMAT_VERSION = "1.0"
"""The version of `state list --json` and `state show --json` (docs/json-formats.md)."""


@dataclass(frozen=True)
class StateEntry:
    """One manifest entry: its address, kind, where it is written, and its live object, if any."""

    address: str
    kind: str
    location: str
    live_id: str | None
    fields: dict[str, Any] = field(default_factory=dict)
    """The live object's fields as docform compares them (secrets as ``(sensitive)``)."""
    pending: str | None = None
    """The action the plan has for this address (``update``), or None when it is in sync."""


def state_entries(plan: Plan) -> list[StateEntry]:
    """Every entry of the plan's manifests, sorted by address."""
    pending = {change.address: change.action for change in plan.changes}
    entries: list[StateEntry] = []
    for kind, matching in plan.matchings:
        live = {pair.desired.address: pair.observed for pair in matching.pairs}
        for desired in matching.desired:
            observed = live.get(desired.address)
            fields = {} if observed is None else _shown(observed.fields, observed.sensitive)
            entries.append(
                StateEntry(
                    desired.address,
                    kind,
                    desired.location,
                    observed.id if observed is not None else None,
                    fields,
                    pending.get(desired.address),
                )
            )
    return sorted(entries, key=lambda e: e.address)


def _shown(fields: dict[str, Any], sensitive: frozenset[str]) -> dict[str, Any]:
    return {name: SENSITIVE if name in sensitive else value for name, value in fields.items()}


def state_list_text(entries: Sequence[StateEntry]) -> str:
    """One line per entry: its address, then its live id (or that apply has yet to create it)."""
    width = max((len(e.address) for e in entries), default=0)
    lines = [f"{e.address.ljust(width)}  {e.live_id or '(not live yet)'}" for e in entries]
    return "".join(line + "\n" for line in lines)


def state_show_text(entry: StateEntry) -> str:
    """One entry: where it is written, its live id, what the plan would do, its live fields."""
    status = f"apply would {entry.pending} it" if entry.pending else "in sync"
    lines = [
        f"# {entry.address}",
        f"kind:     {entry.kind}",
        f"manifest: {entry.location}",
        f"live id:  {entry.live_id or '(not live yet: apply creates it)'}",
        f"status:   {status if entry.live_id else 'to create'}",
    ]
    if entry.fields:
        lines.append("live fields:")
        lines += [f"  {name} = {show_value(value)}" for name, value in sorted(entry.fields.items())]
    return "".join(line + "\n" for line in lines)


def state_json(organization: str, entries: Sequence[StateEntry], *, with_fields: bool) -> str:
    """`state list --json` (``with_fields`` False) or `state show --json` (one entry, True)."""
    objects = [_entry_json(e, with_fields) for e in entries]
    document = {
        "format_version": STATE_FORMAT_VERSION,
        "organization": organization,
        "objects": objects,
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=_plain)


def _entry_json(entry: StateEntry, with_fields: bool) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "address": entry.address,
        "kind": entry.kind,
        "id": entry.live_id,
        "location": entry.location,
        "pending": entry.pending,
    }
    if with_fields:
        shown["fields"] = {name: _plain(value) for name, value in entry.fields.items()}
    return shown


def _plain(value: Any) -> Any:
    """A live value as JSON: references and secrets as the text renderings read them."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return show_value(value)
