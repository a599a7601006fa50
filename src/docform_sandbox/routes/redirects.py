"""Site redirects: list, create, change and delete ``/orgs/{organizationId}/sites/{siteId}/
redirects``.

``source`` is a path: ``/`` then segments of ``A-Z a-z 0-9 - . _ ~ +`` or ``%XX`` escapes
separated by single slashes, at most 512 characters, optionally ending in ``*`` or ``/*``
(a wildcard, at the end only). ``destination`` is a section or a site space of the same site,
a page of one of its site spaces, or an external http(s) URL.

Choices where the API documents are silent:

- Reading needs membership of the organization; every change needs its admin role.
- A new redirect is not permanent, not a draft and does not capture its wildcard unless the
  body says so. ``captureWildcard: true`` needs a source ending in ``*`` (400 otherwise).
- Two redirects of one site cannot have the same source: that is a 409 naming the other one.
- A page is not checked beyond its id (the sandbox holds no pages); a destination that is
  deleted later leaves the redirect as it is.
- PATCH changes only the fields given (null for any of them is a 400); ``updatedAt`` appears
  once a PATCH changed a value. DELETE answers 204, also when there is no such redirect.
- ``search`` keeps redirects whose source or external URL contains it (any case); ``draft``
  keeps drafts or non-drafts; ``orderBy`` is ``createdAt`` (newest first, the default),
  ``updatedAt`` (most recently changed first, a redirect never changed counting from its
  creation) or ``source`` (A to Z); ``order`` is not a parameter of this list.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from docform_sandbox.documents import MAX_REDIRECT_SOURCE, REDIRECT_SOURCE
from docform_sandbox.http import (
    ApiError,
    Body,
    Ctx,
    Query,
    bad_request,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.site_tree import REDIRECT, load_tree, site_of

EXTERNAL_URL = re.compile(r"https?://[^\s/?#]+\S*")
ORDER_BY = {
    "createdAt": ("json_extract(data, '$.createdAt')", "desc"),
    "updatedAt": (
        "coalesce(json_extract(data, '$.updatedAt'), json_extract(data, '$.createdAt'))",
        "desc",
    ),
    "source": ("json_extract(data, '$.source')", "asc"),
}
FLAGS = ("captureWildcard", "permanent", "draft")


class SectionDestination(Body):
    kind: Literal["site-section"]
    siteSectionId: str


class SiteSpaceDestination(Body):
    kind: Literal["site-space"]
    siteSpaceId: str


class PageDestination(Body):
    kind: Literal["site-page"]
    siteSpaceId: str
    pageId: str = Field(min_length=1, max_length=100, pattern=r"^[a-zA-Z0-9_-]+$")


class ExternalDestination(Body):
    kind: Literal["external"]
    url: str = Field(max_length=2048)


Destination = Annotated[
    SectionDestination | SiteSpaceDestination | PageDestination | ExternalDestination,
    Field(discriminator="kind"),
]


class RedirectCreate(Body):
    source: str
    destination: Destination
    captureWildcard: bool = False
    permanent: bool = False
    draft: bool = False


class RedirectPatch(Body):
    source: str | None = None
    destination: Destination | None = None
    captureWildcard: bool | None = None
    permanent: bool | None = None
    draft: bool | None = None


class RedirectListQuery(Query):
    search: str | None = None
    draft: bool | None = None
    orderBy: Literal["createdAt", "updatedAt", "source"] = "createdAt"


# -- checks --------------------------------------------------------------------------------------


def check_source(source: str) -> None:
    if len(source) > MAX_REDIRECT_SOURCE:
        raise bad_request(f"source: must be at most {MAX_REDIRECT_SOURCE} characters")
    if not REDIRECT_SOURCE.fullmatch(source):
        raise bad_request(
            f"source: {source!r} is not a redirect source: a path starting with '/' of one or "
            "more segments of the characters A-Z a-z 0-9 - . _ ~ + or %XX escapes between "
            "single slashes, no trailing '/', optionally ending in '*' or '/*'"
        )


def _check_destination(ctx: Ctx, site: dict[str, Any], destination: Any) -> None:
    """The section or site space a destination names must be one of this site's."""
    if isinstance(destination, ExternalDestination):
        if not EXTERNAL_URL.fullmatch(destination.url):
            raise bad_request("destination.url: must be an absolute http(s) URL")
        return
    tree = load_tree(ctx, site)
    if isinstance(destination, SectionDestination):
        if destination.siteSectionId not in tree.sections:
            raise bad_request(
                f"destination.siteSectionId: no section '{destination.siteSectionId}' in this site"
            )
    elif destination.siteSpaceId not in tree.site_spaces:
        raise bad_request(
            f"destination.siteSpaceId: no site space '{destination.siteSpaceId}' in this site"
        )


def _check_unique_source(ctx: Ctx, site_id: str, source: str, except_id: str | None) -> None:
    same = ctx.store.all(
        REDIRECT, [("parent = ?", [site_id]), ("json_extract(data, '$.source') = ?", [source])]
    )
    for other in same:
        if other["id"] != except_id:
            raise ApiError(
                409,
                f"source: site '{site_id}' already has a redirect from {source!r} "
                f"('{other['id']}')",
            )


def _check_wildcard(redirect: dict[str, Any]) -> None:
    if redirect["captureWildcard"] and not redirect["source"].endswith("*"):
        raise bad_request("captureWildcard: needs a source ending in '*' (a wildcard)")


def _find(ctx: Ctx, site: dict[str, Any], redirect_id: str) -> dict[str, Any] | None:
    redirect = ctx.store.get(REDIRECT, redirect_id)
    located = ctx.store.locate(REDIRECT, redirect_id)
    if redirect is None or located is None or located[1] != site["id"]:
        return None
    return redirect


def render_redirect(doc: dict[str, Any]) -> dict[str, Any]:
    body = {"object": "site-redirect", "id": doc["id"], "source": doc["source"]}
    body["destination"] = doc["destination"]
    body.update({flag: doc[flag] for flag in FLAGS})
    body["createdAt"] = doc["createdAt"]
    if "updatedAt" in doc:
        body["updatedAt"] = doc["updatedAt"]
    return body


# -- endpoints -----------------------------------------------------------------------------------


@endpoint("GET", "/orgs/{organizationId}/sites/{siteId}/redirects")
def list_redirects(ctx: Ctx) -> dict[str, Any]:
    """A site's redirects, newest first unless ``orderBy`` says otherwise."""
    site = site_of(ctx)
    q = ctx.query_as(RedirectListQuery)
    where: list[tuple[str, list[Any]]] = [("parent = ?", [site["id"]])]
    if q.search:
        needle = q.search.lower()
        clause = (
            "instr(lower(json_extract(data, '$.source')), ?) > 0 OR "
            "instr(lower(coalesce(json_extract(data, '$.destination.url'), '')), ?) > 0"
        )
        where.append((clause, [needle, needle]))
    if q.draft is not None:
        where.append(("json_extract(data, '$.draft') = ?", [int(q.draft)]))
    sort, order = ORDER_BY[q.orderBy]
    return list_page(ctx, REDIRECT, where, render_redirect, sort=sort, default_order=order)


@endpoint("POST", "/orgs/{organizationId}/sites/{siteId}/redirects", 201)
def create_redirect(ctx: Ctx) -> dict[str, Any]:
    """Redirect visitors of a path of the site to a section, site space, page or URL."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(RedirectCreate)
    check_source(body.source)
    _check_destination(ctx, site, body.destination)
    _check_unique_source(ctx, site["id"], body.source, None)
    redirect = {"id": new_id(), **body.model_dump(), "createdAt": timestamp(ctx.now())}
    _check_wildcard(redirect)
    ctx.store.insert(REDIRECT, redirect, org=site["organization"], parent=site["id"])
    return render_redirect(redirect)


@endpoint(
    "PATCH",
    "/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}",
)
def patch_redirect(ctx: Ctx) -> dict[str, Any]:
    """Change the fields given of a redirect."""
    site = site_of(ctx, write=True)
    redirect_id = ctx.params["siteRedirectId"]
    redirect = _find(ctx, site, redirect_id)
    if redirect is None:
        raise not_found("site redirect", redirect_id)
    patch = ctx.body_as(RedirectPatch)
    changed = dict(redirect)
    for name in patch.model_fields_set:
        value = getattr(patch, name)
        if value is None:
            raise bad_request(f"{name}: must not be null")
        changed[name] = value.model_dump() if isinstance(value, Body) else value
    if patch.source is not None:
        check_source(patch.source)
        _check_unique_source(ctx, site["id"], patch.source, redirect_id)
    if patch.destination is not None:
        _check_destination(ctx, site, patch.destination)
    _check_wildcard(changed)
    if changed != redirect:
        changed["updatedAt"] = timestamp(ctx.now())
        ctx.store.update(REDIRECT, changed)
    return render_redirect(changed)


@endpoint("DELETE", "/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}", 204)
def delete_redirect(ctx: Ctx) -> None:
    """Remove a redirect; 204 also when there is no such redirect."""
    site = site_of(ctx, write=True)
    redirect = _find(ctx, site, ctx.params["siteRedirectId"])
    if redirect is not None:
        ctx.store.delete(REDIRECT, redirect["id"])
