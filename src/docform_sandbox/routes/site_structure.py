"""Site structure: section groups, sections and site spaces of one site
(``/orgs/{organizationId}/sites/{siteId}/section-groups|sections|site-spaces``).

The tree and renderings live in ``site_tree.py`` (placement in ``structure_placement.py``),
structure-ordered lists in ``site_lists.py``, the site-space endpoints in ``site_spaces.py``
and what they all share in ``structure_edits.py``. The choices below hold for all of them.

Choices where the API documents are silent:

- Reading needs membership of the organization; every change needs its admin role.
- Ids in the path that do not exist in the site answer 404; ids in a body (``spaceId``,
  ``sectionId``, ``sections``, ``parent``, ``defaultSiteSpace``, positions) answer 400 naming
  the field. A space must be a live (not deleted) space of the same organization.
- A new group, section or site space goes last in its container. A group created with
  ``sections`` takes them in the order given. A section or group moved into a group (or to
  the top level) by its PATCH (``siteSectionGroupId``, ``parentSectionGroupId``) goes last
  there; one PATCHed into the group it is already in stays where it is. A group cannot go
  into itself or a group inside it (400).
- Deleting a group keeps its content: its sections and nested groups take its place.
- A new section's title defaults to its space's title ("Untitled section" when shorter than
  2 characters); its path is a slug of the title, unique in the site (``guide``,
  ``guide-2``...). A new site space's path is a slug of its space's title, unique in its
  section. A path taken by another section of the site (or site space of the section) is 409.
- Creating the first section of a site whose site spaces sit at the root moves them into that
  section, before the new section's own site space; the root default stays the default.
- The first section in structure order is the site's default unless ``defaultSiteSection``
  says otherwise; the first site space of a section is its default unless the section's
  ``defaultSiteSpace`` says otherwise (null: back to the first).
- A site with sections but no ``sectionId`` given puts a new site space in the default
  section; a site with none puts it at the root.
- PATCH: an omitted field stays; null removes ``condition``, ``icon`` and ``description``;
  null is a 400 for ``title``, ``path``, ``spaceId``, ``hidden`` and ``draft``.
- ``localizedTitle`` (sections, groups) and ``localizedDescription`` (sections) are taken by
  PATCH only, as the definition's create bodies lack them; null is a 400 and an empty map
  removes them (answers leave them out while unset).
- A site space's ``pageId`` (its home page) is taken as any page id: the sandbox models no
  pages. Null removes it, and so does a ``spaceId`` that changes the space without a new one.
- ``draft`` (sections, groups, site spaces; false unless a create or PATCH sets it) is stored
  and answered as set; the sandbox publishes nothing, so a draft differs only in that flag.
- Deprecated moves accept anchors ``{type, <siteSection|siteSpace|siteSectionGroup>}`` (or
  ``{type, id}`` as the sort operation takes them). A group move without ``position`` puts the
  group last in its container.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from docform.service.site_customization import LocalizedString128, LocalizedString256
from docform_sandbox.http import (
    ApiError,
    Body,
    Ctx,
    bad_request,
    endpoint,
    new_id,
)
from docform_sandbox.routes.site_lists import page_of
from docform_sandbox.routes.site_tree import (
    GROUP,
    SECTION,
    SITE_SPACE,
    SiteTree,
    add_site_space,
    insert_at_end,
    load_tree,
    move_to_end,
    render_group,
    render_section,
    set_container,
    site_of,
    slugify,
    space_for,
    unique_path,
)
from docform_sandbox.routes.structure_edits import (
    GroupMoveBody,
    MoveBody,
    apply_patch,
    check_group_container,
    found,
    join_container,
    move_next_to,
    reject_nulls,
)

#: The optional fields of the definition's objects that this family's answers always hold.
FILLS: dict[str, tuple[str, ...]] = {
    "SiteSection": ("urls.published",),
}

BASE = "/orgs/{organizationId}/sites/{siteId}"


# -- section groups ------------------------------------------------------------------------------


@endpoint("GET", BASE + "/section-groups")
def list_section_groups(ctx: Ctx) -> dict[str, Any]:
    """Every section group of the site, nested ones included, in structure order."""
    tree = load_tree(ctx, site_of(ctx))
    return page_of(ctx, tree.ordered(GROUP), lambda doc: render_group(ctx, tree, doc))


LOCALIZED = ("localizedTitle", "localizedDescription")


class GroupCreate(Body):
    title: str = Field(min_length=1, max_length=100)
    icon: str | None = Field(None, max_length=50)
    sections: list[str] | None = None
    parent: str | None = None
    draft: bool = False


@endpoint("POST", BASE + "/section-groups", status=201)
def create_section_group(ctx: Ctx) -> dict[str, Any]:
    """A new group, last at the site root or in ``parent``, holding ``sections`` in order."""
    site = site_of(ctx, write=True)
    spec = ctx.body_as(GroupCreate)
    tree = load_tree(ctx, site)
    if spec.parent is not None:
        check_group_container(tree, None, spec.parent, "parent")
    sections = []
    for i, section_id in enumerate(spec.sections or []):
        if section_id not in tree.sections:
            raise bad_request(f"sections.{i}: no section '{section_id}' in this site")
        sections.append(tree.sections[section_id])
    doc: dict[str, Any] = {"id": new_id(), "organization": site["organization"], "site": site["id"]}
    doc["title"] = spec.title
    if spec.icon is not None:
        doc["icon"] = spec.icon
    doc["draft"] = spec.draft
    if spec.parent is not None:
        doc["sectionGroup"] = spec.parent
    insert_at_end(ctx, tree, GROUP, doc)
    for section in sections:
        _put_in_group(ctx, tree, section, doc["id"])
    return render_group(ctx, load_tree(ctx, site), doc)


def _put_in_group(ctx: Ctx, tree: SiteTree, section: dict[str, Any], group_id: str) -> None:
    join_container(ctx, tree, SECTION, section, group_id)


class GroupPatch(Body):
    title: str | None = Field(None, min_length=1, max_length=100)
    icon: str | None = Field(None, max_length=50)
    draft: bool | None = None
    localizedTitle: LocalizedString128 | None = None
    parentSectionGroupId: str | None = None


@endpoint("PATCH", BASE + "/section-groups/{siteSectionGroupId}")
def patch_section_group(ctx: Ctx) -> dict[str, Any]:
    """Rename a group, change its icon (null removes the icon) or move it into another group
    (``parentSectionGroupId``; null: the site's top level), last there."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, GROUP, ctx.params["siteSectionGroupId"])
    patch = ctx.body_as(GroupPatch)
    reject_nulls(patch, ("title", "draft", "localizedTitle"))
    if "parentSectionGroupId" in patch.model_fields_set:
        parent = patch.parentSectionGroupId
        check_group_container(tree, doc, parent, "parentSectionGroupId")
        join_container(ctx, tree, GROUP, doc, parent)
    apply_patch(doc, patch, ("title", "icon", "draft", "localizedTitle"))
    ctx.store.update(GROUP, doc)
    return render_group(ctx, load_tree(ctx, site), doc)


@endpoint("DELETE", BASE + "/section-groups/{siteSectionGroupId}", status=204)
def delete_section_group(ctx: Ctx) -> None:
    """Remove a group; its sections and nested groups take its place."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = tree.groups.get(ctx.params["siteSectionGroupId"])
    if doc is None:
        return None
    container = doc.get("sectionGroup")
    siblings = tree.children(container)
    at = [d["id"] for _, d in siblings].index(doc["id"])
    content = tree.children(doc["id"])
    for kind, child in content:
        set_container(ctx, kind, child, container)
    for rank, (kind, item) in enumerate([*siblings[:at], *content, *siblings[at + 1 :]]):
        ctx.store.set_rank(kind, item["id"], float(rank))
    ctx.store.delete(GROUP, doc["id"])
    return None


@endpoint("POST", BASE + "/section-groups/{siteSectionGroupId}/move")
def move_section_group(ctx: Ctx) -> dict[str, Any]:
    """Put a group next to a section or group; without ``position``, last in its container."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, GROUP, ctx.params["siteSectionGroupId"])
    body = ctx.body_as(GroupMoveBody)
    if body.position is None:
        move_to_end(ctx, tree, GROUP, doc)
    else:
        move_next_to(ctx, tree, GROUP, doc, body.position)
    return render_group(ctx, load_tree(ctx, site), doc)


# -- sections ------------------------------------------------------------------------------------


@endpoint("GET", BASE + "/sections")
def list_sections(ctx: Ctx) -> dict[str, Any]:
    """Every section of the site, grouped ones at their group's place, in structure order."""
    tree = load_tree(ctx, site_of(ctx))
    return page_of(ctx, tree.ordered(SECTION), lambda doc: render_section(ctx, tree, doc))


class SectionCreate(Body):
    spaceId: str
    title: str | None = Field(None, min_length=2, max_length=128)
    icon: str | None = Field(None, max_length=50)
    draft: bool = False


@endpoint("POST", BASE + "/sections", status=201)
def create_section(ctx: Ctx) -> dict[str, Any]:
    """A new section, last at the site root, showing ``spaceId`` as its first new site space."""
    site = site_of(ctx, write=True)
    spec = ctx.body_as(SectionCreate)
    space = space_for(ctx, site["organization"], spec.spaceId, "spaceId")
    tree = load_tree(ctx, site)
    title = spec.title or space.get("title") or ""
    title = title if len(title) >= 2 else "Untitled section"
    taken = {s["path"] for s in tree.sections.values()}
    doc: dict[str, Any] = {"id": new_id(), "organization": site["organization"], "site": site["id"]}
    doc.update(title=title, path=unique_path(slugify(title, "section"), taken))
    if spec.icon is not None:
        doc["icon"] = spec.icon
    doc["draft"] = spec.draft
    root_spaces = [] if tree.sections else tree.spaces_in(None)
    insert_at_end(ctx, tree, SECTION, doc)
    if root_spaces:
        _adopt_root_spaces(ctx, site, doc, root_spaces)
    add_site_space(ctx, tree, space, doc["id"])
    return render_section(ctx, load_tree(ctx, site), doc)


def _adopt_root_spaces(
    ctx: Ctx, site: dict[str, Any], section: dict[str, Any], root_spaces: list[dict[str, Any]]
) -> None:
    """Move the site spaces of a site without sections into its first section."""
    for site_space in root_spaces:
        set_container(ctx, SITE_SPACE, site_space, section["id"])
    if site.get("defaultSiteSpace"):
        section["defaultSiteSpace"] = site.pop("defaultSiteSpace")
        ctx.store.update(SECTION, section)
        ctx.store.update("site", site)


class SectionPatch(Body):
    title: str | None = Field(None, min_length=2, max_length=128)
    path: str | None = Field(None, min_length=1, max_length=100)
    defaultSiteSpace: str | None = None
    condition: str | None = Field(None, max_length=1024)
    icon: str | None = Field(None, max_length=50)
    description: str | None = Field(None, max_length=256)
    localizedTitle: LocalizedString128 | None = None
    localizedDescription: LocalizedString256 | None = None
    draft: bool | None = None
    siteSectionGroupId: str | None = None


@endpoint("PATCH", BASE + "/sections/{siteSectionId}")
def patch_section(ctx: Ctx) -> dict[str, Any]:
    """Change a section's title, path, default site space, condition, icon or description, or
    move it into a group (``siteSectionGroupId``; null: the site's top level), last there."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, SECTION, ctx.params["siteSectionId"])
    patch = ctx.body_as(SectionPatch)
    reject_nulls(patch, ("title", "path", "draft", "localizedTitle", "localizedDescription"))
    if patch.path is not None:
        others = {s["path"]: s["id"] for s in tree.sections.values() if s["id"] != doc["id"]}
        if patch.path in others:
            raise ApiError(409, f"path: '{patch.path}' is already used in this site")
    space_ids = {s["id"] for s in tree.spaces_in(doc["id"])}
    if patch.defaultSiteSpace is not None and patch.defaultSiteSpace not in space_ids:
        raise bad_request(
            f"defaultSiteSpace: no site space '{patch.defaultSiteSpace}' in this section"
        )
    if "siteSectionGroupId" in patch.model_fields_set:
        group = patch.siteSectionGroupId
        check_group_container(tree, None, group, "siteSectionGroupId")
        join_container(ctx, tree, SECTION, doc, group)
    apply_patch(
        doc,
        patch,
        (
            "title",
            "path",
            "defaultSiteSpace",
            "condition",
            "icon",
            "description",
            "draft",
            *LOCALIZED,
        ),
    )
    ctx.store.update(SECTION, doc)
    return render_section(ctx, load_tree(ctx, site), doc)


@endpoint("DELETE", BASE + "/sections/{siteSectionId}", status=204)
def delete_section(ctx: Ctx) -> None:
    """Remove a section and its site spaces; an absent section answers 204."""
    site = site_of(ctx, write=True)
    section_id = ctx.params["siteSectionId"]
    if ctx.store.locate(SECTION, section_id) != (site["organization"], site["id"]):
        return None
    ctx.store.delete_where(SITE_SPACE, [("parent = ?", [site["id"]]), _in_section(section_id)])
    ctx.store.delete(SECTION, section_id)
    if site.get("defaultSiteSection") == section_id:
        site["defaultSiteSection"] = None
        ctx.store.update("site", site)
    return None


def _in_section(section_id: str) -> tuple[str, list[str]]:
    return ("json_extract(data, '$.section') = ?", [section_id])


@endpoint("POST", BASE + "/sections/{siteSectionId}/move")
def move_section(ctx: Ctx) -> dict[str, Any]:
    """Deprecated: put a section next to another section (the sort operation replaces it)."""
    site = site_of(ctx, write=True)
    tree = load_tree(ctx, site)
    doc = found(tree, SECTION, ctx.params["siteSectionId"])
    move_next_to(ctx, tree, SECTION, doc, ctx.body_as(MoveBody).position)
    return render_section(ctx, load_tree(ctx, site), doc)
