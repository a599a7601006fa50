"""The shapes of what a policy rule reads, for `docform validate` to check rules against
without the network (docs/policies.md documents them)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from docform.kind_registry import KIND_CLASSES, declaration_of, nested_fields
from docform.model.entry import IDENTITY_FIELDS, BoundModel
from docform.policies.expressions import (
    BOOL,
    DYN,
    NUMBER,
    STRING,
    InputType,
    Usage,
    list_of,
    map_of,
    object_type,
)


def kind_fields() -> dict[str, tuple[str, ...]]:
    """The fields a rule may read of each kind's objects: those its manifest entries have, the
    kinds of the entries holding it (a section's ``site``), and those the kind adds."""
    holders = _holders()
    found: dict[str, tuple[str, ...]] = {}
    for cls in KIND_CLASSES:
        declaration = declaration_of(cls)
        holder = declaration.section or declaration.nested
        if holder is None:
            continue
        model = holder.entry
        names = [n for n in model.model_fields if n not in IDENTITY_FIELDS]
        names = [n for n in names if n not in model.child_fields]
        names += [*holders.get(model, ()), *cls.fields_beyond_entry]
        found[cls.name] = tuple(dict.fromkeys(names))
    return found


def _holders() -> dict[type[BoundModel], tuple[str, ...]]:
    """For each nested entry model, the kinds of the entries it is written in, outermost
    first (a site space: site, section)."""
    found: dict[type[BoundModel], tuple[str, ...]] = {}

    def walk(model: type[BoundModel], outer: tuple[str, ...]) -> None:
        children = dict(nested_fields(model))
        for name in sorted(model.child_fields & set(children)):
            entry = children[name]
            if entry not in found:
                found[entry] = (*outer, model.kind)
                walk(entry, found[entry])

    for cls in KIND_CLASSES:
        section = declaration_of(cls).section
        if section is not None:
            walk(section.entry, ())
    return found


@cache
def object_types() -> dict[str, InputType]:
    """The shape of one object of each kind, in ``desired`` and ``live``."""
    types = {}
    for kind, names in kind_fields().items():
        types[kind] = object_type(
            f"{kind} object",
            address=STRING,
            id=STRING,
            kind=STRING,
            title=STRING,
            managed=BOOL,
            createdAt=STRING,
            updatedAt=STRING,
            fields=object_type(f"{kind} fields", **dict.fromkeys(names, DYN)),
        )
    return types


CHANGE = object_type(
    "change",
    address=STRING,
    kind=STRING,
    action=STRING,
    human_key=STRING,
    id=STRING,
    before=map_of(DYN),
    after=map_of(DYN),
    fields=list_of(object_type("field change", path=STRING, before=DYN, after=DYN)),
    replacement=BOOL,
)


@cache
def input_types() -> dict[str, InputType]:
    """Every variable a rule may read, with its shape (``object`` and ``change`` only where
    the policy is evaluated for each object or change)."""
    organization = object_type("organization", **{k: list_of(t) for k, t in object_types().items()})
    plan = object_type(
        "plan",
        organization=STRING,
        changes=list_of(CHANGE),
        summary=map_of(NUMBER),
        live_counts=map_of(NUMBER),
        unmanaged=list_of(object_type("unmanaged object", kind=STRING, id=STRING, title=STRING)),
        labels=list_of(STRING),
        deletions=map_of(NUMBER),
    )
    return {
        "plan": plan,
        "desired": organization,
        "live": organization,
        "tally": tally_type(),
        "change": CHANGE,
    }


@cache
def tally_type() -> InputType:
    """``tally.SIDE.KIND.FIELD``: how many objects have each value of a field, by the value
    as text (``tally.desired.member.role['admin']``): counts that need no comprehension."""
    kinds = {
        kind: object_type(f"{kind} tally", **{f: map_of(NUMBER) for f in names})
        for kind, names in kind_fields().items()
    }
    side = object_type("tally of a side", **kinds)
    return object_type("tally", desired=side, live=side)


@dataclass(frozen=True)
class Wanted:
    """What the policies read of one kind's objects (or of the plan's changes): the object's
    own keys and the names in its ``fields``; None for all of them. Only that is built: a
    plan of 20,000 objects read for one field costs a rule little."""

    keys: frozenset[str] | None = None
    fields: frozenset[str] | None = None

    def key(self, name: str) -> bool:
        return self.keys is None or name in self.keys

    def union(self, other: Wanted) -> Wanted:
        keys = None if self.keys is None or other.keys is None else self.keys | other.keys
        fields = None if self.fields is None or other.fields is None else self.fields | other.fields
        return Wanted(keys, fields)


ALL = Wanted()


def wanted(shape: InputType, used: Usage) -> Wanted:
    """What ``used`` reads of objects of ``shape`` (an object with ``fields``, or a change)."""
    if id(shape) in used.whole or shape.fields is None:
        return ALL
    keys = used.selected.get(id(shape), frozenset())
    # The fields of an object, or the before and after of a change: what a rule reads of them.
    inner = [shape.fields[k] for k in ("fields", "before", "after") if k in shape.fields]
    named = [t for t in inner if t.fields is not None or t.is_map]
    if any(id(t) in used.whole for t in named) or not named:
        return Wanted(frozenset(keys), None)
    return Wanted(
        frozenset(keys), frozenset().union(*(used.selected.get(id(t), ()) for t in named))
    )
