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

#: Keys of nested entries, in the order an entry lists them (after its own fields).
NESTED_ORDER = ("sectionGroups", "sections", "spaces", "redirects")
_NOT_ENV = re.compile(r"[^A-Z0-9]+")


@dataclass
class Built:
    """The manifest sections (``teams`` -> entries by name), files to write beside them
    (path -> text) and what the user should know (fields left out, variables to set)."""

    sections: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class _Dangling(Exception):
    def __init__(self, ref: LiveRef) -> None:
        self.ref = ref


def build_sections(entries: Sequence[Exported], names: Mapping[LiveRef, str]) -> Built:
    """Every entry resolved and nested; top-level entries sorted by name."""
    built = Built()
    nodes: dict[LiveRef, dict[str, Any]] = {}
    holders = {entry.ref: entry.within for entry in entries if entry.within is not None}
    for entry in entries:
        values = _within_resolved(entry.fields, holders)
        nodes[entry.ref] = _resolve_fields(entry, values, names.get(entry.ref, ""), names, built)
        built.notes += entry.notes
    top: dict[str, dict[str, Any]] = {}
    for entry in entries:
        node = nodes[entry.ref]
        if entry.single:
            built.sections[entry.section] = node
        elif entry.within is None:
            top.setdefault(entry.section, {})[names[entry.ref]] = node
        else:
            parent = nodes.get(entry.within)
            if parent is None:
                built.notes.append(f"left out {entry.kind} {entry.id}: its parent is not exported")
                continue
            parent.setdefault(entry.nested_as, {})[names[entry.ref]] = node
    for node in nodes.values():
        _nested_last(node)
    for section, named in top.items():
        built.sections[section] = dict(sorted(named.items()))
    return built


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
        return f"${{env:{variable}}}"
    if isinstance(value, Mapping):
        return {k: _resolve(v, entry, name, names, built) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, entry, name, names, built) for v in value]
    return value


def _nested_last(node: dict[str, Any]) -> None:
    """Move nested entries after the entry's own fields, in `NESTED_ORDER`."""
    nested = {key: node.pop(key) for key in NESTED_ORDER if isinstance(node.get(key), dict)}
    node.update(nested)
