"""The service's published definition (OpenAPI 3.1), and the check of one exchange against it.

The definition is the npm package ``@gitbook/api`` that ``.ci/node-tools`` pins (``make
node-tools``). It is read once per process; each schema an exchange needs is compiled once, on
first use, twice over: into plain functions that say whether a value fits (`contract_fit`), and
into jsonschema's validator (JSON Schema 2020-12, references resolved through one `referencing`
registry, formats checked). A value is asked first whether it fits, which nearly every value of
the suite does; jsonschema validates only one that does not, and its errors are the mismatches.
The two agree on every value (test_contract_fit.py), so the check is exactly jsonschema's.
An exchange's parts are checked once per distinct content: the suite sends the same request
and gets the same answer many times.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from contract_fit import Fit, FitCompiler, pointed_to
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).parents[2]
NODE_TOOLS = ROOT / ".ci" / "node-tools"
PINNED = NODE_TOOLS / "node_modules" / "@gitbook" / "api" / "spec" / "openapi.json"
# Another file of the definition (a newer version, before moving the pin) when set.
DEFINITION = Path(os.environ.get("DOCFORM_CONTRACT_DEFINITION", "") or PINNED)
METHODS = ("get", "put", "post", "patch", "delete")
DOCUMENT = "urn:docform:service-definition"
# Statuses the service may answer to any operation, listed or not (its documented error
# conventions): a bad or missing token, no permission, the rate limit, and its own failures.
# Their body must still be the definition's error body, with the status as its code. An
# operation that names objects in its path may also answer 404 (one of them does not exist).
ANY_OPERATION = frozenset({401, 403, 429, 500, 502, 503, 504})
MESSAGE_CHARS = 240
ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}
ANYTHING: dict[str, Any] = {}


def _format_checker() -> FormatChecker:
    checker = Draft202012Validator.FORMAT_CHECKER
    # OpenAPI's own formats: int32 bounds an integer, the others only describe a string.
    checker = FormatChecker(list(checker.checkers))

    @checker.checks("int32")
    def int32(value: object) -> bool:
        return not isinstance(value, int) or -(2**31) <= value < 2**31

    return checker


FORMATS = _format_checker()


@dataclass(frozen=True)
class Schema:
    """A node of the definition as the check uses it: whether a value fits (`contract_fit`),
    and jsonschema's validator, which words the mismatches of a value that does not."""

    fits: Fit
    validator: Draft202012Validator


@dataclass(frozen=True)
class Mismatch:
    """One way an exchange departs from the definition."""

    operation: str
    """``METHOD /template`` of the definition, or the request's own path when none matches."""
    status: int
    where: str
    """``request``, ``query parameter NAME``, ``request body``, ``answer status``, ``answer``."""
    path: str
    """The JSON path of the offending value (``$`` for the whole body)."""
    message: str

    @property
    def on_request(self) -> bool:
        return not self.where.startswith("answer")

    def line(self) -> str:
        return f"{self.operation} -> {self.status}: {self.where} {self.path}: {self.message}"


@dataclass
class Operation:
    method: str
    template: str
    node: dict[str, Any]
    definition: Definition
    literals: int = 0
    pattern: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        parts = []
        for segment in self.template.strip("/").split("/"):
            if segment.startswith("{") and segment.endswith("}"):
                parts.append(f"(?P<{_group(segment[1:-1])}>[^/]+)")
            else:
                parts.append(re.escape(segment))
                self.literals += 1
        self.pattern = re.compile("^/" + "/".join(parts) + "$")

    @property
    def name(self) -> str:
        return f"{self.method.upper()} {self.template}"

    @cached_property
    def parameters(self) -> dict[tuple[str, str], dict[str, Any]]:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        shared = self.definition.paths[self.template].get("parameters", [])
        for parameter in [*shared, *self.node.get("parameters", [])]:
            resolved = self.definition.resolve(parameter)
            found[(resolved["in"], resolved["name"])] = resolved
        return found

    @cached_property
    def body(self) -> tuple[bool, Schema] | None:
        """Whether a body is required and its schema; None: the operation has none."""
        node = self.node.get("requestBody")
        if node is None:
            return None
        resolved = self.definition.resolve(node)
        schema = resolved.get("content", {}).get("application/json", {}).get("schema", ANYTHING)
        return bool(resolved.get("required")), self.definition.schema(schema)

    def answer(self, status: int) -> tuple[str, Schema | None] | None:
        """The listed status the answer falls under and its body's schema (None: no body),
        or None when the operation lists neither the status nor a default."""
        responses = self.node["responses"]
        key = str(status) if str(status) in responses else "default"
        if key not in responses:
            return None
        resolved = self.definition.resolve(responses[key])
        schema = resolved.get("content", {}).get("application/json", {}).get("schema")
        return key, None if schema is None else self.definition.schema(schema)


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name)


class Definition:
    """The definition file, its operations indexed by method and number of path segments."""

    def __init__(self, path: Path = DEFINITION) -> None:
        self.path = path
        self.document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.paths: dict[str, Any] = self.document["paths"]
        resource = Resource(contents=self.document, specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(DOCUMENT, resource)
        self.operations: list[Operation] = []
        self._index: dict[tuple[str, int], list[Operation]] = {}
        self._found: dict[tuple[str, str], Operation | None] = {}
        for template, item in self.paths.items():
            for method in METHODS:
                if method in item:
                    self._add(Operation(method.upper(), template, item[method], self))
        self._fit = FitCompiler(self.document, FORMATS, lambda node: self.validator(node).is_valid)
        self._validators: dict[int, tuple[Any, Draft202012Validator]] = {}
        self._schemas: dict[int, tuple[Any, Schema]] = {}
        self._checked: dict[bytes, tuple[Mismatch, ...]] = {}
        self._error = self.schema(ERROR_SCHEMA)

    def _add(self, operation: Operation) -> None:
        self.operations.append(operation)
        shape = (operation.method, operation.template.count("/"))
        self._index.setdefault(shape, []).append(operation)
        self._index[shape].sort(key=lambda op: -op.literals)

    def resolve(self, node: Mapping[str, Any]) -> dict[str, Any]:
        """``node`` with its ``$ref`` (to ``#/components/...``) followed, as often as it has one."""
        while "$ref" in node:
            node = pointed_to(self.document, str(node["$ref"]))
        return dict(node)

    def validator(self, schema: Any) -> Draft202012Validator:
        """A compiled validator of ``schema`` (a node of the document), made once per node."""
        known = self._validators.get(id(schema))
        if known is None:
            validator = Draft202012Validator(
                _rebased(schema), registry=self.registry, format_checker=FORMATS
            )
            # The cache holds the schema itself, so no other object can take its id while the
            # entry lives: a temporary dict would otherwise meet the validator of a freed one.
            known = self._validators[id(schema)] = (schema, validator)
        return known[1]

    def schema(self, schema: Any) -> Schema:
        """``schema`` (a node of the document) compiled for the check, once per node."""
        known = self._schemas.get(id(schema))
        if known is None:
            compiled = Schema(self._fit.compile(schema), self.validator(schema))
            known = self._schemas[id(schema)] = (schema, compiled)
        return known[1]

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation ``METHOD path`` (``path`` below ``/v1``) calls: literal segments win
        over parameters, as the service routes."""
        key = (method, path)
        if key not in self._found:
            candidates = self._index.get((method, path.count("/")), [])
            self._found[key] = next((op for op in candidates if op.pattern.match(path)), None)
        return self._found[key]

    def check(
        self, method: str, path: str, query: str, request: str | None, status: int, answer: str
    ) -> tuple[Mismatch, ...]:
        """Every mismatch of one exchange (``path`` with its ``/v1``); ``request`` is None when
        the sandbox answered without reading the body (it is not checked)."""
        key = hashlib.blake2b(
            "\0".join((method, path, query, str(request), str(status), answer)).encode(),
            digest_size=16,
        ).digest()
        known = self._checked.get(key)
        if known is None:
            known = tuple(
                self._check(method, path.removeprefix("/v1"), query, request, status, answer)
            )
            self._checked[key] = known
        return known

    def _check(
        self, method: str, path: str, query: str, request: str | None, status: int, answer: str
    ) -> Iterable[Mismatch]:
        operation = self.operation(method, path)
        if operation is None:
            yield Mismatch(
                f"{method} {path}", status, "request", "$", "the definition has no such operation"
            )
            yield from self._error_body(f"{method} {path}", status, answer)
            return
        name = operation.name
        yield from _parameters(operation, path, query, name, status)
        if request is not None:
            yield from _request_body(operation, request, name, status)
        listed = operation.answer(status)
        if listed is None:
            if status not in ANY_OPERATION and not (status == 404 and "{" in operation.template):
                yield Mismatch(
                    name, status, "answer status", "$", f"{status} is not listed for this operation"
                )
            yield from self._error_body(name, status, answer)
            return
        yield from _answer_body(listed, answer, name, status)

    def _error_body(self, name: str, status: int, answer: str) -> Iterable[Mismatch]:
        if status < 400:
            return
        body = _json(answer)
        if body is _NOT_JSON:
            yield Mismatch(name, status, "answer", "$", "the error answer is not JSON")
            return
        yield from _errors(self._error, body, name, status, "answer")
        error = body.get("error", {}) if isinstance(body, dict) else None
        # An error that is no object is the schema's mismatch, found above; it has no code.
        if isinstance(error, dict) and error.get("code") != status:
            yield Mismatch(name, status, "answer", "$.error.code", f"is not {status}")


def _rebased(schema: Any) -> Any:
    """``schema`` with its references made absolute, so they resolve in the registry's
    document wherever the schema sits in it."""
    if isinstance(schema, dict):
        return {
            key: (
                DOCUMENT + value
                if key == "$ref" and str(value).startswith("#")
                else _rebased(value)
            )
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_rebased(value) for value in schema]
    return schema


_NOT_JSON = object()


def _json(text: str) -> Any:
    # A body nested past Python's recursion limit (a test's JSON bomb) is no JSON the
    # checker can read: it is reported like any other unreadable body, never a crash.
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _errors(schema: Schema, value: Any, name: str, status: int, where: str) -> Iterable[Mismatch]:
    if schema.fits(value):
        return
    for error in schema.validator.iter_errors(value):
        best = best_match([error]) or error
        yield Mismatch(name, status, where, _json_path(best), _short(best.message))


def _json_path(error: ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _short(message: str) -> str:
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 3] + "..."


def _parameters(
    operation: Operation, path: str, query: str, name: str, status: int
) -> Iterable[Mismatch]:
    match = operation.pattern.match(path)
    assert match is not None
    declared = operation.parameters
    for (place, key), parameter in declared.items():
        if place != "path":
            continue
        value = match.group(_group(key))
        yield from _parameter(operation, parameter, [value], f"path parameter {key}", name, status)
    given = parse_qs(query, keep_blank_values=True)
    for key, values in given.items():
        parameter = declared.get(("query", key))
        if parameter is None:
            yield Mismatch(
                name, status, f"query parameter {key}", "$", "the operation has no such parameter"
            )
            continue
        yield from _parameter(operation, parameter, values, f"query parameter {key}", name, status)
    for (place, key), parameter in declared.items():
        if place == "query" and parameter.get("required") and key not in given:
            yield Mismatch(name, status, f"query parameter {key}", "$", "is required and missing")


def _parameter(
    operation: Operation,
    parameter: dict[str, Any],
    values: list[str],
    where: str,
    name: str,
    status: int,
) -> Iterable[Mismatch]:
    schema = parameter.get("schema", ANYTHING)
    compiled = operation.definition.schema(schema)
    resolved = operation.definition.resolve(schema)
    if resolved.get("type") == "array":
        value: Any = [_typed(operation, resolved.get("items", {}), item) for item in values]
    elif len(values) > 1:
        yield Mismatch(name, status, where, "$", "is given more than once")
        return
    else:
        value = _typed(operation, schema, values[0])
    yield from _errors(compiled, value, name, status, where)


def _typed(operation: Operation, schema: Any, text: str) -> Any:
    """A parameter's text as the value its schema's type reads it as."""
    kind = operation.definition.resolve(schema).get("type")
    try:
        if kind == "number":
            return float(text) if any(c in text for c in ".eE") else int(text)
        if kind == "integer":
            return int(text)
    except ValueError:
        return text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, text)
    return text


def _request_body(operation: Operation, request: str, name: str, status: int) -> Iterable[Mismatch]:
    body = operation.body
    if body is None:
        if request.strip():
            yield Mismatch(name, status, "request body", "$", "the operation takes no body")
        return
    required, schema = body
    if not request.strip():
        if required:
            yield Mismatch(name, status, "request body", "$", "is required and missing")
        return
    value = _json(request)
    if value is _NOT_JSON:
        yield Mismatch(
            name, status, "request body", "$", "is not JSON (or nested past what Python reads)"
        )
        return
    yield from _errors(schema, value, name, status, "request body")


def _answer_body(
    listed: tuple[str, Schema | None], answer: str, name: str, status: int
) -> Iterable[Mismatch]:
    key, schema = listed
    if schema is None:
        if answer.strip():
            yield Mismatch(name, status, "answer", "$", f"the definition gives {key} no body")
        return
    value = _json(answer)
    if value is _NOT_JSON:
        yield Mismatch(
            name, status, "answer", "$", "is not JSON (or nested past what Python reads)"
        )
        return
    yield from _errors(schema, value, name, status, "answer")
