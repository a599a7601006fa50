"""The sandbox's descriptions of its answers (each route module's ``OBJECTS``) only narrow the
service's published definition, never widen it: for every route that answers an object or a
list of them, each field the sandbox describes is one the definition's answer of that operation
has, and each field the definition promises in every answer the sandbox promises too. What the
sandbox may add is only what the definition leaves open: which optional fields it always fills,
and that its objects hold no other fields (docs/service.md, "Where the sandbox is narrower").
The values' types are the contract check's: every answer of the suite is checked against the
definition (tests/contract/).

The gaps known today are listed below, each with why; the list must shrink, never grow: a gap
closed fails the test until its line goes.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from contract_definition import Definition

from docform_sandbox.http import Endpoint
from docform_sandbox.routes import ENDPOINTS, objects

DEFINITION = Definition()
_PARAMETER = re.compile(r"\{[^}]+\}")

LABEL_ONLY = "issue 39: a provider made with a label only"
OPENAPI_CONTENT = "issue 39: the sandbox answers {filesystem, url}, the definition {..., urls}"
HAS_OVERRIDES = "the sandbox tells whether site spaces override the site; the definition does not"
INTEGRATION = "issue 39: the sandbox's integration lacks what the definition requires"
KNOWN_GAPS = {
    **{
        f"GET /orgs/{{organizationId}}/installations: OrganizationInstallation.integration.{field} "
        "is promised by the definition, not by the sandbox": INTEGRATION
        for field in (
            "categories",
            "externalLinks",
            "owner",
            "permissions",
            "previewImages",
            "scopes",
            "urls",
            "verified",
        )
    },
    **{
        f"{route}: Translation.stats.{field} is promised by the definition, not by the sandbox": (
            "issue 39: the sandbox's statistics lack the latest run's"
        )
        for route in (
            "GET /orgs/{organizationId}/translations",
            "POST /orgs/{organizationId}/translations",
            "GET /orgs/{organizationId}/translations/{translationId}",
            "PUT /orgs/{organizationId}/translations/{translationId}",
        )
        for field in ("latestPages", "latestWords")
    },
    **{
        f"{route}: {name}.instructions.data is promised by the definition, not by the sandbox": (
            "a Document is stored as it was sent: one sent without data is answered so"
        )
        for route, name in (
            ("GET /orgs/{organizationId}/agent-instructions", "AgentInstructions"),
            ("PUT /orgs/{organizationId}/agent-instructions", "AgentInstructions"),
            ("GET /orgs/{organizationId}/translations", "Translation"),
            ("POST /orgs/{organizationId}/translations", "Translation"),
            ("GET /orgs/{organizationId}/translations/{translationId}", "Translation"),
            ("PUT /orgs/{organizationId}/translations/{translationId}", "Translation"),
        )
    },
    **{
        f"{route}: Organization.permissions.ingestConversations is not in the definition's "
        "answer": "a permission of the seed documents the definition does not list"
        for route in (
            "GET /orgs",
            "GET /orgs/{organizationId}",
            "PATCH /orgs/{organizationId}",
        )
    },
    # The definition's list holds organization invites only; its single GET (and the sandbox's
    # list) all three forms (docs/service.md).
    **dict.fromkeys(
        [
            f"GET /orgs/{{organizationId}}/link-invites: InviteLink.{field} is not in the "
            "definition's answer"
            for field in ("collection", "level", "space")
        ]
        + [
            "GET /orgs/{organizationId}/link-invites: InviteLink.role is promised by the "
            "definition, not by the sandbox"
        ],
        "issue 39: the definition's list and single GET of invites disagree",
    ),
    "POST /orgs/{organizationId}/ping: Ping.serviceVisitorClaims is not in the definition's "
    "answer": "the definition names the token gitbookVisitorClaims",
    **{
        f"GET /orgs/{{organizationId}}/openapi/{{specSlug}}/versions/{version}/content: {gap}": (
            OPENAPI_CONTENT
        )
        for version in ("latest", "{versionId}")
        for gap in (
            "OpenAPISpecContent.url is not in the definition's answer",
            "OpenAPISpecContent.urls is promised by the definition, not by the sandbox",
        )
    },
    **{
        "GET /orgs/{organizationId}/sites/{siteId}/permissions/aggregate: UserPermission."
        f"{field} is promised by the definition, not by the sandbox": "issue 39: not modelled"
        for field in ("disabled", "origin")
    },
    **{
        f"{route}: Customization.hasOverrides is not in the definition's answer": HAS_OVERRIDES
        for route in (
            "GET /orgs/{organizationId}/sites/{siteId}/customization",
            "PUT /orgs/{organizationId}/sites/{siteId}/customization",
            "GET /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization",
            "PATCH /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization",
        )
    },
    # A provider is created with a label only (the definition's create requires no more), and
    # the sandbox answers it so; the definition's answer promises these three.
    **{
        f"{route}: SAMLProvider.{field} is promised by the definition, not by the sandbox": why
        for route in (
            "GET /orgs/{organizationId}/saml",
            "POST /orgs/{organizationId}/saml",
            "GET /orgs/{organizationId}/saml/{samlProviderId}",
            "PATCH /orgs/{organizationId}/saml/{samlProviderId}",
        )
        for field, why in (
            ("entityID", LABEL_ONLY),
            ("ssoURL", LABEL_ONLY),
            ("certificate", LABEL_ONLY),
        )
    },
}


def definition_operations() -> dict[tuple[str, str], dict[str, Any]]:
    """The definition's operations by method and path with its parameters unnamed."""
    found = {}
    for path, item in DEFINITION.paths.items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                found[(method.upper(), _PARAMETER.sub("{}", path))] = operation
    return found


OPERATIONS = definition_operations()


def sandbox_object(schema: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The name and description of the object ``schema`` answers (each item's, for a page)."""
    reference = schema.get("$ref") or schema.get("properties", {}).get("items", {}).get(
        "items", {}
    ).get("$ref")
    if not reference:
        return None
    name = reference.rsplit("/", 1)[-1]
    return name, objects()[name]


def definition_alternatives(schema: dict[str, Any]) -> list[tuple[dict[str, Any], set[str]]]:
    """The fields and required fields of each object ``schema`` allows (``allOf`` merged)."""
    schema = DEFINITION.resolve(schema)
    if "allOf" in schema:
        parts = [found for found in (definition_alternatives(p) for p in schema["allOf"]) if found]
        merged = []
        for combination in itertools.product(*parts):
            fields: dict[str, Any] = {}
            required: set[str] = set()
            for part_fields, part_required in combination:
                fields.update(part_fields)
                required |= part_required
            merged.append((fields, required))
        return merged
    choices = schema.get("oneOf") or schema.get("anyOf")
    if choices:
        base = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
        shared = base if base.get("properties") else None
        return [
            alternative
            for choice in choices
            for alternative in definition_alternatives(
                {"allOf": [shared, choice]} if shared else choice
            )
        ]
    if "properties" in schema or schema.get("type") == "object":
        return [(dict(schema.get("properties", {})), set(schema.get("required", ())))]
    return []


def definition_answer(ep: Endpoint) -> list[tuple[dict[str, Any], set[str]]] | None:
    """The objects the definition's answer of ``ep`` allows (each item's, for a list)."""
    operation = OPERATIONS.get((ep.method, _PARAMETER.sub("{}", ep.path)))
    response = operation and operation["responses"].get(str(ep.status))
    if not response:
        return None
    content = DEFINITION.resolve(response).get("content", {}).get("application/json")
    if content is None:
        return None
    alternatives = definition_alternatives(content["schema"])
    lists = [fields["items"] for fields, _ in alternatives if "items" in fields]
    if lists and ep.answer is not None and "$ref" not in ep.answer:
        return definition_alternatives(DEFINITION.resolve(lists[0]).get("items", {}))
    return alternatives


def gaps(ep: Endpoint) -> list[str]:
    """Where the sandbox's description of ``ep``'s answer is wider than the definition's."""
    described = sandbox_object(ep.answer or {})
    alternatives = definition_answer(ep)
    if described is None or not alternatives:
        return []
    name, schema = described
    return object_gaps(schema, alternatives, f"{ep.method} {ep.path}: {name}")


def object_gaps(
    schema: dict[str, Any], alternatives: list[tuple[dict[str, Any], set[str]]], where: str
) -> list[str]:
    """The gaps of one object the sandbox describes, and of the objects in its fields."""
    schema = resolved(schema)
    described = schema.get("properties", {})
    fields: dict[str, list[Any]] = {}
    for alternative, _ in alternatives:
        for field, value in alternative.items():
            fields.setdefault(field, []).append(value)
    promised = set.intersection(*(required for _, required in alternatives))
    found = [
        f"{where}.{field} is not in the definition's answer"
        for field in sorted(set(described) - set(fields))
    ] + [
        f"{where}.{field} is promised by the definition, not by the sandbox"
        for field in sorted(promised - set(schema.get("required", ())))
    ]
    for field in sorted(set(described) & set(fields)):
        inner = resolved(described[field])
        if inner.get("type") == "object" and inner.get("properties"):
            nested = [a for value in fields[field] for a in definition_alternatives(value)]
            if nested:
                found += object_gaps(inner, nested, f"{where}.{field}")
    return found


def resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """A description of the sandbox's, its reference to another object followed."""
    while "$ref" in schema:
        schema = objects()[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


ANSWERING = [ep for ep in ENDPOINTS if ep.answer is not None]


def test_every_route_answering_a_body_answers_one_the_definition_describes() -> None:
    assert [f"{ep.method} {ep.path}" for ep in ANSWERING if not definition_answer(ep)] == []


@pytest.mark.parametrize("ep", ANSWERING, ids=[f"{ep.method} {ep.path}" for ep in ANSWERING])
def test_the_sandbox_describes_no_field_the_definition_lacks_and_promises_what_it_does(
    ep: Endpoint,
) -> None:
    known = {gap for gap in KNOWN_GAPS if gap.startswith(f"{ep.method} {ep.path}: ")}
    found = set(gaps(ep))
    assert sorted(found - known) == [], "the sandbox's description widens the definition"
    assert sorted(known - found) == [], "closed: remove these from KNOWN_GAPS"
