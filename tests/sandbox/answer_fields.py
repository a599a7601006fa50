"""The fields of an answer that the schema it is checked against does not name.

JSON Schema lets an object hold fields its ``properties`` do not list unless it says otherwise,
and the service's definition rarely says so: an answer can fit it and still carry a field the
definition never mentions. The sandbox sends none (docs/service.md, "Where the sandbox is
narrower"); this finds them. A field is named when any alternative of the schema (``allOf``,
``oneOf``, ``anyOf``, references followed) lists it, or allows more fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Schema = dict[str, Any]
REF = "#/components/schemas/"
UNNAMED = "a field the definition does not name"
#: An integration's declared setting is itself a JSON Schema, where the definition names no
#: keyword that marks a secret: the sandbox marks one with JSON Schema's own (docs/service.md,
#: "Integration configuration secrets"), and only there.
SECRET_MARKS = re.compile(
    r".*\.configurations\.(account|space|site)\.properties\.[^.]+\.(format|writeOnly)"
)


@dataclass
class Shape:
    """What the alternatives of a schema name, together."""

    properties: dict[str, list[Schema]] = field(default_factory=dict)
    more: list[Schema] = field(default_factory=list)
    open: bool = False
    items: list[Schema] = field(default_factory=list)

    def add(self, other: Shape) -> None:
        for name, values in other.properties.items():
            self.properties.setdefault(name, []).extend(values)
        self.more += other.more
        self.open = self.open or other.open
        self.items += other.items


def shape(schema: Schema, components: Mapping[str, Schema]) -> Shape | None:
    """What ``schema`` names, or None when it says nothing of fields (any are allowed)."""
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    found: Shape | None = None
    if {"properties", "additionalProperties", "patternProperties", "items"} & set(schema):
        more = schema.get("additionalProperties")
        found = Shape(
            properties={name: [value] for name, value in schema.get("properties", {}).items()},
            more=[more] if isinstance(more, dict) else [],
            open=more is True or "patternProperties" in schema,
            items=[schema["items"]] if "items" in schema else [],
        )
    # Every part of an allOf holds: a part silent about fields (one that adds `required`, or
    # a description) opens nothing. One alternative of a oneOf or anyOf that is silent does.
    parts = [shape(part, components) for part in schema.get("allOf", [])]
    for choice in schema.get("oneOf", []) + schema.get("anyOf", []):
        found_in_choice = shape(choice, components)
        if found_in_choice is None and may_be_an_object(choice, components):
            found_in_choice = Shape(open=True)
        parts.append(found_in_choice)
    for part in parts:
        if part is not None:
            found = found or Shape()
            found.add(part)
    return found


def may_be_an_object(schema: Schema, components: Mapping[str, Schema]) -> bool:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    if "const" in schema or "enum" in schema:
        return False
    kind = schema.get("type", "object")
    return "object" in (kind if isinstance(kind, list) else [kind])


def unnamed_fields(
    value: Any, schemas: list[Schema], components: Mapping[str, Schema], where: str = "$"
) -> list[str]:
    """The JSON paths of the fields of ``value`` that none of ``schemas`` names."""
    shapes = [shape(schema, components) for schema in schemas]
    if not isinstance(value, dict | list) or not shapes or None in shapes:
        return []
    found = Shape()
    for one in shapes:
        assert one is not None
        found.add(one)
    if isinstance(value, list):
        return [
            path
            for n, item in enumerate(value)
            for path in unnamed_fields(item, found.items, components, f"{where}[{n}]")
        ]
    paths = []
    for name, inner in value.items():
        named = found.properties.get(name) or found.more
        if named:
            paths += unnamed_fields(inner, named, components, f"{where}.{name}")
        elif not found.open and not SECRET_MARKS.fullmatch(f"{where}.{name}"):
            paths.append(f"{where}.{name}")
    return paths
