"""Loaders that turn a recorded answer of the service into the sandbox's stored documents: the
inverse of each route's rendering, for a twin of the organization (`docform_sandbox.twin`).

Each loader is registered for one GET route (a pattern whose groups are the ids in the path) and
stores what the answer shows: the same ids, in the order the answer lists them, with the fields
the route would render them from. What an answer derives (counts, ``urls``, the caller's
``permissions``) is left out: the routes derive it again. A route no loader is registered for
is not loaded, and the twin says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from docform_sandbox.documents import member_document, user_document
from docform_sandbox.grants import (
    GRANT,
    TEAM,
    USER,
    Principal,
    Target,
    TargetKind,
    grant_document,
)
from docform_sandbox.routes.collections import COLLECTION_FIELDS
from docform_sandbox.routes.custom_fonts import FILES_BASE
from docform_sandbox.routes.openapi import SPEC_FIELDS
from docform_sandbox.routes.redirects import FLAGS as REDIRECT_FLAGS
from docform_sandbox.routes.saml import CONFIG_FIELDS as SAML_CONFIG
from docform_sandbox.routes.site_tree import (
    GROUP,
    LINK,
    LINK_FIELDS,
    SECTION,
    SITE_FIELDS,
    SITE_SPACE,
)
from docform_sandbox.routes.space_rows import SPACE_FIELDS
from docform_sandbox.store import Store

Loader = Callable[[Store, tuple[str, ...], Any], None]
"""Stores one recorded answer: the store, the ids the route's path held, the answer's body."""


@dataclass(frozen=True)
class Route:
    pattern: re.Pattern[str]
    load: Loader
    listed: bool
    newest_first: bool
    """A list the service gives newest first unless its query asks otherwise: its items are
    stored from the last, so that the twin lists them in the same order."""


ROUTES: list[Route] = []
ID = r"([^/]+)"


def loads(
    template: str, *, listed: bool = True, newest_first: bool = True
) -> Callable[[Loader], Loader]:
    """Register a loader for the GET route ``template`` (``{}`` for each id of the path)."""
    pattern = re.compile("^" + template.replace("{}", ID) + "$")

    def register(load: Loader) -> Loader:
        ROUTES.append(Route(pattern, load, listed, listed and newest_first))
        return load

    return register


def load_answer(store: Store, path: str, query: Mapping[str, Any], body: Any, listed: bool) -> bool:
    """Store one recorded answer with the loader of its route; False when no loader has it."""
    for route in ROUTES:
        found = route.pattern.match(path)
        if found and route.listed == listed:
            if route.newest_first and query.get("order", "desc") == "desc":
                body = {**body, "items": list(reversed(_items(body)))}
            route.load(store, found.groups(), body)
            return True
    return False


def _items(body: Any) -> list[dict[str, Any]]:
    return [item for item in body.get("items", []) if isinstance(item, dict)]


def _kept(item: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: item[name] for name in fields if name in item}


def _insert_new(
    store: Store, kind: str, doc: dict[str, Any], *, org: str | None, parent: str | None = None
) -> None:
    if store.get(kind, doc["id"]) is None:
        store.insert(kind, doc, org=org, parent=parent)


# -- the organization and its people -----------------------------------------------------------

ORG_DERIVED = frozenset({"object", "trial", "urls", "permissions"})


@loads("/orgs/{}", listed=False)
def _organization(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    doc = {k: v for k, v in body.items() if k not in ORG_DERIVED}
    logo = body.get("urls", {}).get("logo")
    if logo and not logo.endswith(f"/o/{org_id}/logo.png"):
        doc["logo"] = logo
    _insert_new(store, "organization", doc, org=org_id)


@loads("/orgs/{}/members")
def _members(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        user = item["user"]
        if store.get("user", user["id"]) is None:
            store.insert("user", _user(user))
        doc = member_document(
            org_id, user["id"], item.get("role"), item["joinedAt"], sso=item.get("sso", False)
        )
        doc["disabled"] = item.get("disabled", False)
        doc["lastSeenAt"] = item.get("lastSeenAt")
        _insert_new(store, "member", doc, org=org_id)


def _user(user: dict[str, Any]) -> dict[str, Any]:
    doc = user_document(user["id"], user.get("email"), user.get("displayName"))
    if user.get("photoURL"):
        doc["photoURL"] = user["photoURL"]
    else:
        doc.pop("photoURL", None)
    return doc


@loads("/orgs/{}/teams")
def _teams(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {"id": item["id"], "organization": org_id, "title": item["title"]}
        doc["createdAt"] = item["createdAt"]
        _insert_new(store, "team", doc, org=org_id)


@loads("/orgs/{}/teams/{}/members", newest_first=False)
def _team_members(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, team_id = ids
    for item in _items(body):
        user_id = item["organization"]["id"]
        doc = {"id": f"{team_id}/{user_id}", "team": team_id, "user": user_id}
        doc["role"] = item["team"]["role"]
        _insert_new(store, "team-member", doc, org=org_id, parent=team_id)


# -- content -------------------------------------------------------------------------------------


@loads("/orgs/{}/collections")
def _collections(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {**_kept(item, COLLECTION_FIELDS), "organization": org_id}
        _insert_new(store, "collection", doc, org=org_id, parent=item.get("parent"))


@loads("/orgs/{}/spaces")
def _spaces(store: Store, ids: tuple[str, ...], body: Any) -> None:
    for item in _items(body):
        _space(store, item)


@loads("/spaces/{}", listed=False)
def _one_space(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """A space read on its own: one the lists leave out (deleted, and still restorable)."""
    _space(store, body)


def _space(store: Store, item: dict[str, Any]) -> None:
    org_id = item["organization"]
    doc = _kept(item, SPACE_FIELDS)
    icon = item.get("urls", {}).get("icon")
    if icon:
        doc["icon"] = icon
    _insert_new(store, "space", doc, org=org_id, parent=item.get("parent"))


def _grants(on: TargetKind, principal: Principal) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        *_, target_id = ids
        org_id = ids[0] if on == "site" else _org_of(store, on, target_id)
        target = Target(on, target_id, org_id)
        for item in _items(body):
            doc = grant_document(target, principal, item[principal]["id"], item["permission"], "")
            doc.pop("createdAt")
            _insert_new(store, GRANT, doc, org=org_id, parent=target.key)

    return load


def _org_of(store: Store, kind: str, id: str) -> str:
    doc = store.get(kind, id)
    return str(doc["organization"]) if doc else ""


GRANT_ROUTES: tuple[tuple[TargetKind, str], ...] = (
    ("space", "/spaces/{}"),
    ("collection", "/collections/{}"),
    ("site", "/orgs/{}/sites/{}"),
)
for _on, _template in GRANT_ROUTES:
    loads(f"{_template}/permissions/teams")(_grants(_on, TEAM))
    loads(f"{_template}/permissions/users")(_grants(_on, USER))


# -- sites and their structure ---------------------------------------------------------------


@loads("/orgs/{}/sites")
def _sites(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {**_kept(item, SITE_FIELDS), "organization": org_id}
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
        _insert_new(store, "site", doc, org=org_id)


STRUCTURE_FIELDS = {
    LINK: ("id", *LINK_FIELDS, "sectionGroup", "draft", "condition"),
    SECTION: ("id", "title", "localizedTitle", "description", "localizedDescription", "path",
              "condition", "sectionGroup", "draft", "icon"),
    GROUP: ("id", "title", "localizedTitle", "icon", "sectionGroup", "draft"),
}  # fmt: skip


def _structure(kind: str) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        org_id, site_id = ids
        items = _items(body)
        for item in items:
            doc = _kept(item, STRUCTURE_FIELDS[kind])
            _insert_new(store, kind, doc, org=org_id, parent=site_id)
            if kind == SECTION and item.get("default"):
                _mark_default(store, site_id, "defaultSiteSection", item["id"])
            if kind == GROUP:
                children = [child["id"] for child in item.get("children", [])]
                store.set_meta(f"twin-children:{item['id']}", json.dumps(children))
        store.set_meta(f"twin-order:{site_id}:{kind}", json.dumps([i["id"] for i in items]))
        _rank_structure(store, site_id)

    return load


loads("/orgs/{}/sites/{}/sections", newest_first=False)(_structure(SECTION))
loads("/orgs/{}/sites/{}/section-groups", newest_first=False)(_structure(GROUP))


@loads("/orgs/{}/sites/{}/structure", listed=False)
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
            _insert_new(store, kind, _kept(node, fields), org=org_id, parent=site_id)
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


@loads("/orgs/{}/sites/{}/site-spaces", newest_first=False)
def _site_spaces(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, site_id = ids
    for item in _items(body):
        doc = {"id": item["id"], "organization": org_id, "site": site_id}
        doc["space"] = item["space"]["id"]
        doc.update(_kept(item, ("path", "section", "condition", "pageId", "hidden", "draft")))
        _insert_new(store, SITE_SPACE, doc, org=org_id, parent=site_id)
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


@loads("/orgs/{}/sites/{}/redirects")
def _redirects(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, site_id = ids
    for item in _items(body):
        doc = _kept(item, ("id", "source", "destination", *REDIRECT_FLAGS, "createdAt"))
        doc.update(_kept(item, ("updatedAt",)))
        _insert_new(store, "site-redirect", doc, org=org_id, parent=site_id)


# -- the organization's other lists ------------------------------------------------------------


@loads("/orgs/{}/openapi")
def _openapi(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {**_kept(item, SPEC_FIELDS), "organization": org_id}
        _insert_new(store, "openapi-spec", doc, org=org_id)


@loads("/orgs/{}/saml")
def _saml(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {"id": item["id"], "organization": org_id, "label": item["label"]}
        doc.update({name: item.get(name) or None for name in SAML_CONFIG})
        team = item.get("defaultTeam")
        doc["defaultTeam"] = team["id"] if isinstance(team, dict) else None
        doc["defaultRole"] = item.get("defaultRole")
        doc["createdAt"] = item["createdAt"]
        _insert_new(store, "saml-provider", doc, org=org_id)


# -- the organization's fonts, glossary and hostnames -------------------------------------------


@loads("/orgs/{}/fonts")
def _fonts(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        faces = {
            str(face["weight"]): unquote(face["sources"][0]["url"].removeprefix(FILES_BASE))
            for face in item.get("fontFaces", [])
            if face.get("sources")
        }
        doc = {"id": item["id"], "organization": org_id, "fontFamily": item["fontFamily"]}
        _insert_new(store, "font", {**doc, "faces": faces}, org=org_id)


@loads("/orgs/{}/translations-glossary", newest_first=False)
def _glossary(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in _items(body):
        doc = {**_kept(item, ("id", "translations", "createdAt", "updatedAt"))}
        _insert_new(store, "glossary-entry", {**doc, "organization": org_id}, org=org_id)


@loads("/custom-hostnames/{}", listed=False)
def _custom_hostname(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (hostname,) = ids
    target = body["target"]
    org_id = target.get("organization") or _org_of(store, "site", target.get("site", ""))
    doc = {"id": hostname, "target": target, "active": body["isActive"]}
    if body.get("status"):
        doc["status"] = body["status"]
    _insert_new(store, "custom-hostname", doc, org=org_id or None)


@loads("/user", listed=False)
def _caller(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """The token's own user: the twin's token acts as that user (`docform_sandbox.twin`)."""
    if store.get("user", body["id"]) is None:
        store.insert("user", _user(body))
    store.set_meta("twin_caller", body["id"])
