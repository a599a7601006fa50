"""A site's structure, shared by the site and site-structure endpoints: the in-memory tree of
one site's section groups, sections and site spaces, and their renderings (see ``sites.py`` for
the sandbox's choices, ``site_lists.py`` for lists in structure order, ``structure_placement.py``
for placing an item next to a sibling)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from docform_sandbox.access import is_admin, require_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    PUBLISHED_BASE,
    Ctx,
    bad_request,
    new_id,
    not_found,
)
from docform_sandbox.routes.site_answer_parts import live_styleguide, site_ads

GROUP, SECTION, SITE_SPACE = "site-section-group", "site-section", "site-space"
LINK, REDIRECT = "site-external-link", "site-redirect"
LABELS = {
    GROUP: "section group",
    SECTION: "section",
    SITE_SPACE: "site space",
    LINK: "external link",
}
#: What sits in a group or at the top level of a site with sections.
TOP_KINDS = (GROUP, SECTION, LINK)
SiteType = Literal["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"]
SiteVisibility = Literal["public", "unlisted", "share-link", "visitor-auth"]
#: What a Site answer takes from the stored site as it is (the organization is stored, not
#: answered: the definition's Site has no such field).
SITE_FIELDS = (
    "id", "type", "title", "hostname", "basename", "visibility", "defaultLevel", "createdAt",
    "gitSync",
)  # fmt: skip
MAX_PATH = 100
#: The caller's rights on a site: members may view and open it, admins do everything.
SITE_PERMISSIONS = (
    "view", "access", "edit", "create", "admin", "installIntegration", "viewAdaptiveSchema",
    "editAdaptiveSchema",
)  # fmt: skip
READER_PERMISSIONS = frozenset({"view", "access"})
#: What every sandbox site has on (whatever its type: the sandbox sells no plans).
SITE_FEATURES = (
    "sections", "redirects", "basic-customization", "adaptive-content", "public-visibility",
    "unlisted-visibility", "share-links", "visitor-authentication",
)  # fmt: skip
Node = tuple[str, dict[str, Any]]  # (kind, document)


# -- sites -------------------------------------------------------------------------------------


def site_of(ctx: Ctx, *, write: bool = False) -> dict[str, Any]:
    """The site named by the path, after checking access to its organization (404 if absent)."""
    org = require_org(ctx, ctx.params["organizationId"], write=write)
    site_id = ctx.params["siteId"]
    site = ctx.store.get("site", site_id)
    if site is None or site.get("organization") != org["id"]:
        raise not_found("site", site_id)
    return site


def site_published_url(site: dict[str, Any]) -> str:
    proxy = site.get("proxy")
    return f"https://{proxy}" if proxy else _sandbox_url(site)


def render_site(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any]:
    """The API's Site: stored fields (``published`` is the flag publish/unpublish set), what the
    sandbox derives (counts, the caller's ``permissions``), ``proxy`` when set and ``urls``."""
    body = {"object": "site", **{k: site[k] for k in SITE_FIELDS if k in site}}
    body["appliedType"] = site["type"]  # no plan change waits to take effect in the sandbox
    if site.get("proxy"):
        # The definition's origin is the proxy as set, without a scheme (SiteProxyOrigin).
        body["proxy"] = {"origin": site["proxy"], "target": _sandbox_url(site)}
    admin = is_admin(ctx, site["organization"])
    body["permissions"] = {name: name in READER_PERMISSIONS or admin for name in SITE_PERMISSIONS}
    body["published"] = site.get("published", False)
    body["siteSpaces"] = ctx.store.count(SITE_SPACE, [("parent = ?", [site["id"]])])
    body["features"] = [
        {"id": f"sites-{feature}", "plan": site["type"], "frozen": False}
        for feature in SITE_FEATURES
    ]
    if "adaptiveContent" in site:
        body["adaptiveContent"] = site["adaptiveContent"]

    body["ads"] = site_ads(site)
    styleguide = live_styleguide(ctx, site)
    if styleguide is not None:
        body["styleguide"] = {"kind": "space", "space": styleguide["id"]}
    org_id, site_id = site["organization"], site["id"]
    body["urls"] = {
        "location": f"{API_BASE}/orgs/{org_id}/sites/{site_id}",
        "app": f"{APP_BASE}/o/{org_id}/sites/{site_id}",
        "preview": f"{APP_BASE}/o/{org_id}/sites/{site_id}/preview",
    }
    if body["published"]:  # the definition: only while published
        body["urls"]["published"] = site_published_url(site)
    return body


def _sandbox_url(site: dict[str, Any]) -> str:
    return f"{PUBLISHED_BASE}/{site['basename']}"


# -- paths and spaces ----------------------------------------------------------------------------


def slugify(text: str, fallback: str) -> str:
    """A lowercase ASCII slug of ``text`` (accents dropped), at most 100 characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:MAX_PATH].strip("-") or fallback


def unique_path(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever is not taken yet."""
    path, number = base, 2
    while path in taken:
        suffix = f"-{number}"
        path = base[: MAX_PATH - len(suffix)] + suffix
        number += 1
    return path


def space_for(ctx: Ctx, org_id: str, space_id: Any, field_name: str) -> dict[str, Any]:
    """A live space of the organization, else 400 naming the field that referred to it."""
    space = ctx.store.get("space", space_id) if isinstance(space_id, str) else None
    if space is None or space.get("organization") != org_id or space.get("deletedAt"):
        raise bad_request(f"{field_name}: no space '{space_id}' in this organization")
    return space


# -- the structure tree --------------------------------------------------------------------------


@dataclass
class SiteTree:
    """One site's groups, sections and site spaces, read once per request."""

    site: dict[str, Any]
    groups: dict[str, dict[str, Any]]
    sections: dict[str, dict[str, Any]]
    site_spaces: dict[str, dict[str, Any]]
    links: dict[str, dict[str, Any]]
    ranks: dict[tuple[str, str], float]

    def _top_nodes(self) -> list[Node]:
        return [(kind, doc) for kind in TOP_KINDS for doc in self.table(kind).values()]

    def children(self, group_id: str | None) -> list[Node]:
        """The groups, sections and external links directly in a group (None: the site's top
        level), in order."""
        nodes = self._top_nodes()
        inside = [n for n in nodes if n[1].get("sectionGroup") == group_id]
        return sorted(inside, key=lambda n: self.ranks[(n[0], n[1]["id"])])

    def walk(self, group_id: str | None = None) -> Iterator[Node]:
        """Every group, section and external link under ``group_id``, depth first, in
        structure order."""
        # One pass sorts every container (asking `children` per group would scan the whole
        # site once per group, for every section a list renders).
        nodes = self._top_nodes()
        inside: dict[str | None, list[Node]] = {}
        for node in sorted(nodes, key=lambda n: self.ranks[(n[0], n[1]["id"])]):
            inside.setdefault(node[1].get("sectionGroup"), []).append(node)
        return _depth_first(inside, group_id)

    def ordered(self, kind: str) -> list[dict[str, Any]]:
        return [doc for k, doc in self.walk() if k == kind]

    def spaces_in(self, section_id: str | None) -> list[dict[str, Any]]:
        """The site spaces of a section (None: the site root), in order."""
        inside = [s for s in self.site_spaces.values() if s.get("section") == section_id]
        return sorted(inside, key=lambda s: self.ranks[(SITE_SPACE, s["id"])])

    def all_site_spaces(self) -> list[dict[str, Any]]:
        """Every site space: those at the root, then each section's, in structure order."""
        found = self.spaces_in(None)
        for section in self.ordered(SECTION):
            found += self.spaces_in(section["id"])
        return found

    def default_section(self) -> str | None:
        explicit = self.site.get("defaultSiteSection")
        if isinstance(explicit, str) and explicit in self.sections:
            return explicit
        ordered = self.ordered(SECTION)
        return ordered[0]["id"] if ordered else None

    def default_site_space(self, section_id: str | None) -> str | None:
        holder = self.sections[section_id] if section_id else self.site
        ids = [s["id"] for s in self.spaces_in(section_id)]
        explicit = holder.get("defaultSiteSpace")
        if explicit in ids:
            return explicit
        return ids[0] if ids else None

    def table(self, kind: str) -> dict[str, dict[str, Any]]:
        tables = {GROUP: self.groups, SECTION: self.sections, SITE_SPACE: self.site_spaces}
        return self.links if kind == LINK else tables[kind]

    def lookup(self, kind: str, item_id: str) -> dict[str, Any] | None:
        return self.table(kind).get(item_id)

    def section_url(self, section_id: str | None) -> str:
        base = site_published_url(self.site)
        return f"{base}/{self.sections[section_id]['path']}" if section_id else base


def load_tree(ctx: Ctx, site: dict[str, Any]) -> SiteTree:
    in_site = [("parent = ?", [site["id"]])]
    docs = {kind: ctx.store.all(kind, in_site) for kind in (*TOP_KINDS, SITE_SPACE)}
    ranks = {
        (kind, doc["id"]): ctx.store.rank_of(kind, doc["id"]) or 0.0
        for kind, found in docs.items()
        for doc in found
    }
    return SiteTree(
        site=site,
        groups={d["id"]: d for d in docs[GROUP]},
        sections={d["id"]: d for d in docs[SECTION]},
        site_spaces={d["id"]: d for d in docs[SITE_SPACE]},
        links={d["id"]: d for d in docs[LINK]},
        ranks=ranks,
    )


def insert_at_end(ctx: Ctx, tree: SiteTree, kind: str, doc: dict[str, Any]) -> None:
    """Store a new structure object last in its container, and add it to ``tree``."""
    site = tree.site
    ctx.store.insert(kind, doc, org=site["organization"], parent=site["id"])
    tree.ranks[(kind, doc["id"])] = ctx.store.rank_of(kind, doc["id"]) or 0.0
    tree.table(kind)[doc["id"]] = doc
    move_to_end(ctx, tree, kind, doc)


def _container_ranks(tree: SiteTree, kind: str, doc: dict[str, Any]) -> list[float]:
    """The ranks of the siblings ``doc`` has in its current container, itself excluded."""
    if kind == SITE_SPACE:
        nodes = [(SITE_SPACE, s) for s in tree.spaces_in(doc.get("section"))]
    else:
        nodes = tree.children(doc.get("sectionGroup"))
    return [tree.ranks[(k, d["id"])] for k, d in nodes if (k, d["id"]) != (kind, doc["id"])]


def move_to_end(ctx: Ctx, tree: SiteTree, kind: str, doc: dict[str, Any]) -> None:
    """Give ``doc`` a rank after every sibling of its (already set) container."""
    others = _container_ranks(tree, kind, doc)
    rank = max(others) + 1 if others else tree.ranks.get((kind, doc["id"]), 0.0)
    ctx.store.set_rank(kind, doc["id"], rank)
    tree.ranks[(kind, doc["id"])] = rank


def set_container(ctx: Ctx, kind: str, doc: dict[str, Any], container: str | None) -> None:
    """File a site space under a section, or a section or group under a group (None: root)."""
    field_name = "section" if kind == SITE_SPACE else "sectionGroup"
    if container is None:
        doc.pop(field_name, None)
    else:
        doc[field_name] = container
    ctx.store.update(kind, doc)


def add_site_space(
    ctx: Ctx, tree: SiteTree, space: dict[str, Any], section_id: str | None
) -> dict[str, Any]:
    """A new site space showing ``space``, last in a section (or the root); path from its title."""
    taken = {s["path"] for s in tree.spaces_in(section_id)}
    doc: dict[str, Any] = {
        "id": new_id(),
        "organization": tree.site["organization"],
        "site": tree.site["id"],
        "space": space["id"],
        "path": unique_path(slugify(space.get("title") or "", "space"), taken),
    }
    if section_id is not None:
        doc["section"] = section_id
    insert_at_end(ctx, tree, SITE_SPACE, doc)
    return doc


def _depth_first(inside: dict[str | None, list[Node]], group_id: str | None) -> Iterator[Node]:
    for node in inside.get(group_id, []):
        yield node
        if node[0] == GROUP:
            yield from _depth_first(inside, node[1]["id"])


# -- renderings --------------------------------------------------------------------------------


def render_site_space(ctx: Ctx, tree: SiteTree, doc: dict[str, Any]) -> dict[str, Any]:
    """The API's SiteSpace, with its space embedded."""
    from docform_sandbox.routes.space_rows import render_space

    section_id = doc.get("section")
    space = ctx.store.get("space", doc["space"])
    body: dict[str, Any] = {"object": "site-space", "id": doc["id"], "path": doc["path"]}
    if section_id:
        body["section"] = section_id
    body["space"] = render_space(ctx, space) if space else {"object": "space", "id": doc["space"]}
    body["title"] = space["title"] if space else ""
    body["default"] = tree.default_site_space(section_id) == doc["id"]
    if "condition" in doc:
        body["condition"] = doc["condition"]
    if doc.get("pageId"):
        body["pageId"] = doc["pageId"]
    body["hidden"] = doc.get("hidden", False)
    body["draft"] = doc.get("draft", False)
    body["urls"] = {"published": f"{tree.section_url(section_id)}/{doc['path']}"}
    return body


def render_section(ctx: Ctx, tree: SiteTree, doc: dict[str, Any]) -> dict[str, Any]:
    """The API's SiteSection, with its site spaces in order."""
    body: dict[str, Any] = {"object": "site-section", "id": doc["id"], "title": doc["title"]}
    if doc.get("localizedTitle"):
        body["localizedTitle"] = doc["localizedTitle"]
    if "description" in doc:
        body["description"] = doc["description"]
    if doc.get("localizedDescription"):
        body["localizedDescription"] = doc["localizedDescription"]
    body["default"] = tree.default_section() == doc["id"]
    body["path"] = doc["path"]
    for name in ("condition", "sectionGroup"):
        if name in doc:
            body[name] = doc[name]
    body["siteSpaces"] = [render_site_space(ctx, tree, s) for s in tree.spaces_in(doc["id"])]
    body["draft"] = doc.get("draft", False)
    body["urls"] = {"published": tree.section_url(doc["id"])}
    if "icon" in doc:
        body["icon"] = doc["icon"]
    return body


def render_group(ctx: Ctx, tree: SiteTree, doc: dict[str, Any]) -> dict[str, Any]:
    """The API's SiteSectionGroup: ``sections`` its own sections, ``children`` all its content."""
    body: dict[str, Any] = {"object": "site-section-group", "id": doc["id"], "title": doc["title"]}
    if doc.get("localizedTitle"):
        body["localizedTitle"] = doc["localizedTitle"]
    for name in ("icon", "sectionGroup"):
        if name in doc:
            body[name] = doc[name]
    children = tree.children(doc["id"])
    # `sections` is deprecated in favour of `children`, but the service still sends both.
    body["sections"] = [render_section(ctx, tree, d) for k, d in children if k == SECTION]
    body["children"] = [render_node(ctx, tree, node) for node in children]
    body["draft"] = doc.get("draft", False)
    return body


def render_node(ctx: Ctx, tree: SiteTree, node: Node) -> dict[str, Any]:
    kind, doc = node
    if kind == GROUP:
        return render_group(ctx, tree, doc)
    if kind == SECTION:
        return render_section(ctx, tree, doc)
    if kind == LINK:
        return render_link(doc)
    return render_site_space(ctx, tree, doc)


LINK_FIELDS = ("title", "localizedTitle", "description", "localizedDescription", "icon", "url")


def render_link(doc: dict[str, Any]) -> dict[str, Any]:
    """The API's ExternalLink (``sectionGroup`` absent at the site's top level)."""
    body: dict[str, Any] = {"object": LINK, "id": doc["id"]}
    body |= {name: doc[name] for name in LINK_FIELDS if doc.get(name) is not None}
    if doc.get("sectionGroup"):
        body["sectionGroup"] = doc["sectionGroup"]
    body["draft"] = doc.get("draft", False)
    if doc.get("condition") is not None:
        body["condition"] = doc["condition"]
    return body


def render_structure(ctx: Ctx, tree: SiteTree) -> dict[str, Any]:
    if tree.sections:
        items = [render_node(ctx, tree, node) for node in tree.children(None)]
        return {"type": "sections", "structure": items}
    spaces = [render_site_space(ctx, tree, s) for s in tree.spaces_in(None)]
    return {"type": "siteSpaces", "structure": spaces}
