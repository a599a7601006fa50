"""External links in a site's navigation: ``POST /orgs/{organizationId}/sites/{siteId}/
external-links``, ``PATCH`` and ``DELETE .../external-links/{siteExternalLinkId}``.

There is no list and no single GET: links are read from the site's structure, where a link
sits at the top level or in a section group (``sectionGroup``), never in a section, ordered
among the sections and groups beside it (``PATCH .../structure/sort`` moves it there).

Choices where the API documents are silent:

- Reading needs membership of the organization; every change needs its admin role.
- A new link lands last in its container (the group ``parent`` names, else the top level). A
  site without sections has no place for links: a create there is a 400.
- PATCH changes the fields given; null clears ``description``, ``icon``, ``condition`` and
  ``localizedTitle``, and ``parent: null`` moves the link to the top level (last there). A
  link moved to another group lands last in it.
- DELETE answers 205, or 204 when there is no such link.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from starlette.responses import Response

from docform.service.site_customization import URL_PATTERN, LocalizedString128
from docform_sandbox.http import Body, Ctx, bad_request, endpoint, new_id, not_found
from docform_sandbox.routes.shared import removed
from docform_sandbox.routes.site_tree import (
    LINK,
    SiteTree,
    insert_at_end,
    load_tree,
    move_to_end,
    render_link,
    set_container,
    site_of,
)

BASE = "/orgs/{organizationId}/sites/{siteId}/external-links"
Title = Annotated[str, Field(min_length=2, max_length=128)]
Url = Annotated[str, Field(pattern=URL_PATTERN, max_length=2048)]
Description = Annotated[str, Field(max_length=256)]
Icon = Annotated[str, Field(max_length=50)]
Condition = Annotated[str, Field(max_length=1024)]
#: Fields PATCH may set to null to clear them.
CLEARABLE = ("description", "icon", "condition", "localizedTitle", "localizedDescription")


class LinkBody(Body):
    title: Title
    url: Url
    localizedTitle: LocalizedString128 | None = None
    description: Description | None = None
    localizedDescription: dict[str, Description] | None = None
    icon: Icon | None = None
    parent: str | None = None
    draft: bool | None = None
    condition: Condition | None = None


class LinkChangeBody(Body):
    title: Title | None = None
    url: Url | None = None
    localizedTitle: LocalizedString128 | None = None
    description: Description | None = None
    localizedDescription: dict[str, Description] | None = None
    icon: Icon | None = None
    parent: str | None = None
    draft: bool | None = None
    condition: Condition | None = None


def _group(tree: SiteTree, group_id: str | None) -> str | None:
    if group_id is not None and group_id not in tree.groups:
        raise bad_request(f"parent: no section group '{group_id}' in this site")
    return group_id


@endpoint("POST", BASE, status=201)
def create_external_link(ctx: Ctx) -> dict[str, Any]:
    """Add a link to the site's navigation, last at the top level or in the group ``parent``."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    body = ctx.body_as(LinkBody)
    if not tree.sections:
        raise bad_request("external links need a site with sections")
    fields = body.model_dump(exclude_none=True, exclude={"parent"})
    doc: dict[str, Any] = {"id": new_id(), "organization": site["organization"], **fields}
    group = _group(tree, body.parent)
    if group is not None:
        doc["sectionGroup"] = group
    insert_at_end(ctx, tree, LINK, doc)
    return render_link(doc)


@endpoint("PATCH", BASE + "/{siteExternalLinkId}")
def update_external_link(ctx: Ctx) -> Any:
    """Change a link's fields, or move it to another group (``parent``; null: the top level)."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = tree.links.get(ctx.params["siteExternalLinkId"])
    if doc is None:
        raise not_found("external link", ctx.params["siteExternalLinkId"])
    body = ctx.body_as(LinkChangeBody)
    given = body.model_dump(exclude_unset=True)
    for name, value in given.items():
        if name == "parent":
            continue
        if value is None and name not in CLEARABLE:
            raise bad_request(f"{name}: null is not allowed")
        if value is None:
            doc.pop(name, None)
        else:
            doc[name] = value
    ctx.store.update(LINK, doc)
    if "parent" in given and given["parent"] != doc.get("sectionGroup"):
        set_container(ctx, LINK, doc, _group(tree, given["parent"]))
        move_to_end(ctx, tree, LINK, doc)
    return render_link(doc)


@endpoint("DELETE", BASE + "/{siteExternalLinkId}", 205)
def delete_external_link(ctx: Ctx) -> Response | None:
    """Remove a link from the navigation: 205, or 204 when there was none."""
    tree = load_tree(ctx, site_of(ctx, write=True))
    link_id = ctx.params["siteExternalLinkId"]
    if link_id not in tree.links:
        return None
    ctx.store.delete(LINK, link_id)
    return removed()
