"""The sandbox's own OpenAPI 3.1 description of its ``/v1`` API, served at
``GET /_sandbox/openapi.json``, built from the routes so that it cannot fall out of step.

Each `Endpoint` gives its method, path, success status and summary (its docstring). Its request
body and query parameters are the `Body` and `Query` models its handler reads with
``ctx.body_as(Model)`` and ``ctx.query_as(Model)``, found among the names the handler's code
uses and the values it closes over (a handler made by a function, as in ``permissions.py``); a
handler answering a list page (``list_page``) takes ``page``, ``limit`` and ``order``.
Every operation may also answer an error, ``{"error": {"code", "message"}}``, with the statuses
the sandbox uses (400, 401, 403, 404, 409, 429). Success answers are the service's published
definition's, with the optional fields the sandbox always fills required
(`docform_sandbox.answer_schema`), so a client or a test can validate every answer against this
document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from docform import __version__
from docform_sandbox.answer_schema import answer_of, definition_answers, described_schemas
from docform_sandbox.http import Body, Endpoint, ListQuery, Query
from docform_sandbox.routes import ENDPOINTS, FILLS

ERROR_STATUSES = {
    "400": "The request is invalid: its JSON, a field, a value or a query parameter.",
    "401": "No bearer token, or one the sandbox does not know.",
    "403": "The token's user may not do this in this organization.",
    "404": "An id in the path names nothing (or nothing this token may see).",
    "409": "The change conflicts with the current state.",
    "412": "The request's data cannot be carried out (a custom font without a regular face).",
    "429": "Over the rate limit (with Retry-After).",
}
ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
        }
    },
}
_PATH_PARAMETER = re.compile(r"\{(\w+)\}")
_REF = "#/components/schemas/{model}"
# The models a request body uses, apart from the definition's objects of the same name.
_NESTED = "request."


def openapi_description(endpoints: Iterable[Endpoint] | None = None) -> dict[str, Any]:
    """The OpenAPI document of ``endpoints`` (default: every route of the sandbox)."""
    if endpoints is None:
        endpoints = ENDPOINTS
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA, **described_schemas(FILLS)}
    paths: dict[str, dict[str, Any]] = {}
    for ep in endpoints:
        paths.setdefault(ep.path, {})[ep.method.lower()] = _operation(ep, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "docform sandbox",
            "version": __version__,
            "description": "The emulated documentation service API (docform's docs/service.md); "
            f"its answers are those of {definition_answers()['definition']}'s definition.",
        },
        "servers": [{"url": "/v1"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def body_model(ep: Endpoint) -> type[Body] | None:
    """The model the handler checks its JSON body against, if it reads one."""
    return next(iter(_models_used(ep, Body)), None)


def query_models(ep: Endpoint) -> list[type[Query]]:
    """The models the handler checks its query string against (the list ones included)."""
    models = _models_used(ep, Query)
    if "list_page" in ep.handler.__code__.co_names and ListQuery not in models:
        models.append(ListQuery)
    return models


def _models_used(ep: Endpoint, base: type[BaseModel]) -> list[Any]:
    handler, found = ep.handler, []
    used = [handler.__globals__.get(name) for name in handler.__code__.co_names]
    used += [cell.cell_contents for cell in handler.__closure__ or ()]
    for value in used:
        if isinstance(value, type) and issubclass(value, base) and value is not base:
            found.append(value)
    return found


def _operation(ep: Endpoint, schemas: dict[str, Any]) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": f"{ep.method.lower()}{re.sub(r'[^A-Za-z0-9]+', '_', ep.path)}",
        "summary": ep.summary.split("\n\n")[0].replace("\n", " ") or f"{ep.method} {ep.path}",
        "parameters": _path_parameters(ep) + _query_parameters(ep),
        "responses": _responses(ep),
    }
    model = body_model(ep)
    if model is not None:
        operation["requestBody"] = {
            "required": False,  # an absent body is read as {}
            "content": {"application/json": {"schema": _schema_ref(model, schemas)}},
        }
    return operation


def _path_parameters(ep: Endpoint) -> list[dict[str, Any]]:
    return [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PATH_PARAMETER.findall(ep.path)
    ]


def _query_parameters(ep: Endpoint) -> list[dict[str, Any]]:
    parameters: dict[str, dict[str, Any]] = {}
    for model in query_models(ep):
        schema = model.model_json_schema()
        for name, field_schema in schema.get("properties", {}).items():
            parameters[name] = {"name": name, "in": "query", "required": False,
                                "schema": field_schema}  # fmt: skip
    return list(parameters.values())


def _responses(ep: Endpoint) -> dict[str, Any]:
    success: dict[str, Any] = {"description": "Success."}
    answer = answer_of(ep.method, ep.path, ep.status)
    if answer is not None:
        success["content"] = {"application/json": {"schema": answer}}
    responses = {str(ep.status): success}
    if ep.method == "DELETE":
        responses["204"] = {"description": "Deleted, or there was nothing to delete."}
    for status, description in ERROR_STATUSES.items():
        responses[status] = {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    return responses


def _schema_ref(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, str]:
    """A reference to ``model``'s schema, added (with the models it uses) to ``schemas``."""
    # Route modules may reuse a class name (MoveBody), so the module is part of the name.
    name = f"{model.__module__.rsplit('.', 1)[-1]}.{model.__name__}"
    schema = model.model_json_schema(ref_template=_REF.format(model=_NESTED + "{model}"))
    for nested, nested_schema in schema.pop("$defs", {}).items():
        if schemas.setdefault(_NESTED + nested, nested_schema) != nested_schema:
            raise ValueError(f"two different schemas are both called {nested}")
    schemas[name] = schema
    return {"$ref": _REF.format(model=name)}
