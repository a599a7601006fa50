"""Publishing a site: ``POST /orgs/{organizationId}/sites/{siteId}/publish`` and
``.../unpublish``, which set the site's ``published`` flag (the ``published`` filter of the
site list reads it).

Choices where the API documents are silent: both need the organization's admin role; a site
with no content can be published (the service decides what visitors see, not the sandbox);
publishing a published site, or unpublishing an unpublished one, changes nothing and answers
the site as for any other call.
"""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import Ctx, endpoint
from docform_sandbox.routes.site_tree import render_site, site_of


def _set_published(ctx: Ctx, published: bool) -> dict[str, Any]:
    site = site_of(ctx, write=True)
    if site.get("published", False) != published:
        site["published"] = published
        ctx.store.update("site", site)
    return render_site(ctx, site)


@endpoint("POST", "/orgs/{organizationId}/sites/{siteId}/publish")
def publish_site(ctx: Ctx) -> dict[str, Any]:
    """Publish a site: it is served to its visitors."""
    return _set_published(ctx, True)


@endpoint("POST", "/orgs/{organizationId}/sites/{siteId}/unpublish")
def unpublish_site(ctx: Ctx) -> dict[str, Any]:
    """Unpublish a site: it is no longer served."""
    return _set_published(ctx, False)
