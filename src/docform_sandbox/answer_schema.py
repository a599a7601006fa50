"""The sandbox's answers are described by the service's published definition, not by the sandbox.

``definition_answers.json`` beside this module holds, for every operation the sandbox serves,
the definition's success answers (JSON Schema, by status; null for an answer without a body)
and the definition's ``components/schemas`` they refer to. ``make answers``
(``scripts/service_answers.py``) writes it from the pinned definition (``extracted``); a test
fails while it is stale, so moving the pin, or adding a route, shows what changed.

What the definition leaves open a route module states in ``FILLS``: by the definition's name of
an object, the optional fields the sandbox's answers always hold (dotted for a field of a field:
``"urls.published"``). The sandbox's OpenAPI description gives each such object as the
definition's and those fields required (`described_schemas`), and its tests hold every answer
to it. Nothing else about answers is written in the sandbox.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

Schema = dict[str, Any]

ANSWERS_FILE = Path(__file__).with_name("definition_answers.json")
SCHEMAS = "#/components/schemas/"
RESPONSES = "#/components/responses/"
ABOUT = (
    "The service's published definition's success answers of the operations the sandbox "
    "serves, and the schemas they use. Written by `make answers`; do not edit."
)
_PARAMETER = re.compile(r"\{[^}]+\}")


class AnswerError(LookupError):
    """An operation or object the extract does not hold: `make answers` has not seen it."""


def operation_key(method: str, path: str) -> str:
    """``GET /orgs/{}/teams``: an operation whatever its path parameters are called."""
    return f"{method.upper()} {_PARAMETER.sub('{}', path)}"


def extracted(
    document: Mapping[str, Any], version: str, operations: Iterable[tuple[str, str]]
) -> dict[str, Any]:
    """What the sandbox needs of the definition ``document`` (@gitbook/api ``version``) to
    describe its answers to ``operations`` (method and path)."""
    by_key = {
        operation_key(method, path): (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    }
    answers: dict[str, dict[str, Schema | None]] = {}
    for method, path in operations:
        found = by_key.get(operation_key(method, path))
        if found is None:
            raise AnswerError(f"{method} {path}: the service's definition has no such operation")
        _, defined_path, operation = found
        answers[f"{method.upper()} {defined_path}"] = {
            status: _content(document, response)
            for status, response in operation["responses"].items()
            if status.startswith("2")
        }
    schemas: dict[str, Schema] = {}
    _gather(document, answers, schemas)
    return {
        "about": ABOUT,
        "definition": f"@gitbook/api {version}",
        "answers": answers,
        "schemas": dict(sorted(schemas.items())),
    }


def _content(document: Mapping[str, Any], response: Schema) -> Schema | None:
    while "$ref" in response:
        response = document["components"]["responses"][response["$ref"][len(RESPONSES) :]]
    content = response.get("content", {}).get("application/json")
    return None if content is None else content["schema"]


def _gather(document: Mapping[str, Any], value: Any, schemas: dict[str, Schema]) -> None:
    """Every schema of ``document`` that ``value`` refers to, directly or not, into ``schemas``."""
    if isinstance(value, dict):
        reference = value.get("$ref")
        if isinstance(reference, str):
            if not reference.startswith(SCHEMAS):
                raise AnswerError(f"a reference outside components/schemas: {reference}")
            name = reference[len(SCHEMAS) :]
            if name not in schemas:
                schemas[name] = document["components"]["schemas"][name]
                _gather(document, schemas[name], schemas)
        for inner in value.values():
            _gather(document, inner, schemas)
    elif isinstance(value, list):
        for inner in value:
            _gather(document, inner, schemas)


def rendered(extract: Mapping[str, Any]) -> str:
    """The file's text: stable, so that an unchanged definition leaves no diff."""
    return json.dumps(extract, indent=1, sort_keys=True) + "\n"


@functools.cache
def definition_answers() -> dict[str, Any]:
    """The extract (read once, when a description of the answers is first needed)."""
    loaded: dict[str, Any] = json.loads(ANSWERS_FILE.read_text(encoding="utf-8"))
    return loaded


@functools.cache
def _answers_by_operation() -> dict[str, dict[str, Schema | None]]:
    answers: dict[str, dict[str, Schema | None]] = definition_answers()["answers"]
    return {operation_key(*key.split(" ", 1)): value for key, value in answers.items()}


def answer_of(method: str, path: str, status: int) -> Schema | None:
    """The definition's answer of ``METHOD path`` with ``status`` (None: it has no body)."""
    answers = _answers_by_operation().get(operation_key(method, path), {})
    if str(status) not in answers:
        raise AnswerError(
            f"{method} {path} {status}: not in {ANSWERS_FILE.name}; run `make answers` "
            "(the definition must have the operation and list the status)"
        )
    return answers[str(status)]


def filled(fields: Iterable[str]) -> Schema:
    """A schema requiring ``fields`` (``"urls.published"``: ``urls`` and its ``published``)."""
    schema: Schema = {"required": []}
    for field in fields:
        node, names = schema, field.split(".")
        for depth, name in enumerate(names, 1):
            if name not in node["required"]:
                node["required"].append(name)
            if depth < len(names):
                node = node.setdefault("properties", {}).setdefault(name, {"required": []})
    return schema


def described_schemas(fills: Mapping[str, Iterable[str]]) -> dict[str, Schema]:
    """The definition's schemas, each object a route module fills given with those fields
    required."""
    schemas = dict(definition_answers()["schemas"])
    for name, fields in fills.items():
        if name not in schemas:
            raise AnswerError(f"FILLS names {name}, which no answer of the sandbox holds")
        schemas[name] = {"allOf": [schemas[name], filled(fields)]}
    return schemas
