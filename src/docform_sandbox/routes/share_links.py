"""Share links of a site: ``GET|POST /orgs/{organizationId}/sites/{siteId}/share-links`` and
``PATCH|DELETE .../share-links/{shareLinkId}``.

Each link has a key of its own, which the service embeds in ``urls.published`` (anyone holding
that URL reads a ``share-link`` site): a secret every list, create and PATCH answer carries, as
the sandbox's do.

Choices where the API documents are silent:
- Every operation needs the organization's admin role, lists included (they show the keys).
- ``name`` is 0..50 characters and may repeat; a link created without one has none, and its
  answers leave ``name`` out. ``active`` is true until a PATCH sets it; answers always carry it.
- ``search`` keeps the links whose name contains it (any case) or whose key equals it.
- The key is 32 URL-safe characters; ``urls.published`` is the site's published address
  followed by ``/~s/{key}/``. A deleted link's key opens nothing.
- Lists go newest first by default, honouring ``order`` like other lists.
"""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import Field
from starlette.responses import JSONResponse, Response

from docform_sandbox.http import (
    API_BASE,
    Body,
    Ctx,
    ListQuery,
    bad_request,
    endpoint,
    list_page,
    new_id,
    timestamp,
)
from docform_sandbox.routes.shared import delete_held, held_by
from docform_sandbox.routes.site_tree import site_of, site_published_url

LINK = "share-link"
PATH = "/orgs/{organizationId}/sites/{siteId}/share-links"


class LinkCreate(Body):
    name: str | None = Field(None, max_length=50)


class LinkPatch(Body):
    active: bool | None = None
    name: str | None = Field(None, max_length=50)


class LinkQuery(ListQuery):
    search: str | None = None


def render_link(site: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"object": "share-link", "id": doc["id"], "createdAt": doc["createdAt"]}
    if doc.get("name") is not None:
        body["name"] = doc["name"]
    body["active"] = doc["active"]
    body["urls"] = {"published": f"{site_published_url(site)}/~s/{doc['key']}/"}
    return body


def _link_of(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any]:
    return held_by(ctx, site, LINK, "shareLinkId", "share link")


def _search(search: str | None) -> list[tuple[str, list[Any]]]:
    if not search:
        return []
    name = "lower(coalesce(json_extract(data, '$.name'), ''))"
    clause = f"(instr({name}, ?) > 0 OR json_extract(data, '$.key') = ?)"
    return [(clause, [search.lower(), search])]


@endpoint("GET", PATH)
def list_links(ctx: Ctx) -> dict[str, Any]:
    site = site_of(ctx, write=True)
    where = [("parent = ?", [site["id"]]), *_search(ctx.query_as(LinkQuery).search)]
    return list_page(ctx, LINK, where, lambda doc: render_link(site, doc))


@endpoint("POST", PATH, 201)
def create_link(ctx: Ctx) -> JSONResponse:
    """A new link, active, with a key of its own; the answer carries ``Location``."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(LinkCreate)
    doc: dict[str, Any] = {"id": new_id(), "site": site["id"], "name": body.name, "active": True}
    doc["key"] = secrets.token_urlsafe(24)
    doc["createdAt"] = timestamp(ctx.now())
    ctx.store.insert(LINK, doc, org=site["organization"], parent=site["id"])
    location = f"{API_BASE}/orgs/{site['organization']}/sites/{site['id']}/share-links/{doc['id']}"
    return JSONResponse(render_link(site, doc), status_code=201, headers={"Location": location})


@endpoint("PATCH", PATH + "/{shareLinkId}")
def patch_link(ctx: Ctx) -> dict[str, Any]:
    site = site_of(ctx, write=True)
    doc = _link_of(ctx, site)
    patch = ctx.body_as(LinkPatch)
    given = patch.model_fields_set
    if not given:
        raise bad_request("the body must set active or name")
    if "active" in given and patch.active is None:
        raise bad_request("active: must be true or false")
    doc.update((name, getattr(patch, name)) for name in given)
    ctx.store.update(LINK, doc)
    return render_link(site, doc)


@endpoint("DELETE", PATH + "/{shareLinkId}", 205)
def delete_link(ctx: Ctx) -> Response | None:
    """205 when it deleted the link, 204 when there was none."""
    site = site_of(ctx, write=True)
    return delete_held(ctx, site, LINK, "shareLinkId")
