"""A site's context connections (where its AI features read outside knowledge from):
``GET|POST /orgs/{organizationId}/sites/{siteId}/context-connections`` and
``GET|PATCH|DELETE .../context-connections/{siteContextConnectionId}``. Syncing and testing a
connection (``/sync``, ``/test``) are actions, not served.

A connector's ``setupSettings`` may hold the credentials of a third-party account (a token, an
API key, a client secret); the definition has every answer carry them, and the sandbox's do.

Choices where the API documents are silent, as the UI behaves:
- Reading needs membership of the organization, writing its admin role.
- The setup settings a connector requires are checked (400 naming the first missing, or one
  the connector does not take); ``integration:NAME`` and ``builtin:email``/``builtin:api``
  take none. A PATCH that sends ``setupSettings`` without ``connector`` keeps the connector.
- A new connection is ``pending`` with no records, its usage settings (when not given) are
  search on, change requests off, boost ``x1.0``; the create takes no ``label`` (a PATCH sets
  it). An email connection is given an ingestion address.
- DELETE answers 205 when it deleted the connection, 204 when there was none.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import JSONResponse, Response

from docform_sandbox.http import (
    API_BASE,
    Body,
    Ctx,
    bad_request,
    endpoint,
    list_page,
    new_id,
    timestamp,
)
from docform_sandbox.routes.shared import delete_held, held_by
from docform_sandbox.routes.site_tree import site_of

CONNECTION = "context-connection"
PATH = "/orgs/{organizationId}/sites/{siteId}/context-connections"
ONE = PATH + "/{siteContextConnectionId}"
#: What each built-in connector's setup takes: (required keys, optional keys).
CONNECTORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "builtin:email": ((), ()),
    "builtin:api": ((), ()),
    "builtin:website": (("url",), ()),
    "builtin:youtube": (("channelId",), ()),
    "builtin:github-discussions": (("repository", "token"), ()),
    "builtin:github-issues": (("repository", "token"), ()),
    "builtin:intercom": (("token",), ()),
    "builtin:front": (("token",), ()),
    "builtin:zendesk": (("subdomain", "email", "apiToken"), ()),
    "builtin:zoho-desk": (("dataCenter", "orgId", "clientId", "clientSecret", "refreshToken"), ()),
    "builtin:freshdesk": (("domain", "apiKey"), ()),
    "builtin:pylon": (("token",), ()),
    "builtin:hubspot": (("token",), ()),
    "builtin:linear": (("token",), ()),
    "builtin:jira": (("baseUrl", "apiEmail", "apiToken"), ("statusMapping",)),
}
INTEGRATION = re.compile(r"^integration:[^:]+$")


class UsageSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    changeRequests: bool
    search: bool
    sync: bool | None = None
    searchBoost: Literal["x0.8", "x1.0", "x1.2"]


class ConnectionCreate(Body):
    connector: str
    setupSettings: dict[str, Any] | None = None
    usageSettings: UsageSettings | None = None
    filter: str | None = Field(None, max_length=1024)


class ConnectionPatch(Body):
    connector: str | None = None
    setupSettings: dict[str, Any] | None = None
    usageSettings: UsageSettings | None = None
    label: str | None = Field(None, max_length=128)
    filter: str | None = Field(None, max_length=1024)


def check_setup(connector: str, settings: dict[str, Any] | None) -> dict[str, Any] | None:
    """The setup a connector takes (400 naming what is missing or foreign otherwise)."""
    if INTEGRATION.match(connector):
        required: tuple[str, ...] = ()
        optional: tuple[str, ...] = ()
    elif connector in CONNECTORS:
        required, optional = CONNECTORS[connector]
    else:
        raise bad_request(f"connector: unknown connector {connector!r}")
    given = settings or {}
    for key in required:
        if not isinstance(given.get(key), str) or not given[key]:
            raise bad_request(f"setupSettings.{key}: required by {connector}")
    for key in given:
        if key not in required + optional:
            raise bad_request(f"setupSettings.{key}: {connector} takes no such setting")
    return dict(given) if required else None


def render(site: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "context-connection",
        "id": doc["id"],
        "createdAt": doc["createdAt"],
        "status": "pending",
        "records": 0,
        "usageSettings": doc["usageSettings"],
        "connector": doc["connector"],
    }
    for name in ("label", "filter", "setupSettings"):
        if doc.get(name) is not None:
            body[name] = doc[name]
    if doc["connector"] == "builtin:email":
        body["email"] = {"ingestionAddress": f"{doc['id'].lower()}@ingest.sandbox.test"}
    prefix = f"{API_BASE}/orgs/{site['organization']}/sites/{site['id']}"
    body["urls"] = {"location": f"{prefix}/context-connections/{doc['id']}"}
    return body


def _connection_of(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any]:
    return held_by(ctx, site, CONNECTION, "siteContextConnectionId", "context connection")


@endpoint("GET", PATH)
def list_connections(ctx: Ctx) -> dict[str, Any]:
    """The site's context connections."""
    site = site_of(ctx)
    return list_page(ctx, CONNECTION, [("parent = ?", [site["id"]])], lambda d: render(site, d))


@endpoint("POST", PATH, 201)
def create_connection(ctx: Ctx) -> JSONResponse:
    """Connect a source of context to the site."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(ConnectionCreate)
    usage = body.usageSettings or UsageSettings(
        changeRequests=False, search=True, searchBoost="x1.0"
    )
    doc: dict[str, Any] = {
        "id": new_id(),
        "site": site["id"],
        "connector": body.connector,
        "setupSettings": check_setup(body.connector, body.setupSettings),
        "usageSettings": usage.model_dump(exclude_none=True),
        "filter": body.filter,
        "createdAt": timestamp(ctx.now()),
    }
    ctx.store.insert(CONNECTION, doc, org=site["organization"], parent=site["id"])
    answer = render(site, doc)
    headers = {"Location": answer["urls"]["location"]}
    return JSONResponse(answer, status_code=201, headers=headers)


@endpoint("GET", ONE)
def get_connection(ctx: Ctx) -> dict[str, Any]:
    """One context connection of the site."""
    site = site_of(ctx)
    return render(site, _connection_of(ctx, site))


@endpoint("PATCH", ONE)
def patch_connection(ctx: Ctx) -> dict[str, Any]:
    """Change a connection's setup, usage settings, label or filter."""
    site = site_of(ctx, write=True)
    doc = _connection_of(ctx, site)
    patch = ctx.body_as(ConnectionPatch)
    given = patch.model_fields_set
    if not given:
        raise bad_request(
            "the body must set connector, setupSettings, usageSettings, label or filter"
        )
    if "connector" in given or "setupSettings" in given:
        connector = patch.connector or doc["connector"]
        settings = patch.setupSettings if "setupSettings" in given else doc.get("setupSettings")
        doc["connector"], doc["setupSettings"] = connector, check_setup(connector, settings)
    if patch.usageSettings is not None:
        doc["usageSettings"] = patch.usageSettings.model_dump(exclude_none=True)
    for name in ("label", "filter"):
        if name in given:
            doc[name] = getattr(patch, name) or None
    ctx.store.update(CONNECTION, doc)
    return render(site, doc)


@endpoint("DELETE", ONE, 205)
def delete_connection(ctx: Ctx) -> Response | None:
    """205 when it deleted the connection, 204 when there was none."""
    site = site_of(ctx, write=True)
    return delete_held(ctx, site, CONNECTION, "siteContextConnectionId")
