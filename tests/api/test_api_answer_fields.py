"""docform's client accepts every answer the service may send to the routes docform reads: one
with only the fields the service promises in every answer, and one with every field the
service's published definition lists.

The routes are the ones the kinds declare they read (`docform.kind_registry`), each found among
the operations of the pinned definition (tests/contract/contract_definition.py), its answer
taken from there: a new kind's read route is checked with no change here. Each answer is served
by an httpx transport to a real `ApiClient`, which checks it (`docform.api.shapes`) exactly as
it checks the service's, and must hand it back unchanged. The shapes the client checks are
derived from the extract of the definition in the package (`docform.service.answer_description`,
`make answers`); they are compared here with the whole definition, field by field, by a reading
of its own: a field is needed exactly when every answer holds it, and every type the service
may send is accepted.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from typing import Any

import httpx
import pytest
from contract_definition import Definition
from jsonschema.exceptions import ValidationError

from conftest import needs_the_definition
from docform import kind_registry
from docform.service.answer_fields import NULL, Field, Shape
from docform.workflow.connect import KIND_SHAPES, Client

needs_the_definition()

DEFINITION = Definition()
TIME = "2026-01-02T03:04:05.000Z"

# -- the routes the kinds read, and their descriptions -----------------------------------------


IDS = {"orgs": "org1", "spaces": "sp1", "teams": "t1", "sites": "s1", "collections": "c1"}


def concrete(template: str) -> str:
    """A path of ``template`` (``/orgs/*/teams`` -> ``/orgs/org1/teams``)."""
    parts = template.split("/")
    return "/".join(
        IDS.get(parts[n - 1], "x1") if part == "*" else part for n, part in enumerate(parts)
    )


ITEMS_AS = kind_registry.items_read_as()


def described_answer(template: str) -> dict[str, Any]:
    """The definition's success answer of ``GET template``."""
    operation = DEFINITION.operation("GET", concrete(template))
    assert operation is not None, f"the definition has no GET {template}, which a kind reads"
    response = DEFINITION.resolve(operation.node["responses"]["200"])
    schema: dict[str, Any] = response["content"]["application/json"]["schema"]
    return schema


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    return DEFINITION.resolve(schema)


@functools.cache  # kept alive: the definition's validators are cached by the schema's id
def object_schema(template: str) -> dict[str, Any]:
    """The object ``template`` answers (for a list route: each of its items, or the object
    the route its items are read as answers)."""
    if template in ITEMS_AS:
        return described_answer(ITEMS_AS[template])
    answer = described_answer(template)
    if template in KIND_SHAPES.items:
        (listed,) = [o for o in objects_of(answer) if "items" in o["properties"]]
        return resolved(listed["properties"]["items"]["items"])
    return answer


READ_ROUTES = sorted(KIND_SHAPES.templates())
OBJECT_ROUTES = {concrete(t) for t in KIND_SHAPES.objects}


def test_the_kinds_read_routes_are_all_here() -> None:
    assert len(READ_ROUTES) >= 19 and "/user" in READ_ROUTES


@pytest.mark.parametrize("template", READ_ROUTES)
def test_every_route_docform_reads_has_its_answer_described(template: str) -> None:
    assert objects_of(object_schema(template))


# -- each kind's shape against the definition --------------------------------------------------

JSON_TYPES = {
    "string": {str},
    "boolean": {bool},
    "integer": {int},
    "number": {int, float},
    "object": {dict},
    "array": {list},
    "null": {NULL},
}


def value_types(schema: dict[str, Any]) -> set[type]:
    """The Python types of the values ``schema`` allows."""
    schema = resolved(schema)
    if "allOf" in schema:
        parts = [value_types(s) for s in schema["allOf"]]
        return set.intersection(*parts) if parts else set()
    for alternatives in ("anyOf", "oneOf"):
        if alternatives in schema:
            return set().union(*(value_types(s) for s in schema[alternatives]))
    if "const" in schema:
        return {type(schema["const"])}
    if "enum" in schema:
        return {NULL if v is None else type(v) for v in schema["enum"]}
    kind = schema.get("type", list(JSON_TYPES))
    return set().union(*(JSON_TYPES[k] for k in (kind if isinstance(kind, list) else [kind])))


def _together(objects: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for found in objects:
        merged["properties"].update(found.get("properties", {}))
        merged["required"] += found.get("required", [])
    return merged


def objects_of(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas ``schema`` allows (one, or each object among its alternatives); the
    parts of an ``allOf`` as one object (their fields together, required where any requires)."""
    schema = resolved(schema)
    if "allOf" in schema:
        parts = [found for found in (objects_of(p) for p in schema["allOf"]) if found]
        return (
            [_together(combination) for combination in itertools.product(*parts)] if parts else []
        )
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        return [o for s in alternatives for o in objects_of({"allOf": [base, s]} if base else s)]
    is_object = schema.get("type") == "object" or "properties" in schema
    return [schema] if is_object else []


COPED_WITHOUT = {
    f"{template}.{path}"
    for d in kind_registry.declarations()
    for template, paths in d.reads.copes_without.items()
    for path in paths
}
"""The fields a kind reads an answer without, though the definition promises them."""
NULL_READ = {
    f"{template}.{path}"
    for d in kind_registry.declarations()
    for template, paths in d.reads.copes_with_null.items()
    for path in paths
}
"""The fields a kind reads null in, though the definition never sends null there."""


def shape_misfits(shape: Shape, objects: list[dict[str, Any]], where: str) -> list[str]:
    """Where ``shape`` asks more than ``objects`` (the alternatives an answer may be) promise,
    or refuses a value they allow."""
    wrong = []
    for name, field in shape.items():
        at = f"{where}.{name}"
        holding = [o["properties"][name] for o in objects if name in o.get("properties", {})]
        if not holding:
            wrong.append(f"{at} is not in the definition")
        elif field.required != (
            all(name in o.get("required", ()) for o in objects) and at not in COPED_WITHOUT
        ):
            promise = "leaves it optional" if field.required else "promises it in every answer"
            wrong.append(
                f"{at} is {'' if field.required else 'not '}needed, but the definition {promise}"
            )
        for schema in holding:
            wrong += field_misfits(field, schema, at, nullable=at in NULL_READ)
    return wrong


def field_misfits(
    field: Field, schema: dict[str, Any], at: str, nullable: bool = False
) -> list[str]:
    sent = value_types(schema) | ({NULL} if nullable else set())
    refused = sent - set(field.types)
    if refused:
        return [f"{at} refuses {sorted(t.__name__ for t in refused)}, which the definition allows"]
    beyond = set(field.types) - sent - {float}
    if beyond:
        return [
            f"{at} accepts {sorted(t.__name__ for t in beyond)}, which the definition never sends"
        ]
    if field.shape is not None:
        return shape_misfits(field.shape, objects_of(schema), at)
    items = [resolved(s)["items"] for s in arrays_of(schema)]
    if field.items is not None and items:
        return [wrong for item in items for wrong in field_misfits(field.items, item, f"{at}[]")]
    return []


def arrays_of(schema: dict[str, Any]) -> list[dict[str, Any]]:
    schema = resolved(schema)
    alternatives = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf")
    if alternatives:
        return [a for s in alternatives for a in arrays_of(s)]
    return [schema] if schema.get("type") == "array" and "items" in schema else []


@pytest.mark.parametrize("template", READ_ROUTES)
def test_the_client_checks_what_the_description_promises(template: str) -> None:
    """A field is needed exactly when every answer holds it (unless a kind copes without it);
    every field a kind reads is one the service sends, with exactly the types the service may
    send it as."""
    path = concrete(template)
    shape = KIND_SHAPES.object_shape(path) or KIND_SHAPES.item_shape(path)
    assert shape is not None
    assert shape_misfits(shape, objects_of(object_schema(template)), template) == []


# -- answers with every field, and with only the required ones -------------------------------


def example(schema: dict[str, Any], *, every_field: bool) -> Any:
    """A value of ``schema`` with every optional field present, or only the required ones (the
    first of alternatives)."""
    schema = resolved(schema)
    objects = objects_of(schema)
    if "allOf" in schema and not objects:
        typed = [p for p in schema["allOf"] if set(resolved(p)) - {"description", "title"}]
        # The part naming the values (a type beside a oneOf of enums) is the one to follow.
        typed.sort(key=lambda part: not {"enum", "const"} & set(resolved(part)))
        return example(typed[0], every_field=every_field)
    if "allOf" in schema or ("properties" in schema and len(objects) == 1):
        merged = objects[0]
        properties = merged.get("properties", {})
        required = merged.get("required", [])
        names = properties if every_field else dict.fromkeys(required)
        return {name: example(properties.get(name, {}), every_field=every_field) for name in names}
    if "anyOf" in schema or "oneOf" in schema:
        first = (schema.get("anyOf") or schema["oneOf"])[0]
        base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        return example({"allOf": [base, first]} if base else first, every_field=every_field)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    kind = schema.get("type", "string")
    kind = next(k for k in kind if k != "null") if isinstance(kind, list) else kind
    if kind == "array":
        return [example(schema.get("items", {}), every_field=every_field)]
    if kind == "object":
        return {}
    if kind == "string":
        formats = {"date-time": TIME, "uri": "https://service.test/x", "email": "a@b.test"}
        a_path = schema.get("pattern", "").startswith("^/")  # a redirect's source
        return formats.get(schema.get("format", ""), "/x1" if a_path else "x1")
    return {"boolean": True, "integer": 1, "number": 1}[kind]


def described_example(template: str, *, every_field: bool) -> dict[str, Any]:
    answer: dict[str, Any] = example(object_schema(template), every_field=every_field)
    path = concrete(template)
    if path in OBJECT_ROUTES and template.endswith("/*"):
        answer["id"] = path.rsplit("/", 1)[-1]  # the client checks it is the one asked for
    return answer


def test_the_full_answers_hold_every_field_the_minimal_ones_leave_out() -> None:
    member = described_example("/orgs/*/members", every_field=True)
    assert {"email", "photoURL"} <= set(member["user"])
    minimal = described_example("/orgs/*/members", every_field=False)
    assert not {"email", "photoURL"} & set(minimal["user"])
    assert "lastSeenAt" in member
    assert "defaultTeam" in described_example("/orgs/*/saml", every_field=True)
    assert "lastSeenAt" not in described_example("/orgs/*/members", every_field=False)


def read_through_client(path: str, answer: dict[str, Any]) -> Any:
    """What `ApiClient` returns for ``GET path`` when the service answers ``answer`` (as the
    only item of a list, for a list route)."""
    body = answer if path in OBJECT_ROUTES else {"count": 1, "items": [answer]}

    def service(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1" + path
        return httpx.Response(200, json=body)

    async def read() -> Any:
        transport = httpx.MockTransport(service)
        async with Client("https://service.test", "tok_fields_0123456789",
                             transport=transport, read_only=True) as client:  # fmt: skip
            if path in OBJECT_ROUTES:
                return await client.get(path)
            return await client.list_all(path)

    return asyncio.run(read())


@pytest.mark.parametrize("every_field", [True, False], ids=["every field", "required fields"])
@pytest.mark.parametrize("template", READ_ROUTES)
def test_an_answer_as_described_is_accepted(template: str, every_field: bool) -> None:
    answer = described_example(template, every_field=every_field)
    path = concrete(template)
    expected = answer if path in OBJECT_ROUTES else [answer]
    assert read_through_client(path, answer) == expected


PLACEHOLDER_MISFITS = ("pattern", "minLength", "maxLength", "format")


def placeholder_misfit(error: ValidationError) -> bool:
    """Whether ``error`` is only a placeholder string's, in the example or in one of the
    alternatives it could be (the one it fits but for its placeholders)."""
    if error.validator in PLACEHOLDER_MISFITS:
        return True
    if error.validator == "oneOf" and "valid under each of" in str(error.message):
        return True
    if error.validator in ("oneOf", "anyOf") and error.context:
        by_alternative: dict[Any, list[ValidationError]] = {}
        for inner in error.context:
            by_alternative.setdefault(inner.relative_schema_path[0], []).append(inner)
        return any(all(map(placeholder_misfit, errors)) for errors in by_alternative.values())
    return False


@pytest.mark.parametrize("every_field", [True, False], ids=["every field", "required fields"])
@pytest.mark.parametrize("template", READ_ROUTES)
def test_the_examples_fit_the_definition(template: str, every_field: bool) -> None:
    """The answers above have the fields and types the service may send (else accepting them
    proves little). Their strings are placeholders: the patterns and lengths a string must
    have are not what the client checks, nor are they here; an example that fits several
    alternatives fits the definition's fields all the same."""
    answer = described_example(template, every_field=every_field)
    problems = [
        f"{'/'.join(str(p) for p in error.absolute_path) or 'the answer'}: {error.message:.200}"
        for error in DEFINITION.validator(object_schema(template)).iter_errors(answer)
        if not placeholder_misfit(error)
    ]
    assert problems == []
