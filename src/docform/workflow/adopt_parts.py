"""Adopting drift in what an entry writes inside itself for another kind (a space's
``access``): the whole value is written again from every live object of that kind the entry
holds, as export writes it, since the entry's value is their complete list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform.engine.kind import Kind
from docform.engine.plan import Plan
from docform.export.document import resolve_entry
from docform.export.model import LiveRef


def part_value(
    kind: Kind, plan: Plan, holder: str, key: str, names: Mapping[LiveRef, str]
) -> tuple[dict[str, Any] | None, str]:
    """The value of ``key`` (``access``) for the entry at address ``holder`` as the live
    objects of ``kind`` inside it are, or None and why it cannot be written."""
    # A block that is one live object (a site's customization) sits at the address itself;
    # one that lists several (a space's access) holds them under it.
    whole, prefix = f"{holder}.{key}", f"{holder}.{key}."
    live = {**plan.live_objects, **plan.unmatched_objects}
    value: dict[str, Any] = {}
    for address, raw in sorted(live.items()):
        if address != whole and not address.startswith(prefix):
            continue
        part = kind.export_entry(raw)
        if part is None or not part.part:
            return None, "docform cannot write it back: edit it by hand"
        built = resolve_entry(part, "", names)
        if built.notes:
            return None, "it names a team or user the manifests cannot name: edit it by hand"
        _merge(value, built.sections[part.section][""])
    return _sorted(value), ""


def _merge(into: dict[str, Any], fields: Mapping[str, Any]) -> None:
    for name, item in fields.items():
        if isinstance(item, Mapping) and isinstance(into.get(name), dict):
            _merge(into[name], item)
        else:
            into[name] = dict(item) if isinstance(item, Mapping) else item


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    return value
