"""The organization's objects as rules read them, as the plan leaves them or as they are live.

Each object is first a `Record` pointing at what matching made of it (the manifest entry as
`Desired`, the live object as `Observed`); its value for a rule (address, title, ``fields``...)
is built from there only as far as the rules read it, and only for objects the rules read
differently: 10,000 members that a rule reads only for their role are a handful of values.

Rules see plain values only: references are the address of the object they name, and no secret
reaches a rule (a field a kind marks sensitive is left out), so no rule, message or error can
print one.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from docform.engine.match import unmatched_address
from docform.engine.objects import Desired, Matching, Observed
from docform.policies.expressions import InputType, Usage
from docform.policies.schema import ALL, Wanted

SENSITIVE = "(sensitive)"
TIMESTAMP_KEYS = ("createdAt", "updatedAt")
_SCALARS = frozenset({str, bool, int, float})
_ABSENT = object()


@dataclass(slots=True)
class Record:
    """One object: as the plan leaves it (``desired`` over ``observed``), or as it is live
    (``observed`` alone)."""

    kind: str
    address: str
    managed: bool
    desired: Desired | None
    observed: Observed | None

    def value(self, name: str) -> Any:
        """The field ``name`` as rules read it, or `_ABSENT`."""
        found = _field(self.desired, name)
        return _field(self.observed, name) if found is _ABSENT else found

    def build(self, wanted: Wanted = ALL) -> dict[str, Any]:
        """The object as rules read it, with what ``wanted`` names."""
        doc: dict[str, Any] = {"address": self.address}
        for key in ("id", "kind", "title", "managed", *TIMESTAMP_KEYS):
            if wanted.key(key) and (value := self._key(key)) is not _ABSENT:
                doc[key] = value
        if wanted.key("fields"):
            doc["fields"] = self._fields(wanted.fields)
        return doc

    def key(self, reads: KeyReads) -> Any:
        """Equal for two records exactly when a rule reading ``reads`` reads them alike."""
        names, fields = reads
        if not names and len(fields) == 1:  # the common rule: one field of each object
            return _hashable(self.value(fields[0]))
        found = [_hashable(self._key(name)) for name in names]
        found += [_hashable(self.value(name)) for name in fields]
        return tuple(found)

    def _key(self, name: str) -> Any:
        obs = self.observed
        if name == "id":
            return obs.id if obs is not None else ""
        if name == "kind":
            return self.kind
        if name == "managed":
            return self.managed
        if name == "title":
            title = self.value("title")
            if title is _ABSENT or not title:
                return obs.title if obs is not None else self.address
            return str(title)
        raw = obs.raw.get(name) if obs is not None else None
        return raw if isinstance(raw, str) else _ABSENT

    def _fields(self, names: Iterable[str] | None) -> dict[str, Any]:
        desired, obs = self.desired, self.observed
        fields = plain_fields(obs.fields, obs.sensitive, names) if obs is not None else {}
        if desired is not None:
            fields.update(plain_fields(desired.fields, desired.sensitive, names))
        return fields


KeyReads = tuple[tuple[str, ...], tuple[str, ...]]
"""What a rule reads of an object: its own keys (``title``) and its ``fields``."""


def key_reads(shape: InputType, used: Usage) -> KeyReads | None:
    """What ``used`` reads of objects of ``shape`` as `Record.key` takes it; None when it reads
    one whole, so only the built value tells two apart."""
    if id(shape) in used.whole or shape.fields is None:
        return None
    names = sorted(used.selected.get(id(shape), ()))
    fields: list[str] = []
    if "fields" in names:
        inner = shape.fields["fields"]
        if id(inner) in used.whole:
            return None
        fields = sorted(used.selected.get(id(inner), ()))
    return tuple(n for n in names if n != "fields"), tuple(fields)


def _field(side: Desired | Observed | None, name: str) -> Any:
    if side is None:
        return _ABSENT
    found = side.fields.get(name, _ABSENT)
    if found is _ABSENT or (side.sensitive and name in side.sensitive):
        return _ABSENT
    return found if found is None or type(found) in _SCALARS else plain(found)


def is_present(value: Any) -> bool:
    """Whether `Record.value` found the field."""
    return value is not _ABSENT


def desired_records(kind: str, matching: Matching, deleted: set[str]) -> list[Record]:
    """One kind's objects as the plan leaves them: what the manifests say over what is live,
    and the unmanaged objects the plan does not delete."""
    found = [
        Record(kind, p.desired.address, True, p.desired, p.observed)
        for p in (*matching.pairs, *matching.restores)
    ]
    found += [Record(kind, d.address, True, d, None) for d in matching.creates]
    for obs in matching.unmatched:
        address = unmatched_address(kind, obs)
        if address not in deleted:
            found.append(Record(kind, address, False, None, obs))
    return found


def live_records(kind: str, matching: Matching) -> list[Record]:
    """One kind's objects in scope as they are live now."""
    found = [
        Record(kind, p.desired.address, True, None, p.observed)
        for p in (*matching.pairs, *matching.restores)
    ]
    found += [Record(kind, unmatched_address(kind, o), False, None, o) for o in matching.unmatched]
    return found


def plain_fields(
    fields: Mapping[str, Any], sensitive: Collection[str], names: Iterable[str] | None = None
) -> dict[str, Any]:
    if names is None:
        return {k: plain(v) for k, v in fields.items() if k not in sensitive}
    return {k: plain(fields[k]) for k in names if k in fields and k not in sensitive}


def plain(value: Any) -> Any:
    """``value`` as CEL reads it: references as the address they name, secrets masked."""
    kind = type(value)
    if value is None or kind in _SCALARS:
        return value
    if kind is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [plain(v) for v in value]
    # References and secrets say what they are as the plan JSON writes them (checked before
    # the abstract Mapping: an isinstance against an ABC costs ten times a type test).
    json_form = getattr(value, "plan_json", None)
    if callable(json_form):
        doc = json_form()
        return SENSITIVE if "$secret" in doc else doc.get("$ref", str(value))
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=str)
    return str(value)


def _hashable(value: Any) -> Any:
    """``value`` as a part of a key: itself when hashable and plain, else its canonical JSON
    (tagged, so that no string can pass for it)."""
    if value is None or value is _ABSENT or type(value) in _SCALARS:
        return value
    return ("json", json.dumps(value, sort_keys=True, default=repr))
