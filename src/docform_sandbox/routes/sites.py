"""Sites: list, create, get, patch and delete ``/orgs/{organizationId}/sites``, the site's
structure tree (``GET .../structure``) and its ordering (``PATCH .../structure/sort``).

The structure endpoints themselves are in ``site_structure.py`` and ``site_spaces.py``; the
in-memory tree of one site and its renderings are in ``site_tree.py``, placement in
``structure_placement.py``.

Choices where the API documents are silent:

- Reading needs membership of the organization; every change needs its admin role.
- A new site is ``basic`` and ``public`` unless the body says otherwise; its title defaults to
  "Untitled site" and its ``basename`` is a slug of the title, unique in the organization.
  A ``basename`` already used by another site of the organization answers 409.
- A new site is not published until ``POST .../publish`` (``site_publishing.py``); the
  ``published`` answer field and list filter read that flag. ``siteSpaces`` counts the site
  spaces the site shows, ``appliedType`` is ``type`` (no plan change is ever pending),
  ``features`` lists the same features on for every site (`SITE_FEATURES`), ``permissions``
  gives every key (members view and access, admins have all), ``adaptiveContent`` appears
  once a PATCH set it (a structure object's ``draft``: ``site_structure.py``). ``urls.published`` is
  always given (``https://`` and the ``proxy`` when set, else the sandbox's base URL followed
  by the basename). ``title`` filters case-insensitively by substring, ``space`` keeps sites
  that show that space, ``type`` takes a site type.
- ``proxy`` takes a host and path without a scheme (``example.com/docs``, at most 512
  characters, the definition's ``SiteProxyOrigin`` pattern: at least one path segment of
  letters, digits, ``_`` and ``-``) or null (removes it); the answer shows it as ``{origin,
  target}``: the proxy as set and the site's own URL the proxy forwards to.
- ``defaultSiteSpace`` (PATCH) makes a site space the default of its section (or of the site
  root for a site without sections); ``defaultSiteSection`` makes a section the site's default;
  null for either goes back to the first one in structure order.
- Deleting a site answers 205 (204 when there is no such site) and removes its groups,
  sections, site spaces, redirects and content grants, and clears the organization's
  ``defaultContent`` when it pointed at the site.
- Structure: ``{type: 'sections', structure: [SiteSectionGroup | SiteSection]}`` (the top
  level, in order; groups carry their content) when the site has at least one section, else
  ``{type: 'siteSpaces', structure: [SiteSpace]}``. A group's ``sections`` are its own sections;
  its ``children`` are its own sections and nested groups, in order (the same list as
  ``sections`` unless groups are nested).
- Sort: the item moves right before or after the anchor. The definition has sorting change
  sibling order only, a section, group or external link moving between the top level and a
  group by its own update: an anchor of those in another container is a 400 naming
  ``position``. A site space still moves to another section next to a site space of it (the
  definition gives a site space no other way to change sections). A site space sits next to
  site spaces only; sections, groups and external links next to one another. The item not
  existing in the site is a 404; a bad anchor is a 400 naming ``position``.
- Lists of structure objects are in structure order (a group's content at the group's place)
  and ignore ``order``; their cursors name the last item shown, so they survive changes.
- Published URLs join the site's URL, the section path and the site space path.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.access import require_org
from docform_sandbox.grants import forget_target
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
from docform_sandbox.routes.shared import check_level, removed
from docform_sandbox.routes.site_styleguide import check_styleguide
from docform_sandbox.routes.site_tree import (
    GROUP,
    LABELS,
    LINK,
    REDIRECT,
    SECTION,
    SITE_SPACE,
    SiteType,
    SiteVisibility,
    add_site_space,
    load_tree,
    render_node,
    render_site,
    render_structure,
    site_of,
    slugify,
    space_for,
    unique_path,
)
from docform_sandbox.routes.structure_placement import anchor_node, place, position_side

# -- site endpoints ------------------------------------------------------------------------------


class SiteListQuery(Query):
    space: str | None = None
    title: str | None = None
    published: bool | None = None
    type: SiteType | None = None


#: The definition's SiteProxyOrigin: a host and at least one path segment, no scheme.
PROXY = re.compile(r"([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(/[\w-]+)+", re.ASCII)
_SHOWS_SITE_SPACE = "id IN (SELECT s.parent FROM objects s WHERE s.kind = 'site-space'{})"


@endpoint("GET", "/orgs/{organizationId}/sites")
def list_sites(ctx: Ctx) -> dict[str, Any]:
    """The organization's sites, newest first by default, with the four documented filters."""
    org = require_org(ctx, ctx.params["organizationId"])
    q = ctx.query_as(SiteListQuery)
    where: list[tuple[str, list[Any]]] = [("org = ?", [org["id"]])]
    if q.space is not None:
        clause = _SHOWS_SITE_SPACE.format(" AND json_extract(s.data, '$.space') = ?")
        where.append((clause, [q.space]))
    if q.title:
        where.append(("instr(lower(json_extract(data, '$.title')), ?) > 0", [q.title.lower()]))
    if q.published is not None:
        where.append(("coalesce(json_extract(data, '$.published'), 0) = ?", [int(q.published)]))
    if q.type is not None:
        where.append(("json_extract(data, '$.type') = ?", [q.type]))
    return list_page(ctx, "site", where, lambda site: render_site(ctx, site), sort="seq")


class SiteCreate(Body):
    type: SiteType = "basic"
    title: str | None = Field(None, min_length=2, max_length=128)
    visibility: SiteVisibility = "public"
    spaces: list[str] = Field(default_factory=list)


def _taken_basenames(ctx: Ctx, org_id: str, except_site: str | None = None) -> dict[str, str]:
    sites = ctx.store.all("site", [("org = ?", [org_id])])
    return {s["basename"]: s["id"] for s in sites if s["id"] != except_site}


@endpoint("POST", "/orgs/{organizationId}/sites", status=201)
def create_site(ctx: Ctx) -> dict[str, Any]:
    """A new site; the listed spaces become its site spaces, in order."""
    # Stored as a seeded site is; the seed's models are built here, not by every sandbox.
    from docform_sandbox.seed import SeedSite, site_document

    org = require_org(ctx, ctx.params["organizationId"], write=True)
    spec = ctx.body_as(SiteCreate)
    spaces = [space_for(ctx, org["id"], s, f"spaces.{i}") for i, s in enumerate(spec.spaces)]
    title = spec.title or "Untitled site"
    basename = unique_path(slugify(title, "site"), set(_taken_basenames(ctx, org["id"])))
    seed_site = SeedSite(
        id=new_id(), title=title, visibility=spec.visibility, type=spec.type, basename=basename
    )
    site = site_document(org["id"], seed_site, timestamp(ctx.now()))
    ctx.store.insert("site", site, org=org["id"])
    tree = load_tree(ctx, site)
    for space in spaces:
        add_site_space(ctx, tree, space, None)
    return render_site(ctx, site)


@endpoint("GET", "/orgs/{organizationId}/sites/{siteId}")
def get_site(ctx: Ctx) -> dict[str, Any]:
    return render_site(ctx, site_of(ctx))


class AdaptiveSwitch(Body):
    enabled: bool


class SitePatch(Body):
    title: str | None = Field(None, min_length=2, max_length=128)
    visibility: SiteVisibility | None = None
    basename: str | None = Field(None, min_length=1, max_length=100, pattern=r"^[a-zA-Z0-9_-]+$")
    defaultLevel: Any = None
    defaultSiteSpace: str | None = None
    defaultSiteSection: str | None = None
    proxy: str | None = Field(None, max_length=512)
    adaptiveContent: AdaptiveSwitch | None = None
    styleguide: str | None = None


def _check_site_patch(ctx: Ctx, site: dict[str, Any], patch: SitePatch) -> None:
    given = patch.model_fields_set
    for name in ("title", "visibility", "basename", "adaptiveContent"):
        if name in given and getattr(patch, name) is None:
            raise bad_request(f"{name}: must not be null")
    if "defaultLevel" in given:
        check_level(patch.defaultLevel, "defaultLevel")
    if patch.styleguide is not None:
        check_styleguide(ctx, site, patch.styleguide)
    if patch.proxy is not None and not PROXY.fullmatch(patch.proxy):
        raise bad_request(
            f"proxy: must be a host and path without a scheme, such as 'example.com/docs', "
            f"not {patch.proxy!r}"
        )
    if patch.basename is not None:
        owner = _taken_basenames(ctx, site["organization"], site["id"]).get(patch.basename)
        if owner is not None:
            raise ApiError(409, f"basename: '{patch.basename}' is already used by site '{owner}'")


def _set_site_defaults(ctx: Ctx, site: dict[str, Any], patch: SitePatch) -> None:
    """Apply ``defaultSiteSection`` and ``defaultSiteSpace`` (null: back to the first one)."""
    tree = load_tree(ctx, site)
    given = patch.model_fields_set
    if "defaultSiteSection" in given:
        section_id = patch.defaultSiteSection
        if section_id is not None and section_id not in tree.sections:
            raise bad_request(f"defaultSiteSection: no section '{section_id}' in this site")
        site["defaultSiteSection"] = section_id
    if "defaultSiteSpace" not in given:
        return
    space_id = patch.defaultSiteSpace
    if space_id is None:
        site["defaultSiteSpace"] = None
        return
    site_space = tree.site_spaces.get(space_id)
    if site_space is None:
        raise bad_request(f"defaultSiteSpace: no site space '{space_id}' in this site")
    section = tree.sections.get(site_space.get("section") or "")
    if section is None:
        site["defaultSiteSpace"] = space_id
    else:
        section["defaultSiteSpace"] = space_id
        ctx.store.update(SECTION, section)


@endpoint("PATCH", "/orgs/{organizationId}/sites/{siteId}")
def patch_site(ctx: Ctx) -> dict[str, Any]:
    """Change a site's title, visibility, basename, level, defaults or proxy."""
    site = site_of(ctx, write=True)
    patch = ctx.body_as(SitePatch)
    _check_site_patch(ctx, site, patch)
    _set_site_defaults(ctx, site, patch)
    for name in patch.model_fields_set - {"defaultSiteSpace", "defaultSiteSection"}:
        value = getattr(patch, name)
        if name in ("proxy", "styleguide") and value is None:
            site.pop(name, None)
        else:
            site[name] = value.model_dump() if isinstance(value, Body) else value
    ctx.store.update("site", site)
    return render_site(ctx, site)


@endpoint("DELETE", "/orgs/{organizationId}/sites/{siteId}", status=205)
def delete_site(ctx: Ctx) -> Response | None:
    """Remove a site with its structure, redirects and grants; an absent site answers 204."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    site = ctx.store.get("site", ctx.params["siteId"])
    if site is None or site.get("organization") != org["id"]:
        return None
    for kind in (SITE_SPACE, SECTION, GROUP, LINK, REDIRECT, "share-link", "publishing-auth"):
        ctx.store.delete_where(kind, [("parent = ?", [site["id"]])])
    forget_target(ctx, "site", site["id"])
    ctx.store.delete("site", site["id"])
    if (org.get("defaultContent") or {}).get("site") == site["id"]:
        org["defaultContent"] = None
        ctx.store.update("organization", org)
    return removed()


# -- structure endpoints ---------------------------------------------------------------------------


@endpoint("GET", "/orgs/{organizationId}/sites/{siteId}/structure")
def get_structure(ctx: Ctx) -> dict[str, Any]:
    """The site's ordered tree of section groups, sections and site spaces."""
    site = site_of(ctx)
    return render_structure(ctx, load_tree(ctx, site))


SortType = Literal["site-space", "site-section", "site-section-group", "site-external-link"]


class ItemRef(Body):
    type: SortType
    id: str


class SortPosition(Body):
    before: ItemRef | None = None
    after: ItemRef | None = None


class SortBody(Body):
    item: ItemRef
    position: SortPosition


@endpoint("PATCH", "/orgs/{organizationId}/sites/{siteId}/structure/sort")
def sort_structure(ctx: Ctx) -> dict[str, Any]:
    """Put a site space, section or group right before or after another item."""
    site = site_of(ctx, write=True)
    sort = ctx.body_as(SortBody)
    side = position_side(sort.position.before, sort.position.after)
    anchor = getattr(sort.position, side)
    tree = load_tree(ctx, site)
    item = tree.lookup(sort.item.type, sort.item.id)
    if item is None:
        raise not_found(LABELS[sort.item.type], sort.item.id)
    where = f"position.{side}"
    place(
        ctx,
        tree,
        (sort.item.type, item),
        side,
        anchor_node(tree, anchor.type, anchor.id, where),
        where,
        siblings_only=True,
    )
    return render_node(ctx, load_tree(ctx, site), (sort.item.type, item))
