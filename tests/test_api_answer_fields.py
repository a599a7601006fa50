"""docform's client accepts every answer the service may send to the routes docform reads: one
with only the fields the service promises in every answer (docs/service.md), and one with every
field the service sends (as the sandbox's OpenAPI description lists them).

Each answer is served by an httpx transport to a real `ApiClient`, which checks it
(`docform.api.shapes`) exactly as it checks the service's, and must hand it back unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from docform.sandbox.openapi_description import openapi_description
from docform.workflow.connect import Client

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

# -- answers with every field ------------------------------------------------------------------

#: The sandbox description's object each route answers (or lists).
FULL_SCHEMA = {
    "/orgs/org1": "Organization",
    "/spaces/sp1": "Space",
    "/orgs/org1/members": "Member",
    "/orgs/org1/teams": "Team",
    "/orgs/org1/teams/t1/members": "TeamMember",
    "/orgs/org1/collections": "Collection",
    "/orgs/org1/spaces": "Space",
    "/orgs/org1/sites": "Site",
    "/orgs/org1/sites/s1/section-groups": "SiteSectionGroup",
    "/orgs/org1/sites/s1/sections": "SiteSection",
    "/orgs/org1/sites/s1/site-spaces": "SiteSpace",
    "/orgs/org1/openapi": "OpenAPISpec",
    "/orgs/org1/saml": "SAMLProvider",
}
OBJECT_ROUTES = ("/orgs/org1", "/spaces/sp1")


def every_field(schema: dict[str, Any]) -> Any:
    """A value of ``schema`` with every optional field present (the first of alternatives)."""
    if "$ref" in schema:
        return every_field(SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]])
    if "anyOf" in schema:
        return every_field(schema["anyOf"][0])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    kind = schema.get("type")
    if kind == "object":
        return {name: every_field(field) for name, field in schema.get("properties", {}).items()}
    if kind == "array":
        return [every_field(schema["items"])]
    if kind == "string":
        return {"date-time": TIME, "uri": "https://service.test/x"}.get(
            schema.get("format", ""), "x1"
        )
    return {"boolean": True, "integer": 1, "number": 1}[kind]


def full_answer(path: str) -> dict[str, Any]:
    answer = every_field(SCHEMAS[FULL_SCHEMA[path]])
    if path in OBJECT_ROUTES:
        answer["id"] = path.rsplit("/", 1)[-1]  # the client checks it is the one asked for
    return answer


def test_every_route_docform_reads_has_both_answers() -> None:
    assert sorted(MINIMAL) == sorted(FULL_SCHEMA)


def test_the_full_answers_hold_every_field_the_minimal_ones_leave_out() -> None:
    user = full_answer("/orgs/org1/members")["user"]
    assert {"email", "photoURL"} <= set(user) and not {"email", "photoURL"} & set(USER)
    assert "lastSeenAt" in full_answer("/orgs/org1/members")
    assert "defaultTeam" in full_answer("/orgs/org1/saml")


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


@pytest.mark.parametrize("path", sorted(FULL_SCHEMA))
def test_an_answer_with_every_field_is_accepted(path: str) -> None:
    answer = full_answer(path)
    expected = answer if path in OBJECT_ROUTES else [answer]
    assert read_through_client(path, answer) == expected
