"""Twin loaders of sites and their structure: section groups, sections, site spaces, external
links, their order, and redirects (`docform_sandbox.twin_registry` says what a loader does)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from docform_sandbox.routes.redirects import FLAGS as REDIRECT_FLAGS
from docform_sandbox.routes.site_tree import (
    GROUP,
    LINK,
    LINK_FIELDS,
    SECTION,
    SITE_FIELDS,
    SITE_SPACE,
)
from docform_sandbox.store import Store
from docform_sandbox.twin_registry import (
    Loader,
    each,
    in_org,
    insert_new,
    items_of,
    kept,
    loads,
    row,
    under,
)

# -- sites and their structure ---------------------------------------------------------------


@loads("/orgs/{}/sites", watch=lambda ids, _: [in_org("site", ids[0]), "custom-hostname"])
def _sites(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {**kept(item, SITE_FIELDS), "organization": org_id}
        doc["published"] = item.get("published", False)
        for name in ("adaptiveContent", "ads"):
            if name in item:
                doc[name] = item[name]
        styleguide = item.get("styleguide")
        if isinstance(styleguide, dict) and styleguide.get("space"):
            doc["styleguide"] = styleguide["space"]
        proxy = item.get("proxy")
        if isinstance(proxy, dict) and proxy.get("origin"):
            doc["proxy"] = proxy["origin"]
        insert_new(store, "site", doc, org=org_id)


STRUCTURE_FIELDS = {
    LINK: ("id", *LINK_FIELDS, "sectionGroup", "draft", "condition"),
    SECTION: ("id", "title", "localizedTitle", "description", "localizedDescription", "path",
              "condition", "sectionGroup", "draft", "icon"),
    GROUP: ("id", "title", "localizedTitle", "icon", "sectionGroup", "draft"),
}  # fmt: skip


def _structure(kind: str) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        org_id, site_id = ids
        items = items_of(body)
        for item in items:
            doc = kept(item, STRUCTURE_FIELDS[kind])
            insert_new(store, kind, doc, org=org_id, parent=site_id)
            if kind == SECTION and item.get("default"):
                _mark_default(store, site_id, "defaultSiteSection", item["id"])
            if kind == GROUP:
                children = [child["id"] for child in item.get("children", [])]
                store.set_meta(f"twin-children:{item['id']}", json.dumps(children))
        store.set_meta(f"twin-order:{site_id}:{kind}", json.dumps([i["id"] for i in items]))
        _rank_structure(store, site_id)

    return load


def structure_watch(ids: tuple[str, ...], body: Any) -> list[str]:
    """A site's structure: every group, section, external link and site space under it, the
    site (its defaults), and the spaces its site spaces show (their titles)."""
    site_id = ids[1]
    kinds = (GROUP, SECTION, LINK, SITE_SPACE)
    return [row("site", site_id), *(under(kind, site_id) for kind in kinds),
            *each("space", _shown_spaces(body))]  # fmt: skip


def _shown_spaces(node: Any) -> Iterable[str]:
    """The ids of the spaces an answer's site spaces show, however deep."""
    if isinstance(node, list):
        for part in node:
            yield from _shown_spaces(part)
    elif isinstance(node, dict):
        space = node.get("space")
        if node.get("object") == SITE_SPACE and isinstance(space, dict):
            yield str(space.get("id", ""))
        for value in node.values():
            if isinstance(value, list | dict):
                yield from _shown_spaces(value)


for _route, _kind in (("sections", SECTION), ("section-groups", GROUP)):
    loads(f"/orgs/{{}}/sites/{{}}/{_route}", newest_first=False, watch=structure_watch)(
        _structure(_kind)
    )


@loads("/orgs/{}/sites/{}/structure", listed=False, watch=structure_watch)
def _whole_structure(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """A site's whole structure, in order: its groups, sections, external links and site
    spaces, each ranked where it stands (what the lists cannot tell: the links)."""
    org_id, site_id = ids
    store.set_meta(f"twin-structure:{site_id}", "read")
    _place(store, org_id, site_id, body.get("structure", []))


def _place(store: Store, org_id: str, site_id: str, nodes: list[Any]) -> None:
    for rank, node in enumerate(n for n in nodes if isinstance(n, dict)):
        kind = node.get("object")
        if kind in (GROUP, SECTION, LINK):
            fields = STRUCTURE_FIELDS[kind]
            insert_new(store, kind, kept(node, fields), org=org_id, parent=site_id)
            store.set_rank(kind, node["id"], float(rank))
        if kind == GROUP:
            _place(store, org_id, site_id, node.get("children", []))
        elif kind == SECTION:
            if node.get("default"):
                _mark_default(store, site_id, "defaultSiteSection", node["id"])
            _site_spaces(store, (org_id, site_id), {"items": node.get("siteSpaces", [])})
        elif kind == SITE_SPACE:
            _site_spaces(store, (org_id, site_id), {"items": [node]})


def _rank_structure(store: Store, site_id: str) -> None:
    """Rank a site's groups and sections as the lists showed them: the lists give each kind
    depth first, a group's ``children`` the order inside it, and the top level follows from
    where each list first reaches a top-level group or section. A site whose whole structure
    was read is ranked by it instead."""
    if store.get_meta(f"twin-structure:{site_id}"):
        return
    in_site = [("parent = ?", [site_id])]
    docs = {(kind, d["id"]): d for kind in (GROUP, SECTION) for d in store.all(kind, in_site)}

    def top(node: tuple[str, str]) -> tuple[str, str]:
        seen = {node}
        while (up := docs[node].get("sectionGroup")) and (GROUP, up) in docs:
            node = (GROUP, up)
            if node in seen:
                break
            seen.add(node)
        return node

    tops: list[tuple[str, str]] = []
    for kind in (SECTION, GROUP):
        for id in json.loads(store.get_meta(f"twin-order:{site_id}:{kind}", "[]") or "[]"):
            if (kind, id) in docs and top((kind, id)) not in tops:
                tops.append(top((kind, id)))
    for rank, (kind, id) in enumerate(tops):
        store.set_rank(kind, id, float(rank))
    for kind, id in docs:
        if kind != GROUP:
            continue
        children = json.loads(store.get_meta(f"twin-children:{id}", "[]") or "[]")
        for rank, child in enumerate(children):
            for child_kind in (GROUP, SECTION):
                if (child_kind, child) in docs:
                    store.set_rank(child_kind, child, float(rank))


@loads("/orgs/{}/sites/{}/site-spaces", newest_first=False, watch=structure_watch)
def _site_spaces(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, site_id = ids
    for item in items_of(body):
        doc = {"id": item["id"], "organization": org_id, "site": site_id}
        doc["space"] = item["space"]["id"]
        doc.update(kept(item, ("path", "section", "condition", "pageId", "hidden", "draft")))
        insert_new(store, SITE_SPACE, doc, org=org_id, parent=site_id)
        if item.get("default"):
            holder = ("site-section", item["section"]) if item.get("section") else None
            _mark_default(store, site_id, "defaultSiteSpace", item["id"], holder)


def _mark_default(
    store: Store, site_id: str, name: str, value: str, holder: tuple[str, str] | None = None
) -> None:
    kind, id = holder or ("site", site_id)
    doc = store.get(kind, id)
    if doc is not None:
        store.update(kind, {**doc, name: value})


@loads("/orgs/{}/sites/{}/redirects", watch=lambda ids, _: [under("site-redirect", ids[1])])
def _redirects(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, site_id = ids
    for item in items_of(body):
        doc = kept(item, ("id", "source", "destination", *REDIRECT_FLAGS, "createdAt"))
        doc.update(kept(item, ("updatedAt",)))
        insert_new(store, "site-redirect", doc, org=org_id, parent=site_id)
