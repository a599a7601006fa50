"""A site's style guide: ``POST /orgs/{organizationId}/sites/{siteId}/styleguide`` (what the
UI's "create style guide" does), the site's ``styleguide`` in its answers and its ``PATCH``.

Choices where the API documents are silent, as the UI behaves:
- The POST makes a new top-level space titled "Style guide" (its content seeded from the
  ``template`` named, which the sandbox does not model) and sets it as the site's style guide,
  answering the Space (200); a site whose style guide is still a live space gets that one
  again, unchanged.
- A ``PATCH`` of the site sets ``styleguide`` to a space of the same organization that is not
  deleted (400 otherwise), or null to take it off; the space itself is left alone.
- A deleted space is no site's style guide: the site's ``styleguide`` is not shown meanwhile.
- Style guide runs (``.../styleguide/runs``) are actions on content, not served.
"""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import Body, Ctx, bad_request, endpoint, new_id, timestamp
from docform_sandbox.routes.site_answer_parts import live_styleguide
from docform_sandbox.routes.site_tree import site_of
from docform_sandbox.routes.space_rows import render_space

TITLE = "Style guide"


class StyleguideCreate(Body):
    template: str | None = None


def check_styleguide(ctx: Ctx, site: dict[str, Any], space_id: str) -> None:
    """A site's style guide is a live space of its organization (400 naming it otherwise)."""
    if live_styleguide(ctx, {**site, "styleguide": space_id}) is None:
        raise bad_request(f"styleguide: no space '{space_id}' in this organization")


@endpoint("POST", "/orgs/{organizationId}/sites/{siteId}/styleguide")
def create_styleguide(ctx: Ctx) -> dict[str, Any]:
    """Give the site a style guide space (or answer the one it has)."""
    site = site_of(ctx, write=True)
    ctx.body_as(StyleguideCreate)
    space = live_styleguide(ctx, site)
    if space is None:
        now = timestamp(ctx.now())
        space = {
            "id": new_id(),
            "title": TITLE,
            "emoji": "",
            "organization": site["organization"],
            "visibility": "private",
            "revision": new_id(),
            "createdAt": now,
            "updatedAt": now,
            "editMode": "live",
            "mergeRules": {"type": "inherit"},
            "defaultLevel": "inherit",
        }
        ctx.store.insert("space", space, org=site["organization"], parent=None)
        site["styleguide"] = space["id"]
        ctx.store.update("site", site)
    return render_space(ctx, space)
