"""The check's compiled fit (contract_fit.py) answers as jsonschema does, and the check of an
exchange reports what a plain jsonschema validation of the definition reports: over a table of
schemas and values (every keyword compiled, those left to jsonschema, references that recur),
and over the sandbox's real answers spoiled one place and one way at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from contract_definition import FORMATS, MESSAGE_CHARS, Definition
from contract_fit import TYPES, FitCompiler
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conftest import SyncApi
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import copy_applied

COMPONENTS = {
    "Leaf": {"type": "string", "minLength": 1},
    "Tree": {
        "type": "object",
        "properties": {"a": {"$ref": "#/components/Tree"}, "b": {"$ref": "#/components/Leaf"}},
        "additionalProperties": False,
    },
}
DOCUMENT = "urn:test:fit"
SCHEMAS: list[Any] = [
    True,
    False,
    {},
    *({"type": name} for name in TYPES),
    {"type": ["string", "null"]},
    {"enum": ["a", "1", None]},
    {"enum": [True, 1, 1.5]},
    {"enum": [False, 0]},
    {"format": "date-time"},
    {"format": "uri"},
    {"format": "no-such-format"},
    {"type": "integer", "format": "int32"},
    {"minLength": 1, "maxLength": 2, "pattern": "^a"},
    {"pattern": "b"},
    {"minimum": 0, "maximum": 1},
    {"minItems": 1, "maxItems": 1, "items": {"type": "integer"}},
    {"items": False},
    {"required": ["a"], "properties": {"a": {"type": "integer"}}},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"properties": {"a": True}, "additionalProperties": {"type": "string"}},
    {"propertyNames": {"pattern": "^[ab]$"}, "minProperties": 1, "maxProperties": 1},
    {"allOf": [{"type": "number"}, {"minimum": 1}]},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"oneOf": [{"type": "string"}, {"enum": ["a", 1]}, {"type": "array"}]},
    {"$ref": "#/components/Tree"},
    {"$ref": "#/components/Leaf", "maxLength": 1},
    {"oneOf": [{"$ref": "#/components/Tree"}, {"type": "object", "required": ["c"]}]},
    # Keywords compiled in no way here: jsonschema answers for their node.
    {"const": 1},
    {"uniqueItems": True},
    {"not": {"type": "string"}},
    {"oneOf": [{"not": {"type": "integer"}}, {"type": "number"}]},
    {"patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": False},
    {"prefixItems": [{"type": "integer"}], "items": False},
    {"if": {"type": "integer"}, "then": {"minimum": 1}, "else": {"type": "string"}},
    {"$ref": "#/components/Missing"},
]
VALUES: list[Any] = [
    None, True, False, 0, 1, 1.0, 1.5, -1, 2**31, Decimal("1"), float("nan"),
    "", "a", "ab", "abc", "b", "1", "2026-11-29T12:00:00Z", "yesterday", "https://x.test/a",
    [], [1], [1, 1], [1, "a"], [True, 1], ["a", "a"], [[]],
    {}, {"a": 1}, {"b": "x"}, {"a": "x", "b": 2}, {"c": None}, {"ab": 1},
    {"a": {"a": {"b": "x"}}}, {"a": {"a": {"b": ""}}}, {"a": {"z": 1}}, {"a": {}, "c": 1},
]  # fmt: skip


def plain(schema: Any) -> Draft202012Validator:
    """jsonschema alone, the schema placed in the test's document (where its references
    resolve, as the check's schemas sit in the definition)."""
    document = {"components": COMPONENTS, "$defs": {"tried": schema}}
    resource = Resource(contents=document, specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(DOCUMENT, resource)
    return Draft202012Validator(
        {"$ref": DOCUMENT + "#/$defs/tried"}, registry=registry, format_checker=FORMATS
    )


def plain_valid(schema: Any, value: Any) -> bool | str:
    try:
        return bool(plain(schema).is_valid(value))
    except Exception as exc:
        return type(exc).__name__


def compiled_fits(compiler: FitCompiler, schema: Any, value: Any) -> bool | str:
    try:
        return compiler.compile(schema)(value)
    except Exception as exc:
        return type(exc).__name__


@pytest.mark.parametrize("schema", SCHEMAS, ids=json.dumps)
def test_a_compiled_schema_fits_exactly_the_values_jsonschema_finds_valid(schema: Any) -> None:
    document = {"components": COMPONENTS, "$defs": {"tried": schema}}
    compiler = FitCompiler(document, FORMATS, lambda node: plain(node).is_valid)
    wrong = [
        value
        for value in VALUES
        if compiled_fits(compiler, schema, value) != plain_valid(schema, value)
    ]
    assert wrong == []


@pytest.mark.parametrize("name", sorted(TYPES))
def test_each_type_holds_the_values_jsonschemas_type_checker_holds(name: str) -> None:
    checker = Draft202012Validator.TYPE_CHECKER
    assert [TYPES[name](v) for v in VALUES] == [checker.is_type(v, name) for v in VALUES]


# The sandbox's answers: examples/acme applied, each list cut to its first item (so that the
# spoiled copies stay few).
ROUTES = [
    "orgs/{org}", "orgs/{org}/members", "orgs/{org}/teams", "orgs/{org}/spaces",
    "orgs/{org}/collections", "orgs/{org}/sites", "orgs/{org}/sites/{site}/sections",
    "orgs/{org}/sites/{site}/site-spaces", "orgs/{org}/sites/{site}/customization",
    "orgs/{org}/saml", "orgs/{org}/openapi",
]  # fmt: skip
ACME_TOKEN = "tok_maria_sandbox_0123456789"


@pytest.fixture(scope="module")
def answers(
    acme_applied_once: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[tuple[str, Any]]]:
    _, sandbox = copy_applied(acme_applied_once, tmp_path_factory.mktemp("fit"))
    store = Store(sandbox)
    api = SyncApi(create_app(store, SandboxConfig()), ACME_TOKEN)
    try:
        found = []
        for route in ROUTES:
            path = "/v1/" + route.format(org="org_acme", site="site_devdocs")
            answer = api.get(path.removeprefix("/v1/"))
            assert answer.status_code == 200, (path, answer.text)
            found.append((path, cut(answer.json())))
        yield found
    finally:
        api.close()
        store.close()


def cut(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: cut(item) for key, item in value.items()}
    if isinstance(value, list):
        return [cut(item) for item in value[:1]]
    return value


WRONG_TYPE = {str: 5, int: "5", float: "5", bool: "true", type(None): 0, list: {}, dict: []}
SPOILED_SCALARS: dict[type, list[Any]] = {
    str: ["", "x" * 300, "not a uri, date or listed value ::"],
    int: [-1, 2**31, 1.5, 1.0, True],
    float: [-1, 1.0, False],
    bool: [1, 0],
}


def spoiled(answer: Any, place: int = 0) -> Iterator[tuple[str, Any]]:
    """Copies of ``answer``, each wrong in one place one way: a value of the wrong type or
    null; an empty, overlong or unlisted string, a number out of range or of another kind, or
    a bool given as a number (one of those per place, in turn); an empty or doubled list;
    each field of an object missing in turn, and an object with a field its schema does not
    name."""
    yield from _spoiled_here(answer, place)
    if isinstance(answer, dict):
        for index, (key, item) in enumerate(answer.items()):
            for how, changed in spoiled(item, place + index + 1):
                yield f"{key}: {how}", {**answer, key: changed}
    elif isinstance(answer, list):
        for index, item in enumerate(answer):
            for how, changed in spoiled(item, place + index + 1):
                yield f"[{index}]: {how}", [*answer[:index], changed, *answer[index + 1 :]]


def _spoiled_here(value: Any, place: int) -> Iterator[tuple[str, Any]]:
    yield "wrong type", WRONG_TYPE[type(value)]
    if value is not None:
        yield "null", None
    others = SPOILED_SCALARS.get(type(value), [])
    if others:
        other = others[place % len(others)]
        yield f"{other!r:.20}", other
    if isinstance(value, list):
        yield "empty", []
        yield "doubled", value + value
    if isinstance(value, dict):
        for key in value:
            yield f"without {key}", {k: v for k, v in value.items() if k != key}
        yield "an unnamed field", {**value, "unnamedField": 1}


def plain_mismatches(validator: Draft202012Validator, value: Any) -> list[tuple[str, str]]:
    """The JSON path and message of each error of jsonschema's own validation, as the check
    words a mismatch."""
    found = []
    for error in validator.iter_errors(value):
        best = best_match([error]) or error
        path = "$" + "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in best.absolute_path
        )
        message = best.message
        if len(message) > MESSAGE_CHARS:
            message = message[: MESSAGE_CHARS - 3] + "..."
        found.append((path, message))
    return found


def test_spoiled_answers_have_the_mismatches_of_a_plain_jsonschema_validation(
    answers: list[tuple[str, Any]],
) -> None:
    """Every spoiled copy fits exactly when jsonschema finds it valid; every fifth one is
    checked as an exchange, its mismatches compared with jsonschema's errors (the whole
    comparison for every copy costs the suite more than it adds)."""
    definition = Definition()
    tried = 0
    for path, answer in answers:
        operation = definition.operation("GET", path.removeprefix("/v1"))
        assert operation is not None
        listed = operation.answer(200)
        assert listed is not None and listed[1] is not None
        schema = listed[1]
        assert type(schema.validator) is Draft202012Validator
        assert schema.fits(answer), path
        for how, value in spoiled(answer):
            assert schema.fits(value) == schema.validator.is_valid(value), (path, how)
            if tried % 5 == 0:
                checked = definition.check("GET", path, "", None, 200, json.dumps(value))
                expected = plain_mismatches(schema.validator, value)
                assert [(m.where, m.path, m.message) for m in checked] == [
                    ("answer", *mismatch) for mismatch in expected
                ], (path, how)
            tried += 1
    assert tried > 1000
