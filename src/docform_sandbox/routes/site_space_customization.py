"""Overrides of a site's customization for one of its site spaces: ``GET``, ``PATCH`` and
``DELETE /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization``.

GET and PATCH answer the effective document: the site's customization with the site space's
overrides laid over it. PATCH merges: a key left out keeps its override, a value sets it, null
clears it, and the parts of an override nest (``{styling: {primaryColor: null}}``); an
announcement is replaced whole, never cleared. DELETE clears every override: 205, or 204 when
there were none.

Choices where the API documents are silent: reading needs membership of the organization, a
change its admin role; overrides are kept with the site space (deleted with it). The answer is
the definition's ``SiteCustomizationSettings``, without the ``hasOverrides`` of its
``SiteSpaceCustomizationSettings`` (a type no operation answers): whether a site space
overrides anything shows in DELETE's 205 or 204.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from docform.service.site_overrides import Override, merged_overrides
from docform_sandbox.http import Body, Ctx, endpoint, not_found
from docform_sandbox.routes.shared import removed
from docform_sandbox.routes.site_customization import site_document
from docform_sandbox.routes.site_tree import SITE_SPACE, load_tree, site_of

PATH = "/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization"


class OverrideBody(Override, Body):
    """A PATCH's body: the override keys to set or clear."""

    model_config = Override.model_config | {"strict": True}


def _site_space(ctx: Ctx, *, write: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    site = site_of(ctx, write=write)
    doc = load_tree(ctx, site).site_spaces.get(ctx.params["siteSpaceId"])
    if doc is None:
        raise not_found("site space", ctx.params["siteSpaceId"])
    return site, doc


def _effective(site: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    return merged_overrides(site_document(site), doc.get("overrides") or {})


@endpoint("GET", PATH)
def get_site_space_customization(ctx: Ctx) -> dict[str, Any]:
    """The site space's effective customization (the site's values where not overridden)."""
    site, doc = _site_space(ctx)
    return _effective(site, doc)


@endpoint("PATCH", PATH)
def patch_site_space_customization(ctx: Ctx) -> dict[str, Any]:
    """Set or clear (null) some of the site space's overrides."""
    site, doc = _site_space(ctx, write=True)
    body = ctx.body_as(OverrideBody)
    patch = body.model_dump(exclude_unset=True, mode="json")
    doc["overrides"] = merged_overrides(doc.get("overrides") or {}, patch)
    ctx.store.update(SITE_SPACE, doc)
    return _effective(site, doc)


@endpoint("DELETE", PATH, 204)
def delete_site_space_customization(ctx: Ctx) -> Response | None:
    """Clear every override of the site space: 205, or 204 when it had none."""
    _, doc = _site_space(ctx, write=True)
    if not doc.get("overrides"):
        return None
    doc.pop("overrides")
    ctx.store.update(SITE_SPACE, doc)
    return removed()
