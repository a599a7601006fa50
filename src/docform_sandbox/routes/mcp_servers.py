"""A site's MCP servers (the tools its AI assistant may call):
``GET|POST /orgs/{organizationId}/sites/{siteId}/mcp-servers`` and
``GET|PATCH|DELETE .../mcp-servers/{siteMcpServerId}``.

A server's ``headers`` carry its credentials; the definition has every answer hold them, and the
sandbox's do.

Choices where the API documents are silent, as the UI behaves:
- Reading needs membership of the organization, writing its admin role.
- ``transport`` defaults to ``sse``; a PATCH's ``headers`` replace the server's headers whole;
  a ``condition`` of null (or empty) removes it.
- Two servers of one site may share a name (the UI does not stop it).
- DELETE answers 205 when it deleted the server, 204 when there was none.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, StringConstraints
from starlette.responses import JSONResponse, Response

from docform_sandbox.http import (
    API_BASE,
    Body,
    Ctx,
    bad_request,
    endpoint,
    list_page,
    new_id,
)
from docform_sandbox.routes.shared import delete_held, held_by
from docform_sandbox.routes.site_tree import site_of

SERVER = "site-mcp-server"
PATH = "/orgs/{organizationId}/sites/{siteId}/mcp-servers"
ONE = PATH + "/{siteMcpServerId}"

Name = Annotated[str, StringConstraints(min_length=1, max_length=100)]


def _absolute(url: str) -> str:
    if not url.startswith(("https://", "http://")) or len(url) < 9:
        raise ValueError("must be an absolute http(s) URL")
    return url


Url = Annotated[str, StringConstraints(max_length=2048), AfterValidator(_absolute)]
Headers = dict[str, Annotated[str, StringConstraints(min_length=1, max_length=512)]]
Condition = Annotated[str, StringConstraints(max_length=1024)]


class ServerCreate(Body):
    name: Name
    url: Url
    transport: Literal["sse", "http"] = "sse"
    headers: Headers
    condition: Condition | None = None


class ServerPatch(Body):
    name: Name | None = None
    url: Url | None = None
    transport: Literal["sse", "http"] | None = None
    headers: Headers | None = None
    condition: Condition | None = None


def render(site: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": SERVER,
        "id": doc["id"],
        "name": doc["name"],
        "url": doc["url"],
        "transport": doc["transport"],
        "headers": doc["headers"],
    }
    if doc.get("condition"):
        body["condition"] = doc["condition"]
    prefix = f"{API_BASE}/orgs/{site['organization']}/sites/{site['id']}"
    body["urls"] = {"location": f"{prefix}/mcp-servers/{doc['id']}"}
    return body


def _server_of(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any]:
    return held_by(ctx, site, SERVER, "siteMcpServerId", "MCP server")


@endpoint("GET", PATH)
def list_servers(ctx: Ctx) -> dict[str, Any]:
    """The site's MCP servers."""
    site = site_of(ctx)
    return list_page(ctx, SERVER, [("parent = ?", [site["id"]])], lambda d: render(site, d))


@endpoint("POST", PATH, 201)
def create_server(ctx: Ctx) -> JSONResponse:
    """Register an MCP server with the site."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(ServerCreate)
    doc: dict[str, Any] = {
        "id": new_id(),
        "site": site["id"],
        "name": body.name,
        "url": body.url,
        "transport": body.transport,
        "headers": dict(body.headers),
        "condition": body.condition or None,
    }
    ctx.store.insert(SERVER, doc, org=site["organization"], parent=site["id"])
    answer = render(site, doc)
    return JSONResponse(answer, status_code=201, headers={"Location": answer["urls"]["location"]})


@endpoint("GET", ONE)
def get_server(ctx: Ctx) -> dict[str, Any]:
    """One MCP server of the site."""
    site = site_of(ctx)
    return render(site, _server_of(ctx, site))


@endpoint("PATCH", ONE)
def patch_server(ctx: Ctx) -> dict[str, Any]:
    """Change a server's name, URL, transport, headers or condition."""
    site = site_of(ctx, write=True)
    doc = _server_of(ctx, site)
    patch = ctx.body_as(ServerPatch)
    given = patch.model_fields_set
    if not given:
        raise bad_request("the body must set name, url, transport, headers or condition")
    for name in ("name", "transport", "headers"):
        if name in given:
            if getattr(patch, name) is None:
                raise bad_request(f"{name}: must not be null")
            doc[name] = getattr(patch, name)
    if "url" in given:
        if patch.url is None:
            raise bad_request("url: must not be null")
        doc["url"] = patch.url
    if "condition" in given:
        doc["condition"] = patch.condition or None
    ctx.store.update(SERVER, doc)
    return render(site, doc)


@endpoint("DELETE", ONE, 205)
def delete_server(ctx: Ctx) -> Response | None:
    """205 when it deleted the server, 204 when there was none."""
    site = site_of(ctx, write=True)
    return delete_held(ctx, site, SERVER, "siteMcpServerId")
