"""The sandbox's answers are described by the service's published definition: the extract of it
the sandbox carries (src/docform_sandbox/definition_answers.json) is the one the pinned
definition gives for the routes it serves, and what route modules add (``FILLS``) only narrows
it, naming fields the definition's objects have and leave optional.

That every answer fits the description, and names no field the definition lacks, is checked on
every route by tests/sandbox/test_sandbox_openapi_description.py.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from answer_fields import REF, shape
from contract_definition import DEFINITION

from conftest import needs_the_definition
from docform_sandbox import answer_schema
from docform_sandbox.routes import ENDPOINTS, FILLS, RouteDeclarationError, _fills

needs_the_definition()

SCHEMAS = answer_schema.definition_answers()["schemas"]


def pinned_version() -> str:
    package = DEFINITION.parents[1] / "package.json"
    version: str = json.loads(package.read_text(encoding="utf-8"))["version"]
    return version


def test_the_committed_extract_is_the_one_the_pinned_definition_gives() -> None:
    """A moved pin or a new route shows here, and in the file's diff after `make answers`."""
    document = json.loads(DEFINITION.read_text(encoding="utf-8"))
    operations = [(ep.method, ep.path) for ep in ENDPOINTS]
    expected = answer_schema.rendered(
        answer_schema.extracted(document, pinned_version(), operations)
    )
    assert answer_schema.ANSWERS_FILE.read_text(encoding="utf-8") == expected, (
        "src/docform_sandbox/definition_answers.json is stale against the pinned definition "
        f"(@gitbook/api {pinned_version()}) or the sandbox's routes: run `make answers`"
    )


def test_every_route_answers_what_the_definition_lists_for_its_status() -> None:
    for ep in ENDPOINTS:
        answer_schema.answer_of(ep.method, ep.path, ep.status)


def test_an_operation_the_extract_lacks_says_to_run_make_answers() -> None:
    with pytest.raises(answer_schema.AnswerError, match="run `make answers`"):
        answer_schema.answer_of("GET", "/orgs/{organizationId}/nothing-here", 200)


def promised(schema: dict[str, Any]) -> set[str]:
    """The fields ``schema`` requires whichever alternative an answer takes."""
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"][len(REF) :]]
    found = set(schema.get("required", ()))
    for part in schema.get("allOf", []):
        found |= promised(part)
    return found


def fill_problems(name: str, field: str) -> list[str]:
    schema: dict[str, Any] = {"$ref": REF + name}
    *outer, last = field.split(".")
    for part in outer:
        found = shape(schema, SCHEMAS)
        inner = found.properties.get(part) if found else None
        if not inner:
            return [f"{name}.{field}: the definition's {name} has no {part}"]
        schema = {"anyOf": inner}
    found = shape(schema, SCHEMAS)
    if found is None or last not in found.properties:
        return [f"{name}.{field}: not a field of the definition's {name}"]
    if last in promised(schema) or all(last in promised(s) for s in schema.get("anyOf", [])):
        return [f"{name}.{field}: the definition already requires it"]
    return []


@pytest.mark.parametrize("name", sorted(FILLS))
def test_what_the_routes_fill_is_an_optional_field_of_the_definitions_object(name: str) -> None:
    assert name in SCHEMAS, f"{name}: no answer of the sandbox holds such an object"
    assert [problem for field in FILLS[name] for problem in fill_problems(name, field)] == []


def test_a_fill_of_a_field_the_definition_lacks_is_found() -> None:
    assert fill_problems("SiteSpace", "urls.nowhere") == [
        "SiteSpace.urls.nowhere: not a field of the definition's SiteSpace"
    ]
    assert fill_problems("SiteSpace", "id") == ["SiteSpace.id: the definition already requires it"]


def test_a_route_module_describing_its_own_answers_is_refused() -> None:
    """A module written before the answers came from the definition says what to do instead."""
    module = ModuleType("docform_sandbox.routes.webhooks")
    module.OBJECTS = {"Webhook": {"type": "object"}}  # type: ignore[attr-defined]
    with pytest.raises(RouteDeclarationError, match="in FILLS"):
        _fills([module])


def test_the_fills_of_several_modules_add_up() -> None:
    first, second = ModuleType("first"), ModuleType("second")
    first.FILLS = {"Site": ("basename",)}  # type: ignore[attr-defined]
    second.FILLS = {"Site": ("hostname",)}  # type: ignore[attr-defined]
    assert _fills([first, second]) == {"Site": ("basename", "hostname")}
