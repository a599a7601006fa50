"""SAML providers of an organization and its SSO start entries.

``GET|POST /orgs/{organizationId}/saml``, ``GET|PATCH|DELETE .../saml/{samlProviderId}`` and
``GET /orgs/{organizationId}/sso``.

Choices where the API documents are silent:
- Only ``label`` is required to create one (the definition's create body). Every answer
  carries ``entityID``, ``ssoURL`` and ``certificate`` (the definition's answer requires
  them): one not set yet is answered as an empty string, the provider being ``pending``. An
  empty ``ssoURL`` is not the URI the definition's answer asks for; the definition says
  nothing of a provider made without one, and the sandbox invents no URL. PATCH cannot set
  those three to null (the definition takes a string), nor ``label``; ``defaultTeam`` and
  ``defaultRole`` null clear them. An omitted ``defaultTeam`` is not set and answers leave
  it out; an omitted ``defaultRole`` is null (new SSO users are guests).
- ``status`` is ``active`` when ``entityID``, ``ssoURL`` and ``certificate`` are all set, else
  ``pending``: a provider cannot sign anyone in before that.
- ``defaultTeam`` must be a team of the organization (else 400 naming ``defaultTeam``); the
  answer embeds the Team, and leaves ``defaultTeam`` out when there is none or it was
  deleted since.
- ``service`` URLs are derived from the provider id under the app's base URL.
- The SAML endpoints need the organization's admin role, reads included (they expose the
  sign-in configuration); ``/sso`` needs only membership. ``/sso`` lists every provider, in
  creation order, as ``{items: [{id, label, startURL}]}`` (no paging, as documented).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from docform_sandbox.access import require_admin_to_read, require_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    Body,
    Ctx,
    bad_request,
    check_role,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)

PREFIX = "/orgs/{organizationId}/saml"
CONFIG_FIELDS = ("entityID", "ssoURL", "certificate")
STORED_FIELDS = ("label", *CONFIG_FIELDS, "defaultTeam", "defaultRole")


class ProviderFields(Body):
    """The fields create and PATCH share; PATCH takes them all as optional."""

    label: str | None = Field(None, min_length=1, max_length=30)
    entityID: str | None = Field(None, max_length=1024)
    certificate: str | None = Field(None, max_length=10000)
    ssoURL: str | None = Field(None, max_length=2048)
    defaultTeam: str | None = None
    defaultRole: str | None = None

    @field_validator("ssoURL")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("must be an http or https URL")
        return value


class ProviderCreate(ProviderFields):
    label: str = Field(min_length=1, max_length=30)


# -- rendering ---------------------------------------------------------------------------------


def start_url(provider: dict[str, Any]) -> str:
    return f"{APP_BASE}/auth/saml/{provider['id']}/start"


def render_provider(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    base = f"{APP_BASE}/auth/saml/{doc['id']}"
    configured = all(doc.get(name) for name in CONFIG_FIELDS)
    body: dict[str, Any] = {"object": "saml-provider", "id": doc["id"], "label": doc["label"]}
    # The definition's answer requires these three: not set yet, they are empty.
    body.update((name, doc.get(name) or "") for name in CONFIG_FIELDS)
    team = embedded_team(ctx, doc)
    if team is not None:
        body["defaultTeam"] = team
    body["defaultRole"] = doc.get("defaultRole")
    body["createdAt"] = doc["createdAt"]
    body["status"] = "active" if configured else "pending"
    body["service"] = {"acsURL": f"{base}/acs", "startURL": start_url(doc), "entityID": base}
    body["urls"] = {"location": f"{API_BASE}/orgs/{doc['organization']}/saml/{doc['id']}"}
    return body


def embedded_team(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any] | None:
    team_id = doc.get("defaultTeam")
    team = ctx.store.get("team", team_id) if team_id else None
    if team is None:
        return None
    # teams.py is written separately; importing it here keeps this module loadable on its own.
    from docform_sandbox.routes.teams import render_team

    return render_team(ctx, team)


# -- checks ------------------------------------------------------------------------------------


def check_fields(ctx: Ctx, org_id: str, body: ProviderFields) -> None:
    given = body.model_fields_set
    if "label" in given and body.label is None:
        raise bad_request("label: must be a string of 1 to 30 characters")
    if "defaultRole" in given:
        check_role(body.defaultRole, "defaultRole")
    if body.defaultTeam is not None:
        located = ctx.store.locate("team", body.defaultTeam)
        if located is None or located[0] != org_id:
            raise bad_request(f"defaultTeam: no team '{body.defaultTeam}' in this organization")


def require_provider(ctx: Ctx, org_id: str) -> dict[str, Any]:
    provider_id = ctx.params["samlProviderId"]
    located = ctx.store.locate("saml-provider", provider_id)
    if located is None or located[0] != org_id:
        raise not_found("saml provider", provider_id)
    provider = ctx.store.get("saml-provider", provider_id)
    assert provider is not None
    return provider


# -- endpoints ---------------------------------------------------------------------------------


@endpoint("GET", PREFIX)
def list_providers(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_admin_to_read(ctx, org_id, "SAML providers")
    where = [("org = ?", [org_id])]
    return list_page(ctx, "saml-provider", where, lambda d: render_provider(ctx, d))


@endpoint("POST", PREFIX, 201)
def post_provider(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    body = ctx.body_as(ProviderCreate)
    check_fields(ctx, org_id, body)
    provider: dict[str, Any] = {"id": new_id(), "organization": org_id}
    provider.update({name: getattr(body, name) for name in STORED_FIELDS})
    provider["createdAt"] = timestamp(ctx.now())
    ctx.store.insert("saml-provider", provider, org=org_id)
    return render_provider(ctx, provider)


@endpoint("GET", PREFIX + "/{samlProviderId}")
def get_provider(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_admin_to_read(ctx, org_id, "SAML providers")
    return render_provider(ctx, require_provider(ctx, org_id))


@endpoint("PATCH", PREFIX + "/{samlProviderId}")
def patch_provider(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    provider = require_provider(ctx, org_id)
    body = ctx.body_as(ProviderFields)
    check_fields(ctx, org_id, body)
    for name in ("label", *CONFIG_FIELDS):
        if name in body.model_fields_set and getattr(body, name) is None:
            raise bad_request(f"{name}: must not be null (set a value; it cannot be cleared)")
    provider.update({name: getattr(body, name) for name in body.model_fields_set})
    ctx.store.update("saml-provider", provider)
    return render_provider(ctx, provider)


@endpoint("DELETE", PREFIX + "/{samlProviderId}", 204)
def delete_provider(ctx: Ctx) -> None:
    """Delete the provider; 204 also when there is none with this id in the organization."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    located = ctx.store.locate("saml-provider", ctx.params["samlProviderId"])
    if located is not None and located[0] == org_id:
        ctx.store.delete("saml-provider", ctx.params["samlProviderId"])


@endpoint("GET", "/orgs/{organizationId}/sso")
def list_sso(ctx: Ctx) -> dict[str, Any]:
    """The organization's SSO start entries: ``{items: [{id, label, startURL}]}``."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    providers = ctx.store.all("saml-provider", [("org = ?", [org_id])])
    return {
        "items": [{"id": p["id"], "label": p["label"], "startURL": start_url(p)} for p in providers]
    }
