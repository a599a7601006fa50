"""docform's client accepts every answer the service may send to the routes docform reads: one
with only the fields the service promises in every answer (docs/service.md), and one with every
field the service sends (as the sandbox's OpenAPI description lists them).

The routes are the ones the kinds declare they read (`docform.kind_registry`), each found
among the sandbox's routes with its answer's description (`docform_sandbox.routes`): a new kind's
read route is checked with no change here. Each answer is served by an httpx transport to a real
`ApiClient`, which checks it (`docform.api.shapes`) exactly as it checks the service's, and must
hand it back unchanged. The shapes the client checks are derived from the committed description
(`docform.service.answer_description`); they are compared here with the sandbox's own OpenAPI
description field by field: a field is needed exactly when every answer holds it, and every
type the service may send is accepted.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
import pytest

from docform import kind_registry
from docform.service.answer_fields import NULL, Field, Shape
from docform.workflow.connect import KIND_SHAPES, Client
from docform_sandbox.openapi_description import openapi_description
from docform_sandbox.routes import ENDPOINTS

SCHEMAS = openapi_description()["components"]["schemas"]
TIME = "2026-01-02T03:04:05.000Z"
URLS = {"location": "https://api.service.test/v1/x", "app": "https://app.service.test/x"}

# -- answers with only what the service promises in every answer -------------------------------

USER = {"object": "user", "id": "u1", "displayName": "Dana", "urls": {"location": URLS["location"]}}
MEMBER = {
    "object": "member",
    "id": "u1",
    "role": None,
    "user": USER,
    "disabled": False,
    "joinedAt": TIME,
    "sso": False,
    "spaces": 0,
    "teams": 0,
    "sites": 0,
}
SPACE = {
    "object": "space",
    "id": "sp1",
    "title": "Handbook",
    "emoji": "",
    "organization": "org1",
    "visibility": "private",
    "revision": "r1",
    "createdAt": TIME,
    "updatedAt": TIME,
    "comments": 0,
    "changeRequests": 0,
    "changeRequestsOpen": 0,
    "changeRequestsDraft": 0,
    "mergeRules": {"type": "inherit"},
    "urls": URLS,
    "defaultLevel": None,
    "permissions": {"view": True},
}
SITE_SPACE = {
    "object": "site-space",
    "id": "ss1",
    "path": "handbook",
    "space": SPACE,
    "title": "Handbook",
    "draft": False,
    "urls": {"published": "https://docs.service.test/handbook"},
}
SECTION = {
    "object": "site-section",
    "id": "sc1",
    "title": "Guides",
    "path": "guides",
    "siteSpaces": [SITE_SPACE],
    "draft": False,
    "urls": {"published": "https://docs.service.test/guides"},
}
MINIMAL: dict[str, dict[str, Any]] = {
    "/orgs/org1": {
        "object": "organization",
        "id": "org1",
        "trial": {"status": "notapplicable", "count": 0},
    },
    "/spaces/sp1": SPACE,
    "/orgs/org1/members": MEMBER,
    "/orgs/org1/teams": {
        "object": "team",
        "id": "t1",
        "title": "Platform",
        "members": 1,
        "spaces": 0,
        "createdAt": TIME,
        "permissions": {"admin": True, "view": True},
    },
    "/orgs/org1/teams/t1/members": {
        "organization": MEMBER,
        "team": {"role": "member"},
        "permissions": {"view": True},
    },
    "/orgs/org1/collections": {
        "object": "collection",
        "id": "c1",
        "title": "Engineering",
        "organization": "org1",
        "urls": URLS,
        "defaultLevel": None,
        "permissions": {"view": True},
    },
    "/orgs/org1/spaces": SPACE,
    "/orgs/org1/sites": {
        "object": "site",
        "id": "s1",
        "type": "basic",
        "appliedType": "basic",
        "title": "Docs",
        "visibility": "public",
        "defaultLevel": None,
        "permissions": {"view": True},
        "published": False,
        "siteSpaces": 0,
        "createdAt": TIME,
        "features": {},
        "urls": {**URLS, "preview": "https://preview.service.test/s1"},
    },
    "/orgs/org1/sites/s1/section-groups": {
        "object": "site-section-group",
        "id": "g1",
        "title": "Learn",
        "sections": [SECTION],
        "children": [SECTION],
        "draft": False,
    },
    "/orgs/org1/sites/s1/sections": SECTION,
    "/orgs/org1/sites/s1/site-spaces": SITE_SPACE,
    "/orgs/org1/openapi": {
        "object": "openapi-spec",
        "id": "o1",
        "createdAt": TIME,
        "updatedAt": TIME,
        "slug": "petstore",
        "processingState": "pending",
        "lastProcessedErrorCount": 0,
        "permissions": {"view": True, "edit": True},
    },
    "/orgs/org1/saml": {
        "object": "saml-provider",
        "id": "p1",
        "label": "Okta",
        "status": "pending",
    },
}

# -- the routes the kinds read, and their descriptions -----------------------------------------


IDS = {"orgs": "org1", "spaces": "sp1", "teams": "t1", "sites": "s1", "collections": "c1"}


def concrete(template: str) -> str:
    """A path of ``template`` (``/orgs/*/teams`` -> ``/orgs/org1/teams``)."""
    parts = template.split("/")
    return "/".join(
        IDS.get(parts[n - 1], "x1") if part == "*" else part for n, part in enumerate(parts)
    )


def described_answer(path: str) -> dict[str, Any]:
    """The description of what ``GET path`` answers, from the sandbox route that serves it."""
    for ep in ENDPOINTS:
        pattern = re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(ep.path))
        if ep.method == "GET" and re.fullmatch(pattern, path):
            assert ep.answer is not None, f"GET {ep.path} describes no answer"
            return ep.answer
    raise AssertionError(f"no sandbox route serves GET {path}, which a kind reads")


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def object_schema(template: str) -> dict[str, Any]:
    """The object ``template`` answers (for a list route: each of its items)."""
    answer = resolved(described_answer(concrete(template)))
    if template in KIND_SHAPES.items:
        return resolved(answer["properties"]["items"]["items"])
    return answer


READ_ROUTES = sorted(KIND_SHAPES.templates())
OBJECT_ROUTES = {concrete(t) for t in KIND_SHAPES.objects}


def test_the_kinds_read_routes_are_all_here() -> None:
    assert len(READ_ROUTES) >= 19 and "/user" in READ_ROUTES
    assert {concrete(t) for t in READ_ROUTES} >= set(MINIMAL)


@pytest.mark.parametrize("template", READ_ROUTES)
def test_every_route_docform_reads_has_its_answer_described(template: str) -> None:
    assert object_schema(template).get("type") == "object"


# -- each kind's shape against the description -----------------------------------------------

JSON_TYPES = {
    "string": {str},
    "boolean": {bool},
    "integer": {int},
    "number": {int, float},
    "object": {dict},
    "array": {list},
}


def value_types(schema: dict[str, Any]) -> set[type]:
    """The Python types of the values ``schema`` allows."""
    schema = resolved(schema)
    for alternatives in ("anyOf", "oneOf"):
        if alternatives in schema:
            return set().union(*(value_types(s) for s in schema[alternatives]))
    if "const" in schema:
        return {type(schema["const"])}
    if "enum" in schema:
        return {NULL if v is None else type(v) for v in schema["enum"]}
    return JSON_TYPES[schema["type"]]


def objects_of(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas ``schema`` allows (one, or each object among its alternatives)."""
    schema = resolved(schema)
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        return [o for s in alternatives for o in objects_of(s)]
    return [schema] if schema.get("type") == "object" else []


COPED_WITHOUT = {
    f"{template}.{path}"
    for d in kind_registry.declarations()
    for template, paths in d.reads.copes_without.items()
    for path in paths
}
"""The fields a kind reads an answer without, though the description promises them."""


def shape_misfits(shape: Shape, objects: list[dict[str, Any]], where: str) -> list[str]:
    """Where ``shape`` asks more than ``objects`` (the alternatives an answer may be) promise,
    or refuses a value they allow."""
    wrong = []
    for name, field in shape.items():
        at = f"{where}.{name}"
        holding = [o["properties"][name] for o in objects if name in o.get("properties", {})]
        if not holding:
            wrong.append(f"{at} is not in the description")
        elif field.required != (
            all(name in o.get("required", ()) for o in objects) and at not in COPED_WITHOUT
        ):
            promise = "leaves it optional" if field.required else "promises it in every answer"
            wrong.append(
                f"{at} is {'' if field.required else 'not '}needed, but the description {promise}"
            )
        for schema in holding:
            wrong += field_misfits(field, schema, at)
    return wrong


def field_misfits(field: Field, schema: dict[str, Any], at: str) -> list[str]:
    refused = value_types(schema) - set(field.types)
    if refused:
        return [f"{at} refuses {sorted(t.__name__ for t in refused)}, which the description allows"]
    beyond = set(field.types) - value_types(schema) - {float}
    if beyond:
        return [
            f"{at} accepts {sorted(t.__name__ for t in beyond)}, which the description never sends"
        ]
    if field.shape is not None:
        return shape_misfits(field.shape, objects_of(schema), at)
    schema = resolved(schema)
    if field.items is not None and "items" in schema:
        return field_misfits(field.items, schema["items"], f"{at}[]")
    return []


@pytest.mark.parametrize("template", READ_ROUTES)
def test_the_client_checks_what_the_description_promises(template: str) -> None:
    """A field is needed exactly when every answer holds it (unless a kind copes without it);
    every field a kind reads is one the service sends, with exactly the types the service may
    send it as."""
    path = concrete(template)
    shape = KIND_SHAPES.object_shape(path) or KIND_SHAPES.item_shape(path)
    assert shape is not None
    assert shape_misfits(shape, [object_schema(template)], template) == []


# -- answers with every field, and with only the required ones -------------------------------


def example(schema: dict[str, Any], *, every_field: bool) -> Any:
    """A value of ``schema`` with every optional field present, or only the required ones (the
    first of alternatives)."""
    schema = resolved(schema)
    if "anyOf" in schema or "oneOf" in schema:
        return example((schema.get("anyOf") or schema["oneOf"])[0], every_field=every_field)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    kind = schema.get("type")
    if kind == "object":
        names = schema.get("properties", {}) if every_field else schema.get("required", ())
        properties = schema.get("properties", {})
        return {name: example(properties[name], every_field=every_field) for name in names}
    if kind == "array":
        return [example(schema["items"], every_field=every_field)]
    if kind == "string":
        formats = {"date-time": TIME, "uri": "https://service.test/x"}
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
    assert {"email", "photoURL"} <= set(member["user"]) and not {"email", "photoURL"} & set(USER)
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


@pytest.mark.parametrize("path", sorted(MINIMAL))
def test_an_answer_with_only_the_promised_fields_is_accepted(path: str) -> None:
    answer = MINIMAL[path]
    expected = answer if path in OBJECT_ROUTES else [answer]
    assert read_through_client(path, answer) == expected


@pytest.mark.parametrize("every_field", [True, False], ids=["every field", "required fields"])
@pytest.mark.parametrize("template", READ_ROUTES)
def test_an_answer_as_described_is_accepted(template: str, every_field: bool) -> None:
    answer = described_example(template, every_field=every_field)
    path = concrete(template)
    expected = answer if path in OBJECT_ROUTES else [answer]
    assert read_through_client(path, answer) == expected
