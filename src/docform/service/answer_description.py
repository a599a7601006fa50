"""The shapes docform checks the service's answers against, derived from the service's
published definition.

``service_answers.json`` beside this module holds, for every GET route a kind reads, the answer
the definition gives (each item's, for a list), cut down to the fields the kinds read
(`docform.service.extract`, written by ``make answers``). A kind says only which fields of an
answer it uses (`docform.kind_framework.declaration.Reads`); what the client demands of each
comes from the definition: a field is required exactly when the definition lists it as required
(in every alternative it allows), and it may hold exactly the types the definition allows (null
only where it allows null). So the client can never demand more than the service promises.

A field is named by its path in the answer: ``title``, ``user.email`` (a field of an object),
``nodes[]`` (each item of a list, checked for its type), ``siteSpaces[].space.id``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docform.service.answer_fields import NULL, Field, Shape

DESCRIPTION_FILE = Path(__file__).resolve().parent / "service_answers.json"
ITEMS = "[]"
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "object": (dict,),
    "null": (NULL,),
}
_ANY = (str, bool, int, float, list, dict, NULL)

Schema = Mapping[str, Any]
Node = dict[str, "Node"]


class AnswerDescriptionError(TypeError):
    """A read no description answers (a route or field the service does not describe): a bug
    in a kind, found when the kinds are registered."""


@dataclass(frozen=True)
class ReadShape:
    """What the client checks an answer of one GET route against: ``shape`` is the answer's,
    or when ``listed``, each item's of the list it answers."""

    listed: bool
    shape: Shape


@functools.cache
def description() -> dict[str, Any]:
    """The committed answers of the service's GET routes docform reads."""
    with DESCRIPTION_FILE.open(encoding="utf-8") as file:
        loaded: dict[str, Any] = json.load(file)
    return loaded


def described_routes(described: Mapping[str, Any] | None = None) -> list[str]:
    """Every GET path template the description answers."""
    return list((described or description())["routes"])


def read_shape(
    template: str,
    fields: Iterable[str],
    copes_without: Iterable[str] = (),
    copes_with_null: Iterable[str] = (),
    described: Mapping[str, Any] | None = None,
) -> ReadShape:
    """The shape of ``GET template``'s answer, holding ``fields`` as the description
    (``described``, else the committed one) has them, except that those of ``copes_without``
    may be missing and those of ``copes_with_null`` may be null (docform's own leniency: it
    reads an answer without one, or with null meaning "none", though the service promises
    otherwise)."""
    routes = (described or description())["routes"]
    if template not in routes:
        raise AnswerDescriptionError(
            f"GET {template}: the description of the service's answers has no such route "
            f"({DESCRIPTION_FILE.name}; a route newly read needs `make answers`)"
        )
    route = routes[template]
    where = f"GET {template}: "
    shape = _shape(field_tree(fields), objects_of(route["answer"]), where)
    for path in copes_without:
        shape = _relaxed(shape, path.split("."), where, _optional)
    for path in copes_with_null:
        shape = _relaxed(shape, path.split("."), where, _nullable)
    return ReadShape(route["list"], shape)


def _optional(field: Field) -> Field:
    return replace(field, required=False)


def _nullable(field: Field) -> Field:
    return replace(field, types=_union((field.types, (NULL,))))


def _relaxed(shape: Shape, path: list[str], where: str, relax: Callable[[Field], Field]) -> Shape:
    name, rest = path[0], path[1:]
    field = shape.get(name)
    if field is None or (rest and field.shape is None):
        raise AnswerDescriptionError(f"{where}{'.'.join(path)} is no field read, so none to relax")
    if rest:
        assert field.shape is not None
        changed = replace(field, shape=_relaxed(field.shape, rest, f"{where}{name}.", relax))
    else:
        changed = relax(field)
    return {**shape, name: changed}


def field_tree(fields: Iterable[str]) -> Node:
    """``["user.email", "user.id", "nodes[]"]`` as
    ``{user: {email: {}, id: {}}, nodes: {[]: {}}}``."""
    tree: Node = {}
    for path in fields:
        node = tree
        for part in path.split("."):
            name, listed = (part[: -len(ITEMS)], True) if part.endswith(ITEMS) else (part, False)
            node = node.setdefault(name, {})
            if listed:
                node = node.setdefault(ITEMS, {})
    return tree


def objects_of(schema: Schema) -> list[Schema]:
    """The object schemas ``schema`` allows: itself, or each object among its alternatives."""
    return _of_type(schema, "object")


def _of_type(schema: Schema, kind: str) -> list[Schema]:
    return [a for a in _alternatives(schema) if kind in _types(a)]


def _alternatives(schema: Schema) -> list[Schema]:
    alternatives: list[Schema] = schema.get("anyOf", [schema])
    return alternatives


def value_types(schema: Schema) -> tuple[type, ...]:
    """The Python types of the values ``schema`` allows (every type when it says none)."""
    names = [_types(alternative) for alternative in _alternatives(schema)]
    if not all(names):
        return _ANY
    return _union(_JSON_TYPES[name] for group in names for name in group)


def _types(schema: Schema) -> list[str]:
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _union(groups: Iterable[tuple[type, ...]]) -> tuple[type, ...]:
    found = {t for group in groups for t in group}
    return tuple(t for t in _ANY if t in found)


def _shape(tree: Node, objects: list[Schema], where: str) -> Shape:
    if not objects:
        raise AnswerDescriptionError(f"{where.rstrip('.: ')} is no object in the description")
    shape: dict[str, Field] = {}
    for name, node in tree.items():
        holding = [s for s in (_property(o, name) for o in objects) if s is not None]
        if not holding:
            raise AnswerDescriptionError(
                f"{where}{name} is no field of the answer in the description of the "
                f"service's answers ({DESCRIPTION_FILE.name}; a field newly read needs `make "
                "answers`, which refuses one the service's definition lacks)"
            )
        required = all(name in o.get("required", ()) for o in objects)
        shape[name] = _field(holding, required, node, f"{where}{name}")
    return shape


def _property(obj: Schema, name: str) -> Schema | None:
    properties: dict[str, Schema] = obj.get("properties", {})
    return properties.get(name)


def _field(schemas: list[Schema], required: bool, node: Node, where: str) -> Field:
    fields = {name: sub for name, sub in node.items() if name != ITEMS}
    shape = None
    if fields:
        objects = [o for s in schemas for o in objects_of(s)]
        shape = _shape(fields, objects, where + ".")
    items = None
    if ITEMS in node:
        lists = [s for schema in schemas for s in _of_type(schema, "array")]
        if not lists:
            raise AnswerDescriptionError(f"{where} is no list in the description")
        item_schemas = [s.get("items", {}) for s in lists]
        items = _field(item_schemas, True, node[ITEMS], where + ITEMS)
    return Field(_union(value_types(s) for s in schemas), required, shape, items)


def within(name: str, fields: Iterable[str]) -> tuple[str, ...]:
    """``fields`` of the object in field ``name``: ``within("user", ["email"])`` is
    ``("user.email",)``."""
    return tuple(f"{name}.{field}" for field in fields)
