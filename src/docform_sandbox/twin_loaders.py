"""Twin loaders of the organization, its people, its content and the grants on them, and of
the organization's other lists (`docform_sandbox.twin_registry` says what a loader does)."""

from __future__ import annotations

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
from docform_sandbox.routes.saml import CONFIG_FIELDS as SAML_CONFIG
from docform_sandbox.routes.space_rows import SPACE_FIELDS
from docform_sandbox.store import Store
from docform_sandbox.twin_registry import (
    Loader,
    each,
    in_org,
    insert_new,
    items_of,
    kept,
    loads,
    org_of,
    row,
    under,
)

# -- the organization and its people -----------------------------------------------------------

ORG_DERIVED = frozenset({"object", "trial", "urls", "permissions"})


def _organization_watch(ids: tuple[str, ...], body: Any) -> list[str]:
    # Its customHostname is the custom hostname's, which docform reads here.
    return [row("organization", ids[0]), "custom-hostname"]


@loads("/orgs/{}", listed=False, watch=_organization_watch)
def _organization(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    doc = {k: v for k, v in body.items() if k not in ORG_DERIVED}
    logo = body.get("urls", {}).get("logo")
    if logo and not logo.endswith(f"/o/{org_id}/logo.png"):
        doc["logo"] = logo
    insert_new(store, "organization", doc, org=org_id)


@loads("/orgs/{}/members", watch=lambda ids, _: [in_org("member", ids[0]), "user"])
def _members(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        user = item["user"]
        if store.get("user", user["id"]) is None:
            store.insert("user", _user(user))
        doc = member_document(
            org_id, user["id"], item.get("role"), item["joinedAt"], sso=item.get("sso", False)
        )
        doc["disabled"] = item.get("disabled", False)
        doc["lastSeenAt"] = item.get("lastSeenAt")
        insert_new(store, "member", doc, org=org_id)


def _user(user: dict[str, Any]) -> dict[str, Any]:
    doc = user_document(user["id"], user.get("email"), user.get("displayName"))
    if user.get("photoURL"):
        doc["photoURL"] = user["photoURL"]
    else:
        doc.pop("photoURL", None)
    return doc


@loads("/orgs/{}/teams", watch=lambda ids, _: [in_org("team", ids[0])])
def _teams(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {"id": item["id"], "organization": org_id, "title": item["title"]}
        doc["createdAt"] = item["createdAt"]
        insert_new(store, "team", doc, org=org_id)


def _team_members_watch(ids: tuple[str, ...], body: Any) -> list[str]:
    """The team's memberships, and the member and user each shows (its role, its email)."""
    org_id, team_id = ids
    users = [item["organization"]["id"] for item in items_of(body)]
    return [under("team-member", team_id), *each("member", (f"{org_id}/{u}" for u in users)),
            *each("user", users)]  # fmt: skip


@loads("/orgs/{}/teams/{}/members", newest_first=False, watch=_team_members_watch)
def _team_members(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, team_id = ids
    for item in items_of(body):
        user_id = item["organization"]["id"]
        doc = {"id": f"{team_id}/{user_id}", "team": team_id, "user": user_id}
        doc["role"] = item["team"]["role"]
        insert_new(store, "team-member", doc, org=org_id, parent=team_id)


# -- content -------------------------------------------------------------------------------------


@loads("/orgs/{}/collections", watch=lambda ids, _: [in_org("collection", ids[0])])
def _collections(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {**kept(item, COLLECTION_FIELDS), "organization": org_id}
        insert_new(store, "collection", doc, org=org_id, parent=item.get("parent"))


@loads("/orgs/{}/spaces", watch=lambda ids, _: [in_org("space", ids[0])])
def _spaces(store: Store, ids: tuple[str, ...], body: Any) -> None:
    for item in items_of(body):
        _space(store, item)


@loads("/spaces/{}", listed=False, watch=lambda ids, _: [row("space", ids[0])])
def _one_space(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """A space read on its own: one the lists leave out (deleted, and still restorable)."""
    _space(store, body)


def _space(store: Store, item: dict[str, Any]) -> None:
    org_id = item["organization"]
    doc = kept(item, SPACE_FIELDS)
    icon = item.get("urls", {}).get("icon")
    if icon:
        doc["icon"] = icon
    insert_new(store, "space", doc, org=org_id, parent=item.get("parent"))


def _grants(on: TargetKind, principal: Principal) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        *_, target_id = ids
        org_id = ids[0] if on == "site" else org_of(store, on, target_id)
        target = Target(on, target_id, org_id)
        for item in items_of(body):
            doc = grant_document(target, principal, item[principal]["id"], item["permission"], "")
            doc.pop("createdAt")
            insert_new(store, GRANT, doc, org=org_id, parent=target.key)

    return load


def _grants_watch(on: TargetKind, principal: Principal) -> Any:
    """The grants on the target, the target itself, and each team (its title) or user (its
    email) shown."""

    def watch(ids: tuple[str, ...], body: Any) -> list[str]:
        target_id = ids[-1]
        shown = (item[principal]["id"] for item in items_of(body))
        return [under(GRANT, f"{on}:{target_id}"), row(on, target_id), *each(principal, shown)]

    return watch


GRANT_ROUTES: tuple[tuple[TargetKind, str], ...] = (
    ("space", "/spaces/{}"),
    ("collection", "/collections/{}"),
    ("site", "/orgs/{}/sites/{}"),
)
for _on, _template in GRANT_ROUTES:
    for _principal in (TEAM, USER):
        _watch = _grants_watch(_on, _principal)
        loads(f"{_template}/permissions/{_principal}s", watch=_watch)(_grants(_on, _principal))


# -- the organization's other lists ------------------------------------------------------------


@loads("/orgs/{}/openapi", watch=lambda ids, _: [in_org("openapi-spec", ids[0])])
def _openapi(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {**kept(item, SPEC_FIELDS), "organization": org_id}
        insert_new(store, "openapi-spec", doc, org=org_id)


@loads("/orgs/{}/saml", watch=lambda ids, _: [in_org("saml-provider", ids[0])])
def _saml(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {"id": item["id"], "organization": org_id, "label": item["label"]}
        doc.update({name: item.get(name) or None for name in SAML_CONFIG})
        team = item.get("defaultTeam")
        doc["defaultTeam"] = team["id"] if isinstance(team, dict) else None
        doc["defaultRole"] = item.get("defaultRole")
        doc["createdAt"] = item["createdAt"]
        insert_new(store, "saml-provider", doc, org=org_id)


# -- the organization's fonts, glossary and hostnames -------------------------------------------


@loads("/orgs/{}/fonts", watch=lambda ids, _: [in_org("font", ids[0])])
def _fonts(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        faces = {
            str(face["weight"]): unquote(face["sources"][0]["url"].removeprefix(FILES_BASE))
            for face in item.get("fontFaces", [])
            if face.get("sources")
        }
        doc = {"id": item["id"], "organization": org_id, "fontFamily": item["fontFamily"]}
        insert_new(store, "font", {**doc, "faces": faces}, org=org_id)


@loads(
    "/orgs/{}/translations-glossary",
    newest_first=False,
    watch=lambda ids, _: [in_org("glossary-entry", ids[0])],
)
def _glossary(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc = {**kept(item, ("id", "translations", "createdAt", "updatedAt"))}
        insert_new(store, "glossary-entry", {**doc, "organization": org_id}, org=org_id)


@loads("/custom-hostnames/{}", listed=False, watch=lambda ids, _: [row("custom-hostname", ids[0])])
def _custom_hostname(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (hostname,) = ids
    target = body["target"]
    org_id = target.get("organization") or org_of(store, "site", target.get("site", ""))
    doc = {"id": hostname, "target": target, "active": body["isActive"]}
    if body.get("status"):
        doc["status"] = body["status"]
    insert_new(store, "custom-hostname", doc, org=org_id or None)


@loads("/user", listed=False, watch=lambda _, body: [row("user", body["id"])])
def _caller(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """The token's own user: the twin's token acts as that user (`docform_sandbox.twin`)."""
    if store.get("user", body["id"]) is None:
        store.insert("user", _user(body))
    store.set_meta("twin_caller", body["id"])
