"""What each sandbox route answers on success, as JSON Schema (the OpenAPI 3.1 dialect).

These are the objects of the documentation service as docs/service.md describes them: a field
listed as required is in every answer, an optional one is left out when it has no value (never
sent as null; only roles keep null, where it means "guest"). Objects allow no field beyond the
ones listed, so the sandbox cannot drift into sending something its description does not say.

`openapi_description` puts `SCHEMAS` under ``components/schemas``; which route answers which
of them is in `route_answers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform.sandbox.http import ROLES

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INTEGER: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number", "minimum": 0}
TIME: Schema = {"type": "string", "format": "date-time"}
URL: Schema = {"type": "string", "format": "uri"}
ID: Schema = {"type": "string", "pattern": "^[a-zA-Z0-9_-]+$"}
ROLE_OR_GUEST: Schema = {"enum": [*ROLES, None]}
LEVEL: Schema = {"enum": [*ROLES, "inherit", None]}
CURSOR: Schema = {
    "type": "object",
    "required": ["page"],
    "properties": {"page": STRING},
    "additionalProperties": False,
}


def obj(required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None) -> Schema:
    """An object with these fields and no other."""
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "additionalProperties": False,
    }


def const(value: str) -> Schema:
    return {"const": value}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def flags(*names: str) -> Schema:
    """A ``permissions`` object: every name a boolean, and more booleans allowed."""
    return {
        "type": "object",
        "required": list(names),
        "properties": dict.fromkeys(names, BOOL),
        "additionalProperties": BOOL,
    }


def page(name: str) -> Schema:
    """A list answer whose items are ``name`` objects."""
    return obj({"count": INTEGER, "items": array(ref(name))}, {"next": CURSOR, "previous": CURSOR})


def urls(*required: str, optional: tuple[str, ...] = ()) -> Schema:
    return obj(dict.fromkeys(required, URL), dict.fromkeys(optional, URL))


ORGANIZATION_PERMISSIONS = (
    "view", "access", "admin", "ownTeam", "createContent", "createOpenAPISpec",
    "ingestConversations", "viewBilling", "listMembers", "listTeams", "listIntegrations",
    "listInstallations", "installIntegration",
)  # fmt: skip
SPACE_PERMISSIONS = (
    "view", "access", "admin", "viewInviteLinks", "edit", "triggerGitSync", "comment", "merge",
    "review", "installIntegration",
)  # fmt: skip
SPACE_VISIBILITIES = [
    "public", "unlisted", "share-link", "visitor-auth", "in-collection", "private",
]  # fmt: skip
MERGE_RULES = obj(
    {"type": {"enum": ["inherit", "rules", "none"]}},
    {"rules": array({"type": "object", "required": ["rule"]})},
)

SCHEMAS: dict[str, Schema] = {
    "User": obj(
        {"object": const("user"), "id": ID, "displayName": STRING, "urls": urls("location")},
        {"email": STRING, "photoURL": URL},
    ),
    "Organization": obj(
        {
            "object": const("organization"),
            "id": ID,
            "title": STRING,
            "createdAt": TIME,
            "emailDomains": array(STRING),
            "type": STRING,
            "useCase": STRING,
            "defaultRole": ROLE_OR_GUEST,
            "sso": BOOL,
            "ai": BOOL,
            "inviteLinks": BOOL,
            "plan": STRING,
            "mergeRules": MERGE_RULES,
            "trial": obj(
                {"status": STRING, "count": INTEGER}, {"endDate": TIME, "decision": STRING}
            ),
            "urls": urls("location", "app", "logo"),
            "permissions": flags(*ORGANIZATION_PERMISSIONS),
        },
        {
            "hostname": STRING,
            "defaultContent": obj({"type": const("site"), "site": ID}),
        },
    ),
    "Member": obj(
        {
            "object": const("member"),
            "id": ID,
            "role": ROLE_OR_GUEST,
            "user": ref("User"),
            "disabled": BOOL,
            "joinedAt": TIME,
            "sso": BOOL,
            "spaces": NUMBER,
            "teams": NUMBER,
            "sites": NUMBER,
        },
        {"lastSeenAt": TIME},
    ),
    "Team": obj(
        {
            "object": const("team"),
            "id": ID,
            "title": STRING,
            "members": INTEGER,
            "spaces": NUMBER,
            "createdAt": TIME,
            "permissions": flags("admin", "view"),
        }
    ),
    "TeamMember": obj(
        {
            "organization": ref("Member"),
            "team": obj({"role": {"enum": ["owner", "member"]}}),
            "permissions": flags("view"),
        }
    ),
    "Collection": obj(
        {
            "object": const("collection"),
            "id": ID,
            "title": STRING,
            "organization": ID,
            "defaultLevel": LEVEL,
            "urls": urls("location", "app"),
            "permissions": flags("view", "admin", "viewInviteLinks", "create"),
        },
        {"description": STRING, "parent": ID},
    ),
    "Space": obj(
        {
            "object": const("space"),
            "id": ID,
            "title": STRING,
            "emoji": STRING,
            "organization": ID,
            "visibility": {"enum": SPACE_VISIBILITIES},
            "revision": STRING,
            "createdAt": TIME,
            "updatedAt": TIME,
            "comments": NUMBER,
            "changeRequests": NUMBER,
            "changeRequestsOpen": NUMBER,
            "changeRequestsDraft": NUMBER,
            "mergeRules": MERGE_RULES,
            "defaultLevel": LEVEL,
            "urls": urls("location", "app", optional=("published", "public", "icon")),
            "permissions": flags(*SPACE_PERMISSIONS),
        },
        {
            "deletedAt": TIME,
            "editMode": {"enum": ["live", "locked"]},
            "parent": ID,
            "language": STRING,
        },
    ),
    "Site": obj(
        {
            "object": const("site"),
            "id": ID,
            "organization": ID,
            "type": STRING,
            "appliedType": STRING,
            "title": STRING,
            "visibility": {"enum": ["public", "unlisted", "share-link", "visitor-auth"]},
            "defaultLevel": LEVEL,
            "permissions": flags("view", "access", "edit", "create", "admin"),
            "published": BOOL,
            "siteSpaces": NUMBER,
            "createdAt": TIME,
            "features": {"type": "object"},
            "urls": urls("location", "app", "preview", optional=("published",)),
        },
        {
            "icon": STRING,
            "hostname": STRING,
            "basename": STRING,
            "proxy": obj({"origin": STRING, "target": STRING}),
        },
    ),
    "SiteSpace": obj(
        {
            "object": const("site-space"),
            "id": ID,
            "path": STRING,
            "space": ref("Space"),
            "title": STRING,
            "draft": BOOL,
            "urls": urls("published"),
        },
        {
            "section": ID,
            "default": BOOL,
            "condition": STRING,
            "hasAdvancedCustomizationFeature": BOOL,
            "hidden": BOOL,
        },
    ),
    "SiteSection": obj(
        {
            "object": const("site-section"),
            "id": ID,
            "title": STRING,
            "path": STRING,
            "siteSpaces": array(ref("SiteSpace")),
            "draft": BOOL,
            "urls": urls("published"),
        },
        {
            "description": STRING,
            "default": BOOL,
            "condition": STRING,
            "sectionGroup": ID,
            "icon": STRING,
        },
    ),
    "SiteSectionGroup": obj(
        {
            "object": const("site-section-group"),
            "id": ID,
            "title": STRING,
            # Deprecated by the service in favour of `children`, still sent.
            "sections": array(ref("SiteSection")),
            # In order: sections and nested groups (the sandbox has no external links).
            "children": array({"anyOf": [ref("SiteSection"), ref("SiteSectionGroup")]}),
            "draft": BOOL,
        },
        {"icon": STRING, "sectionGroup": ID},
    ),
    "SiteStructure": {
        "anyOf": [
            obj(
                {
                    "type": const("sections"),
                    "structure": array({"anyOf": [ref("SiteSection"), ref("SiteSectionGroup")]}),
                }
            ),
            obj({"type": const("siteSpaces"), "structure": array(ref("SiteSpace"))}),
        ]
    },
    "OpenAPISpec": obj(
        {
            "object": const("openapi-spec"),
            "id": ID,
            "createdAt": TIME,
            "updatedAt": TIME,
            "slug": STRING,
            "processingState": {"enum": ["pending", "progress", "complete"]},
            "lastProcessedErrorCount": INTEGER,
            "permissions": flags("view", "edit"),
            "urls": urls("location", "app", "published"),
        },
        {
            "sourceURL": URL,
            "visibility": {"enum": ["private", "public"]},
            "lastVersion": ID,
            "lastProcessedAt": TIME,
            "lastProcessErrorCode": STRING,
            "lastProcessedErrors": array(obj({"message": STRING, "code": STRING})),
        },
    ),
    "OpenAPISpecVersion": obj(
        {"object": const("openapi-spec-version"), "id": ID, "url": URL, "urls": urls("location")},
        {"createdAt": TIME},
    ),
    "OpenAPISpecContent": obj({"filesystem": {"type": "object"}, "url": URL}),
    "SAMLProvider": obj(
        {
            "object": const("saml-provider"),
            "id": ID,
            "label": STRING,
            "defaultRole": ROLE_OR_GUEST,
            "createdAt": TIME,
            "status": {"enum": ["active", "pending"]},
            "service": urls("acsURL", "startURL", "entityID"),
            "urls": urls("location"),
        },
        {"ssoURL": URL, "entityID": STRING, "certificate": STRING, "defaultTeam": ref("Team")},
    ),
    "TeamPermission": obj({"permission": ROLE_OR_GUEST, "team": ref("Team")}),
    # A user's grant, and an entry of an `aggregate` list (who ends up with access).
    "UserPermission": obj({"permission": ROLE_OR_GUEST, "user": ref("User")}),
    "SiteRedirect": obj(
        {
            "object": const("site-redirect"),
            "id": ID,
            "source": {"type": "string", "pattern": "^/", "maxLength": 512},
            "destination": {
                "oneOf": [
                    obj({"kind": const("site-section"), "siteSectionId": ID}),
                    obj({"kind": const("site-space"), "siteSpaceId": ID}),
                    obj({"kind": const("site-page"), "siteSpaceId": ID, "pageId": ID}),
                    obj({"kind": const("external"), "url": URL}),
                ]
            },
            "captureWildcard": BOOL,
            "permanent": BOOL,
            "draft": BOOL,
            "createdAt": TIME,
        },
        {"updatedAt": TIME},
    ),
    "SSOEntries": obj({"items": array(obj({"id": ID, "label": STRING, "startURL": URL}))}),
    "Invited": obj({"users": array(ID), "invited": INTEGER}, {"failedSSOEmails": array(STRING)}),
    "Ping": obj({"serviceVisitorClaims": STRING}),
}
