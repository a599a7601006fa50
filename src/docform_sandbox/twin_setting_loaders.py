"""Twin loaders of the settings and lists held by a site (its customization and its site spaces'
overrides, adaptive schema, visitor sign-in, agent settings, share links, context connections,
MCP servers and channels)
and by the organization (link invites, translations, agent instructions)
(`docform_sandbox.twin_registry` says what a loader does)."""

from __future__ import annotations

from typing import Any

from docform.service.site_overrides import Override, override_group
from docform_sandbox.routes.agent_instructions import KIND as INSTRUCTIONS
from docform_sandbox.routes.agent_instructions import empty_document
from docform_sandbox.routes.context_connections import CONNECTION
from docform_sandbox.routes.link_invites import INVITE
from docform_sandbox.routes.mcp_servers import SERVER
from docform_sandbox.routes.share_links import LINK as SHARE_LINK
from docform_sandbox.routes.site_agent_settings import KIND as AGENT_SETTINGS
from docform_sandbox.routes.site_channels import CHANNEL
from docform_sandbox.routes.site_customization import site_document
from docform_sandbox.routes.site_tree import SITE_SPACE
from docform_sandbox.routes.translations import KIND as TRANSLATION
from docform_sandbox.routes.visitor_auth import AUTH, URL_FIELDS
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

SITE = "/orgs/{}/sites/{}"

# -- what a site holds as its own fields --------------------------------------------------------


def _site_field(store: Store, site_id: str, fields: dict[str, Any]) -> None:
    site = store.get("site", site_id)
    if site is not None:
        store.update("site", {**site, **fields})


def _site_watch(ids: tuple[str, ...], _: Any) -> list[str]:
    return [row("site", ids[1])]


@loads(SITE + "/customization", listed=False, watch=_site_watch)
def _customization(store: Store, ids: tuple[str, ...], body: Any) -> None:
    fields: dict[str, Any] = {"customization": {k: v for k, v in body.items() if k != "updatedAt"}}
    if "updatedAt" in body:
        fields["customizationUpdatedAt"] = body["updatedAt"]
    _site_field(store, ids[1], fields)


def _overrides_watch(ids: tuple[str, ...], _: Any) -> list[str]:
    return [row("site", ids[1]), row(SITE_SPACE, ids[2])]


@loads(SITE + "/site-spaces/{}/customization", listed=False, watch=_overrides_watch, last=True)
def _overrides(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """A site space's effective customization: what it overrides is where it differs from its
    site's, loaded before it (``last``)."""
    _, site_id, site_space_id = ids
    site, doc = store.get("site", site_id), store.get(SITE_SPACE, site_space_id)
    if site is not None and doc is not None:
        overrides = overridden(site_document(site), body, Override)
        if overrides:
            store.update(SITE_SPACE, {**doc, "overrides": overrides})


def overridden(site: dict[str, Any], effective: dict[str, Any], model: Any) -> dict[str, Any]:
    """The overrides that make ``effective`` of the site's customization ``site``
    (`merged_overrides` undone): each key of ``model`` the effective one holds otherwise, the
    parts of an override (`OverrideGroup`) part by part."""
    out: dict[str, Any] = {}
    for key in model.model_fields:
        if key not in effective:
            continue
        value, base, group = effective[key], site.get(key), override_group(model, key)
        if group is not None and isinstance(value, dict):
            inner = overridden(base if isinstance(base, dict) else {}, value, group)
            if inner:
                out[key] = inner
        elif value != base:
            out[key] = value
    return out


@loads(SITE + "/adaptive-schema", listed=False, watch=_site_watch)
def _adaptive_schema(store: Store, ids: tuple[str, ...], body: Any) -> None:
    schema = {"jsonSchema": body["jsonSchema"], "updatedAt": body["updatedAt"]}
    _site_field(store, ids[1], {"adaptiveSchema": schema})


# -- one document a site holds -------------------------------------------------------------------


@loads(SITE + "/publishing/auth", listed=False, watch=lambda ids, _: [row(AUTH, ids[1])])
def _visitor_auth(store: Store, ids: tuple[str, ...], body: Any) -> None:
    org_id, site_id = ids
    doc = {"id": site_id, "backend": body["backend"], "privateKey": body["privateKey"]}
    doc.update(kept(body, URL_FIELDS))
    insert_new(store, AUTH, doc, org=org_id, parent=site_id)


@loads(SITE + "/agent-settings", listed=False, watch=lambda ids, _: [row(AGENT_SETTINGS, ids[1])])
def _agent_settings(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """Stored only once written (an answer with ``updatedAt``): until then the defaults."""
    org_id, site_id = ids
    if "updatedAt" in body:
        doc = {"id": site_id, **kept(body, ("scans", "findings", "editing", "updatedAt"))}
        doc["updatedBy"] = body.get("updatedBy", "")
        insert_new(store, AGENT_SETTINGS, doc, org=org_id, parent=site_id)


# -- the lists a site holds ----------------------------------------------------------------------


def _site_list(kind: str, fields: tuple[str, ...]) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        org_id, site_id = ids
        for item in items_of(body):
            doc = {**kept(item, fields), "site": site_id}
            insert_new(store, kind, doc, org=org_id, parent=site_id)

    return load


def _site_list_watch(kind: str) -> Any:
    # A share link's URL is the site's published address (the site's own fields).
    return lambda ids, _: [under(kind, ids[1]), row("site", ids[1])]


SITE_LISTS = (
    ("context-connections", CONNECTION,
     ("id", "connector", "setupSettings", "usageSettings", "filter", "label", "createdAt")),
    ("mcp-servers", SERVER, ("id", "name", "url", "transport", "headers", "condition")),
    ("channels", CHANNEL,
     ("id", "type", "setupSettings", "status", "role", "answers", "createdAt")),
)  # fmt: skip
for _route, _kind, _fields in SITE_LISTS:
    loads(f"{SITE}/{_route}", watch=_site_list_watch(_kind))(_site_list(_kind, _fields))


@loads(SITE + "/share-links", watch=_site_list_watch(SHARE_LINK))
def _share_links(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """Each link with the key its published URL ends with (``.../~s/{key}/``)."""
    org_id, site_id = ids
    for item in items_of(body):
        key = item["urls"]["published"].rstrip("/").rsplit("/~s/", 1)[-1]
        doc = {"id": item["id"], "site": site_id, "name": item.get("name"), "key": key}
        doc.update(active=item["active"], createdAt=item["createdAt"])
        insert_new(store, SHARE_LINK, doc, org=org_id, parent=site_id)


# -- what the organization holds -----------------------------------------------------------------


def _invites_watch(ids: tuple[str, ...], body: Any) -> list[str]:
    """The organization's invites, and the space or collection each one opens (an invite to
    one deleted is dropped)."""
    spaces = [(item.get("space") or {}).get("id") for item in items_of(body)]
    collections = [(item.get("collection") or {}).get("id") for item in items_of(body)]
    return [in_org(INVITE, ids[0]), *each("space", spaces), *each("collection", collections)]


@loads("/orgs/{}/link-invites", watch=_invites_watch)
def _link_invites(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        doc: dict[str, Any] = {"id": item["id"], "organization": org_id, "form": "organization"}
        doc["role"] = item.get("role")
        for form in ("space", "collection"):
            target = item.get(form)
            if isinstance(target, dict) and target.get("id"):
                doc.update({"form": form, form: target["id"], "role": item.get("level")})
        insert_new(store, INVITE, doc, org=org_id)


@loads("/orgs/{}/translations", watch=lambda ids, _: [in_org(TRANSLATION, ids[0])])
def _translations(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        fields = ("id", "source", "language", "instructions", "createdAt", "updatedAt")
        doc = {**kept(item, fields), "organization": org_id}
        doc["runs"] = (item.get("stats") or {}).get("runs", 0)
        insert_new(store, TRANSLATION, doc, org=org_id)


@loads(
    "/orgs/{}/agent-instructions", listed=False, watch=lambda ids, _: [row(INSTRUCTIONS, ids[0])]
)
def _agent_instructions(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """Stored only once written (by someone, or other than empty): until then the default."""
    (org_id,) = ids
    if body.get("updatedBy") or body.get("instructions") != empty_document():
        doc = {"id": org_id, **kept(body, ("instructions", "updatedAt", "updatedBy"))}
        insert_new(store, INSTRUCTIONS, doc, org=org_id)
