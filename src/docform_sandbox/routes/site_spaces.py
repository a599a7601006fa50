"""Site spaces of one site (``/orgs/{organizationId}/sites/{siteId}/site-spaces``): a space shown
in a section, or at the site's root when it has no sections. The choices where the API
documents are silent are listed in ``site_structure.py``."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from docform_sandbox.http import ApiError, Body, Ctx, Query, bad_request, endpoint
from docform_sandbox.routes.site_lists import page_of
from docform_sandbox.routes.site_structure import BASE
from docform_sandbox.routes.site_tree import (
    SITE_SPACE,
    add_site_space,
    load_tree,
    render_site_space,
    site_of,
    space_for,
)
from docform_sandbox.routes.structure_edits import (
    MoveBody,
    apply_patch,
    found,
    move_next_to,
    reject_nulls,
)

#: The optional fields of the definition's objects that this family's answers always hold.
FILLS: dict[str, tuple[str, ...]] = {
    "SiteSpace": ("urls.published",),
}


class SiteSpaceListQuery(Query):
    default: bool | None = None


@endpoint("GET", BASE + "/site-spaces")
def list_site_spaces(ctx: Ctx) -> dict[str, Any]:
    """Every site space of the site in structure order; ``default`` keeps (or drops) defaults."""
    tree = load_tree(ctx, site_of(ctx))
    wanted = ctx.query_as(SiteSpaceListQuery).default
    items = tree.all_site_spaces()
    if wanted is not None:
        items = [
            s for s in items if (tree.default_site_space(s.get("section")) == s["id"]) == wanted
        ]
    return page_of(ctx, items, lambda doc: render_site_space(ctx, tree, doc))


class SiteSpaceCreate(Body):
    spaceId: str
    sectionId: str | None = None
    draft: bool = False
    pageId: str | None = Field(None, min_length=1, max_length=100)


@endpoint("POST", BASE + "/site-spaces", status=201)
def create_site_space(ctx: Ctx) -> dict[str, Any]:
    """Show a space in the site: in ``sectionId``, else the default section, else the root."""
    site = site_of(ctx, write=True)
    spec = ctx.body_as(SiteSpaceCreate)
    space = space_for(ctx, site["organization"], spec.spaceId, "spaceId")
    tree = load_tree(ctx, site)
    if spec.sectionId is not None and spec.sectionId not in tree.sections:
        raise bad_request(f"sectionId: no section '{spec.sectionId}' in this site")
    section_id = spec.sectionId or tree.default_section()
    doc = add_site_space(ctx, tree, space, section_id)
    if spec.draft or spec.pageId is not None:
        doc.update(draft=spec.draft, **({"pageId": spec.pageId} if spec.pageId else {}))
        ctx.store.update(SITE_SPACE, doc)
    return render_site_space(ctx, tree, doc)


class SiteSpacePatch(Body):
    path: str | None = Field(None, min_length=1, max_length=100)
    condition: str | None = Field(None, max_length=1024)
    spaceId: str | None = None
    hidden: bool | None = None
    draft: bool | None = None
    pageId: str | None = Field(None, min_length=1, max_length=100)


@endpoint("PATCH", BASE + "/site-spaces/{siteSpaceId}")
def patch_site_space(ctx: Ctx) -> dict[str, Any]:
    """Change a site space's path, condition, space or visibility in navigation."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, SITE_SPACE, ctx.params["siteSpaceId"])
    patch = ctx.body_as(SiteSpacePatch)
    reject_nulls(patch, ("path", "spaceId", "hidden", "draft"))
    if patch.spaceId is not None and patch.spaceId != doc["space"]:
        # Another space's pages are not this one's: its home page goes unless given anew.
        doc.pop("pageId", None)
    if patch.spaceId is not None:
        doc["space"] = space_for(ctx, site["organization"], patch.spaceId, "spaceId")["id"]
    if patch.path is not None:
        siblings = tree.spaces_in(doc.get("section"))
        if any(s["path"] == patch.path and s["id"] != doc["id"] for s in siblings):
            raise ApiError(409, f"path: '{patch.path}' is already used in this section")
    apply_patch(doc, patch, ("path", "condition", "hidden", "draft", "pageId"))
    ctx.store.update(SITE_SPACE, doc)
    return render_site_space(ctx, tree, doc)


@endpoint("DELETE", BASE + "/site-spaces/{siteSpaceId}", status=204)
def delete_site_space(ctx: Ctx) -> None:
    """Take a space off the site; an absent site space answers 204."""
    site = site_of(ctx, write=True)
    site_space_id = ctx.params["siteSpaceId"]
    if ctx.store.locate(SITE_SPACE, site_space_id) == (site["organization"], site["id"]):
        ctx.store.delete(SITE_SPACE, site_space_id)
    return None


@endpoint("POST", BASE + "/site-spaces/{siteSpaceId}/move")
def move_site_space(ctx: Ctx) -> dict[str, Any]:
    """Deprecated: put a site space next to another one (the sort operation replaces it)."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, SITE_SPACE, ctx.params["siteSpaceId"])
    move_next_to(ctx, tree, SITE_SPACE, doc, ctx.body_as(MoveBody).position)
    return render_site_space(ctx, load_tree(ctx, site), doc)
