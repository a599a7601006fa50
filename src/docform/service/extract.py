"""What docform needs of the service's published definition, taken out of it: the answers of the
GET operations the kinds read, cut down to the fields they use.

The definition (OpenAPI 3.1, the npm package ``@gitbook/api``) is a development dependency, pinned
in ``.ci/node-tools``; docform runs without it. So ``make answers`` (``scripts/service_answers.py``)
writes ``service_answers.json`` beside this module from it, and `docform.service.answer_description`
derives the client's checks from that file. A test fails while the file differs from what the
pinned definition gives.

Each route's answer (each item's, for a list) is written in a small part of JSON Schema that
says what the client checks and nothing else: an object's ``properties`` (only the fields read)
and ``required``, a list's ``items``, a value's ``type`` (a list of JSON types; ``{}`` for any),
and ``anyOf`` where the definition allows several alternatives. References are resolved,
``allOf`` is merged (its parts' fields together, required where any part requires them) and
nested ``oneOf``/``anyOf`` are flattened, so the reader needs none of them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from docform.service.answer_description import ITEMS, Node, field_tree

Tree = Node

Schema = dict[str, Any]
REF = "#/components/schemas/"
LIST_ENVELOPE = {"items", "count", "next", "previous"}
JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")
_PARAMETER = re.compile(r"\{\w+\}")
ABOUT = (
    "The answers of the service's GET operations docform reads, by path template (* for a path "
    "parameter), cut down to the fields it reads. Written from the service's published "
    "definition by `make answers`; do not edit."
)


class ExtractError(ValueError):
    """A read the definition does not answer: a route it lacks, or a field it does not hold."""


def template(path: str) -> str:
    """``/orgs/{organizationId}/teams`` as ``/orgs/*/teams``."""
    return _PARAMETER.sub("*", path)


class Definition:
    """The published definition, read for the answers of its GET operations."""

    def __init__(self, document: Mapping[str, Any], items_as: Mapping[str, str]) -> None:
        self.document = document
        self.items_as = items_as
        self.schemas: Mapping[str, Schema] = document["components"]["schemas"]
        self.get_paths = {
            template(path): path for path, item in document["paths"].items() if "get" in item
        }

    def resolved(self, schema: Schema) -> Schema:
        seen = 0
        while "$ref" in schema:
            reference = schema["$ref"]
            if not reference.startswith(REF) or seen > len(self.schemas):
                raise ExtractError(f"a reference the definition does not resolve: {reference}")
            schema, seen = self.schemas[reference[len(REF) :]], seen + 1
        return schema

    def answer(self, route: str) -> tuple[str, str, Schema]:
        """The definition's path, operation id and success answer of ``GET route``."""
        path = self.get_paths.get(route)
        if path is None:
            raise ExtractError(f"GET {route}: the service's definition has no such operation")
        operation = self.document["paths"][path]["get"]
        success = operation["responses"].get("200", {})
        content = success.get("content", {}).get("application/json")
        if content is None:
            raise ExtractError(f"GET {route}: the definition gives no JSON answer for 200")
        return path, operation.get("operationId", ""), content["schema"]

    def read(self, route: str) -> tuple[str, str, Schema, bool]:
        """The definition's path, operation id, answer (each item's, for a list) of ``GET
        route``, and whether it answers a list."""
        path, operation, answer = self.answer(route)
        items = self.list_items(answer)
        if items is None:
            return path, operation, answer, False
        if route in self.items_as:
            _, _, single = self.answer(self.items_as[route])
            return path, operation, single, True
        return path, operation, items, True

    def list_items(self, answer: Schema) -> Schema | None:
        """Each item's schema when ``answer`` is a list (``{items: [...], count?, next?}``)."""
        answer = self.resolved(answer)
        properties: dict[str, Schema] = {}
        for part in [answer, *answer.get("allOf", ())]:
            properties.update(self.resolved(part).get("properties", {}))
        items = self.resolved(properties.get("items", {}))
        if items.get("type") != "array" or not set(properties) <= LIST_ENVELOPE:
            return None
        return self.resolved(items.get("items", {}))

    def cut(self, schema: Schema, tree: Tree, where: str) -> Schema:
        """``schema`` as the reader needs it for the fields of ``tree``."""
        alternatives = self.alternatives(schema, tree, where)
        if len(alternatives) == 1:
            return alternatives[0]
        return {"anyOf": alternatives}

    def alternatives(self, schema: Schema, tree: Tree, where: str = "") -> list[Schema]:
        """The values ``schema`` allows, one cut-down schema per alternative."""
        schema = self.resolved(schema)
        choices = schema.get("oneOf") or schema.get("anyOf")
        if choices:
            # A oneOf beside properties (a base and its variants) is the base with each variant.
            base = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
            found = [
                a
                for choice in choices
                for a in self.alternatives(
                    {"allOf": [base, choice]} if base else choice, tree, where
                )
            ]
            return _unique(found)
        if "allOf" in schema:
            base = {k: v for k, v in schema.items() if k != "allOf"}
            parts = [self.alternatives(p, tree, where) for p in [*schema["allOf"], base] if p]
            merged = (_merged(combination) for combination in itertools.product(*parts))
            return _unique([m for m in merged if m is not None])
        return self._one(schema, tree, where)

    def _one(self, schema: Schema, tree: Tree, where: str) -> list[Schema]:
        types = _types(schema)
        fields = {name: sub for name, sub in tree.items() if name != ITEMS}
        shaped = set(schema) & {"properties", "required", "additionalProperties"}
        if fields and ("object" in types or (not types and shaped)):
            others = [t for t in types if t != "object"]
            return [self._object(schema, fields, where), *([{"type": others}] if others else [])]
        if ITEMS in tree and "array" in types:
            items = self.cut(schema.get("items", {}), tree[ITEMS], where + ITEMS)
            others = [t for t in types if t != "array"]
            return [{"type": "array", "items": items}, *([{"type": others}] if others else [])]
        return [{"type": types} if types else {}]

    def _object(self, schema: Schema, fields: Tree, where: str) -> Schema:
        properties: dict[str, Schema] = {}
        declared = schema.get("properties", {})
        more = schema.get("additionalProperties")
        required = sorted(name for name in schema.get("required", ()) if name in fields)
        for name, sub in fields.items():
            if name in declared:
                properties[name] = self.cut(declared[name], sub, f"{where}{name}.")
            elif isinstance(more, dict):
                properties[name] = self.cut(more, sub, f"{where}{name}.")
            elif name in required:
                properties[name] = {}
        return {"type": "object", "properties": properties, "required": required}


def _types(schema: Schema) -> list[str]:
    """The JSON types ``schema`` allows, or [] for any."""
    if "const" in schema:
        return [_json_type(schema["const"])]
    if "enum" in schema:
        return sorted({_json_type(value) for value in schema["enum"]}, key=JSON_TYPES.index)
    kind = schema.get("type")
    if kind is None:
        return []
    return sorted(set(kind if isinstance(kind, list) else [kind]), key=JSON_TYPES.index)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names[type(value)]


def _merged(parts: Iterable[Schema]) -> Schema | None:
    """One schema all of ``parts`` hold at once, or None when they cannot all hold."""
    merged: Schema | None = {}
    for part in parts:
        merged = _both(merged, part)
    return merged


def _both(a: Schema | None, b: Schema) -> Schema | None:
    if a is None:
        return None
    if not a or not b:
        return a or b
    types = _common_types(a.get("type", list(JSON_TYPES)), b.get("type", list(JSON_TYPES)))
    if not types:
        return None
    if "properties" in a or "properties" in b:
        properties = dict(a.get("properties", {}))
        for name, value in b.get("properties", {}).items():
            both = _both(properties.get(name, {}), value)
            if both is None:
                return None
            properties[name] = both
        required = sorted({*a.get("required", ()), *b.get("required", ())})
        return {"type": "object", "properties": properties, "required": required}
    if "items" in a or "items" in b:
        items = _both(a.get("items", {}), b.get("items", {}))
        return None if items is None else {"type": "array", "items": items}
    return {"type": types}


def _common_types(a: Any, b: Any) -> list[str]:
    a, b = set(a if isinstance(a, list) else [a]), set(b if isinstance(b, list) else [b])
    # An integer is a number: what allows numbers and what allows integers both allow integers.
    if ("number" in a and "integer" in b) or ("number" in b and "integer" in a):
        a, b = a | {"integer"}, b | {"integer"}
    return sorted(a & b, key=JSON_TYPES.index)


def _unique(schemas: list[Schema]) -> list[Schema]:
    found: dict[str, Schema] = {}
    for schema in schemas:
        found.setdefault(json.dumps(schema, sort_keys=True), schema)
    return list(found.values())


def extracted(
    document: Mapping[str, Any],
    version: str,
    reads: Mapping[str, Mapping[str, Iterable[str]]],
    items_as: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The answers ``reads`` (by kind: the fields read at each GET route) need of the definition
    ``document`` (@gitbook/api ``version``); ``items_as``: list routes whose items are read as
    another route's answer. A route or field it lacks is refused, naming the kind."""
    definition = Definition(document, items_as or {})
    wanted: dict[str, dict[str, None]] = {}
    problems = []
    for kind, routes in reads.items():
        for route, fields in routes.items():
            problems += [f"the {kind} kind reads {p}" for p in _misses(definition, route, fields)]
            wanted.setdefault(route, {}).update(dict.fromkeys(fields))
    if problems:
        raise ExtractError("\n".join(problems))
    answers = {}
    for route in sorted(wanted):
        path, operation, answer, listed = definition.read(route)
        answers[route] = {
            "operation": operation,
            "path": path,
            "list": listed,
            "answer": definition.cut(answer, field_tree(wanted[route]), ""),
        }
        if route in definition.items_as:
            answers[route]["items_as"] = definition.read(definition.items_as[route])[0]
    return {"about": ABOUT, "definition": f"@gitbook/api {version}", "routes": answers}


def _misses(definition: Definition, route: str, fields: Iterable[str]) -> list[str]:
    """Why the definition does not answer ``fields`` at ``GET route``: the route, or each field
    that no alternative of its answer holds."""
    try:
        _, _, answer, _ = definition.read(route)
    except ExtractError as exc:
        return [str(exc)]
    cut = definition.cut(answer, field_tree(fields), "")
    return [
        f"GET {route}: {field} is no field of the answer in the service's definition"
        for field in fields
        if not _holds(cut, field.replace(ITEMS, "." + ITEMS).split("."))
    ]


def _holds(schema: Schema, path: list[str]) -> bool:
    if not path:
        return True
    alternatives = schema.get("anyOf", [schema])
    name, rest = path[0], path[1:]
    for alternative in alternatives:
        if name == ITEMS and "items" in alternative and _holds(alternative["items"], rest):
            return True
        inner = alternative.get("properties", {}).get(name)
        if inner is not None and _holds(inner, rest):
            return True
    return False


def rendered(
    document: Mapping[str, Any],
    version: str,
    reads: Mapping[str, Mapping[str, Iterable[str]]],
    items_as: Mapping[str, str] | None = None,
) -> str:
    """The file's text: stable, so that an unchanged definition leaves no diff."""
    extract = extracted(document, version, reads, items_as)
    return json.dumps(extract, indent=1, sort_keys=True) + "\n"
