"""From named `Exported` entries to manifest sections and the files beside them.

References (`LiveRef`) become manifest names, secret-bearing values become ``{file: ...}``
(written beside the manifests) or ``${env:NAME}``, and nested entries (a site's sections, a
section's site spaces) are placed inside the entry they belong to, in live order. A field
whose reference points at nothing exported is left out (so not managed) and said so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from docform.export.model import EnvValue, Exported, FileValue, LiveRef, WithinRef

_NOT_ENV = re.compile(r"[^A-Z0-9]+")


@dataclass
class Built:
    """The manifest sections (``teams`` -> entries by name), files to write beside them
    (path -> text) and what the user should know (fields left out, variables to set)."""

    sections: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    ids: dict[tuple[str, ...], LiveRef] = field(default_factory=dict)
    """The live object of each entry, by its path in ``sections`` (``("teams", "ops")``):
    what docform.lock records, since the entries themselves pin no ``id``."""
    sources: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)
    """The variable each entry's write-only secrets read, by the entry's path as ``ids``."""
    unread: dict[LiveRef, dict[str, str]] = field(default_factory=dict)


class _Dangling(Exception):
    def __init__(self, ref: LiveRef) -> None:
        self.ref = ref


def build_sections(
    entries: Sequence[Exported], names: Mapping[LiveRef, str], nested_order: Sequence[str]
) -> Built:
    """Every entry resolved and nested; top-level entries sorted by name. ``nested_order``:
    the keys of nested entries (``sections``), in the order an entry lists them, after its own
    fields (the entry models' order, `docform.kind_registry.nested_order`)."""
    built = Built()
    nodes: dict[LiveRef, dict[str, Any]] = {}
    holders = {entry.ref: entry.within for entry in entries if entry.within is not None}
    for entry in entries:
        if not entry.part:
            values = _within_resolved(entry.fields, holders)
            name = names.get(entry.ref, "")
            nodes[entry.ref] = _resolve_fields(entry, values, name, names, built)
        built.notes += entry.notes
    _merge_parts([e for e in entries if e.part], nodes, names, built)
    top: dict[str, dict[str, Any]] = {}
    placed = {e.ref: e for e in entries if not e.part}
    for entry in placed.values():
        node = nodes[entry.ref]
        if entry.single:
            built.sections[entry.section] = node
            continue
        if entry.within is None:
            top.setdefault(entry.section, {})[names[entry.ref]] = node
        else:
            parent = nodes.get(entry.within)
            if parent is None:
                built.notes.append(f"left out {entry.kind} {entry.id}: its parent is not exported")
                continue
            parent.setdefault(entry.nested_as, {})[names[entry.ref]] = node
        live_id = node.pop("id", None)
        if live_id is not None:
            built.ids[_path(entry, placed, names)] = LiveRef(entry.kind, live_id)
            if entry.ref in built.unread:
                built.sources[_path(entry, placed, names)] = built.unread[entry.ref]
    for node in nodes.values():
        _nested_last(node, nested_order)
    for section, named in top.items():
        built.sections[section] = dict(sorted(named.items()))
    return built


def _path(
    entry: Exported, placed: Mapping[LiveRef, Exported], names: Mapping[LiveRef, str]
) -> tuple[str, ...]:
    """Where ``entry`` is written in the sections: ``("sites", "docs", "sections", "api")``."""
    if entry.within is None:
        return (entry.section, names[entry.ref])
    return (*_path(placed[entry.within], placed, names), entry.nested_as, names[entry.ref])


def resolve_entry(entry: Exported, name: str, names: Mapping[LiveRef, str]) -> Built:
    """One entry's fields with references as manifest names (``names``), outside an export:
    as ``Built.sections[entry.section][name]``; a field referring to an object ``names`` does
    not hold is left out, with a note. An entry's place inside another (`WithinRef`) is left
    out too: it is where the entry is written, not one of its fields."""
    built = Built()
    fields = _within_resolved(entry.fields, {})
    built.sections[entry.section] = {name: _resolve_fields(entry, fields, name, names, built)}
    return built


def _merge_parts(
    parts: Sequence[Exported],
    nodes: Mapping[LiveRef, dict[str, Any]],
    names: Mapping[LiveRef, str],
    built: Built,
) -> None:
    """Each part merged into the ``nested_as`` value of the entry it lives in; all the parts of
    one value or none: a value written without one of its parts would say that part must go."""
    grouped: dict[tuple[LiveRef, str], list[Exported]] = {}
    for part in parts:
        assert part.within is not None, "a part lives in an entry"
        grouped.setdefault((part.within, part.nested_as), []).append(part)
    for (within, key), group in grouped.items():
        parent = nodes.get(within)
        if parent is None:
            continue
        named = f"{names.get(within, within.id)}.{key}"
        where = f"{group[0].section}.{named}"
        try:
            # A part has no name of its own: its notes and files name the entry it lives in.
            resolved = [_resolve(part.fields, part, named, names, built) for part in group]
        except _Dangling as exc:
            built.notes.append(
                f"{where} left out (not managed): it refers to {exc.ref.kind} {exc.ref.id}, "
                "which cannot be named in the manifests"
            )
            continue
        value: dict[str, Any] = {}
        for fields in resolved:
            _merge(value, fields)
        parent[key] = _sorted(value)


def _merge(into: dict[str, Any], fields: Mapping[str, Any]) -> None:
    for name, value in fields.items():
        if isinstance(value, Mapping) and isinstance(into.get(name), dict):
            _merge(into[name], value)
        else:
            into[name] = dict(value) if isinstance(value, Mapping) else value


def _sorted(value: Any) -> Any:
    """Mappings by key, so that the same live state is always written the same way."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    return value


def _within_resolved(value: Any, holders: Mapping[LiveRef, LiveRef]) -> Any:
    """``value`` with each `WithinRef` replaced by the holder it names, and left out when the
    holder is of another kind."""
    if isinstance(value, Mapping):
        out = {k: _within_resolved(v, holders) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None or value[k] is None}
    if isinstance(value, WithinRef):
        holder = holders.get(value.of)
        return holder if holder is not None and holder.kind == value.kind else None
    return value


def _resolve_fields(
    entry: Exported,
    fields: Mapping[str, Any],
    name: str,
    names: Mapping[LiveRef, str],
    built: Built,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in fields.items():
        try:
            out[key] = _resolve(value, entry, name, names, built)
        except _Dangling as exc:
            where = f"{entry.section}.{name}" if name else entry.section
            built.notes.append(
                f"{where}.{key} left out (not managed): it refers to {exc.ref.kind} "
                f"{exc.ref.id}, which was not exported"
            )
    return out


def _resolve(
    value: Any, entry: Exported, name: str, names: Mapping[LiveRef, str], built: Built
) -> Any:
    if isinstance(value, LiveRef):
        found = names.get(value)
        if found is None:
            raise _Dangling(value)
        return found
    if isinstance(value, FileValue):
        path = f"{value.folder}/{name}.{value.extension}"
        built.files[path] = value.text.strip() + "\n"
        return {"file": path}
    if isinstance(value, EnvValue):
        variable = _NOT_ENV.sub("_", f"DOCFORM_{entry.section}_{name}_{value.suffix}".upper())
        built.notes.append(
            f"{entry.section}.{name} holds credentials, so it reads ${{env:{variable}}}: "
            f"set {variable} before validate, plan or apply"
        )
        if value.unread is not None:
            built.unread.setdefault(entry.ref, {})[value.unread] = f"${{env:{variable}}}"
        return f"${{env:{variable}}}"
    if isinstance(value, Mapping):
        return {
            _resolve(k, entry, name, names, built): _resolve(v, entry, name, names, built)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_resolve(v, entry, name, names, built) for v in value]
    return value


def _nested_last(node: dict[str, Any], order: Sequence[str]) -> None:
    """Move nested entries after the entry's own fields, in ``order``."""
    nested = {key: node.pop(key) for key in order if isinstance(node.get(key), dict)}
    node.update(nested)
