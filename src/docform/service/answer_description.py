"""The shapes docform checks the service's answers against, derived from the one description of
those answers.

The sandbox's route modules describe every answer in JSON Schema, and
``service_answers.json`` beside this module holds the description of every GET answer, written
from them (`docform_sandbox.service_answers`, ``make answers``). A kind says only which fields
of an answer it uses (`docform.kind_framework.declaration.Reads`); what the client demands of
each comes from the description: a field is required exactly when the description lists it as
required (in every alternative it allows), and it may hold exactly the types the description
allows (null only where the description allows null). So the client can never demand more
than the service promises, and the two cannot drift apart.

A field is named by its path in the answer: ``title``, ``user.email`` (a field of an object),
``nodes[]`` (each item of a list, checked for its type), ``siteSpaces[].space.id``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
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
_LIST_ENVELOPE = {"items", "count", "next", "previous"}

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
    """The committed description of the service's GET answers."""
    with DESCRIPTION_FILE.open(encoding="utf-8") as file:
        loaded: dict[str, Any] = json.load(file)
    return loaded


def described_routes() -> list[str]:
    """Every GET path template the description answers."""
    return list(description()["paths"])


def read_shape(
    template: str, fields: Iterable[str], copes_without: Iterable[str] = ()
) -> ReadShape:
    """The shape of ``GET template``'s answer, holding ``fields`` as the description has them,
    except that those of ``copes_without`` may be missing (docform's own leniency: it reads an
    answer without one, though the service promises it)."""
    paths = description()["paths"]
    if template not in paths:
        raise AnswerDescriptionError(
            f"GET {template}: the description of the service's answers has no such route "
            f"({DESCRIPTION_FILE.name}; a new sandbox route needs `make answers`)"
        )
    answer = resolved(paths[template])
    items = list_items(answer)
    tree = field_tree(fields)
    where = f"GET {template}: "
    shape = _shape(tree, objects_of(answer if items is None else items), where)
    for path in copes_without:
        shape = _relaxed(shape, path.split("."), where)
    return ReadShape(items is not None, shape)


def _relaxed(shape: Shape, path: list[str], where: str) -> Shape:
    name, rest = path[0], path[1:]
    field = shape.get(name)
    if field is None or (rest and field.shape is None):
        raise AnswerDescriptionError(f"{where}{'.'.join(path)} is no field read, so none to relax")
    if rest:
        assert field.shape is not None
        changed = replace(field, shape=_relaxed(field.shape, rest, f"{where}{name}."))
    else:
        changed = replace(field, required=False)
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


def resolved(schema: Schema) -> Schema:
    """``schema``, or the object it refers to (``#/components/schemas/Team``)."""
    objects = description()["components"]["schemas"]
    while "$ref" in schema:
        schema = objects[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def list_items(answer: Schema) -> Schema | None:
    """The schema of each item when ``answer`` is a list (``{items, count, next?}``)."""
    properties = answer.get("properties", {})
    if (
        answer.get("type") == "object"
        and "items" in properties
        and set(properties) <= _LIST_ENVELOPE
    ):
        return resolved(properties["items"].get("items", {}))
    return None


def objects_of(schema: Schema) -> list[Schema]:
    """The object schemas ``schema`` allows: itself, or each object among its alternatives."""
    return _of_type(schema, "object")


def _of_type(schema: Schema, kind: str) -> list[Schema]:
    schema = resolved(schema)
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return [s for alternative in alternatives for s in _of_type(alternative, kind)]
    return [schema] if schema.get("type") == kind else []


def value_types(schema: Schema) -> tuple[type, ...]:
    """The Python types of the values ``schema`` allows (every type when it says none)."""
    schema = resolved(schema)
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return _union(value_types(alternative) for alternative in alternatives)
    if "const" in schema:
        return (type(schema["const"]),)
    if "enum" in schema:
        return _union((NULL,) if v is None else (type(v),) for v in schema["enum"])
    kind = schema.get("type")
    if kind is None:
        return _ANY
    names = kind if isinstance(kind, list) else [kind]
    return _union(_JSON_TYPES[name] for name in names)


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
                f"service's answers ({DESCRIPTION_FILE.name})"
            )
        required = all(name in o.get("required", ()) for o in objects)
        shape[name] = _field(holding, required, node, f"{where}{name}")
    return shape


def _property(obj: Schema, name: str) -> Schema | None:
    if name in obj.get("properties", {}):
        return resolved(obj["properties"][name])
    more = obj.get("additionalProperties")
    return resolved(more) if isinstance(more, dict) else None


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
        item_schemas = [resolved(s.get("items", {})) for s in lists]
        items = _field(item_schemas, True, node[ITEMS], where + ITEMS)
    return Field(_union(value_types(s) for s in schemas), required, shape, items)


def within(name: str, fields: Iterable[str]) -> tuple[str, ...]:
    """``fields`` of the object in field ``name``: ``within("user", ["email"])`` is
    ``("user.email",)``."""
    return tuple(f"{name}.{field}" for field in fields)
