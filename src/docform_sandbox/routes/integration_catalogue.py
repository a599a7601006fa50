"""The integrations the sandbox publishes: ``GET /integrations/{integrationName}``, and the
Integration object every answer that names an integration embeds.

Choices where the API documents are silent:
- The catalogue is fixed (`CATALOGUE`): public integrations of one publisher, each with its
  declared configurations (``configurations.account``, ``.space``, ``.site``: the definition's
  ``IntegrationConfigurationSchema``). Any other name answers 404.
- The definition's property schemas have no keyword that marks a secret. The sandbox marks its
  secret settings the way JSON Schema and OpenAPI do, ``format: "password"`` (a value to
  obscure; still answered with the installation's configuration) or ``writeOnly: true`` (a
  value that is sent and never answered: the sandbox stores it and leaves it out of every
  answer). docs/service.md states the rule docform reads them by.
- A configuration is stored as sent: the sandbox does not check it against the declared
  schema (the API does not say whether the service does).
- Any token may read a published integration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform_sandbox.http import API_BASE, APP_BASE, Ctx, endpoint, not_found
from docform_sandbox.routes.orgs import render_org

#: The organization that publishes the catalogue's integrations (an Integration's ``owner``).
PUBLISHER: dict[str, Any] = {
    "id": "org_integrations",
    "title": "Sandbox Integrations",
    "createdAt": "2024-01-01T00:00:00.000Z",
    "emailDomains": [],
    "type": "business",
    "useCase": "productDocs",
    "plan": "free_2024",
    "inviteLinks": False,
    "mergeRules": {"type": "none"},
}


def _text(title: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "title": title, **more}


def _secret(title: str, **marker: Any) -> dict[str, Any]:
    return _text(title, **(marker or {"format": "password"}))


def _settings(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return schema


SAMPLE_RATE = {"type": "number", "title": "Sample rate"}
TRACK_PAGES = {"type": "boolean", "title": "Track page views"}
#: Analytics integrations: a tracking id, a secret write key, where the data is kept.
ANALYTICS = {
    "account": _settings(
        {
            "trackingId": _text("Tracking id"),
            "writeKey": _secret("Write key"),
            "region": _text("Data region", enum=["us", "eu"]),
            "sampleRate": SAMPLE_RATE,
        }
    ),
    "space": _settings({"trackPages": TRACK_PAGES, "token": _secret("Space token")}),
    "site": _settings({"trackPages": TRACK_PAGES, "token": _secret("Site token")}),
}
CHAT = {
    "account": _settings(
        {
            "appId": _text("App id"),
            "identitySecret": _secret("Identity verification secret"),
            "trackingId": _text("Tracking id"),
            "sampleRate": SAMPLE_RATE,
        }
    ),
    "site": _settings({"trackPages": TRACK_PAGES, "launcher": _text("Launcher position")}),
}
SEARCH = {
    "account": _settings(
        {
            "appId": _text("Application id"),
            "apiKey": _secret("Admin API key"),
            "indexName": _text("Index name"),
            "trackingId": _text("Tracking id"),
            "sampleRate": SAMPLE_RATE,
        }
    ),
    "site": _settings({"trackPages": TRACK_PAGES}),
}
NOTIFICATIONS = {
    "account": _settings(
        {
            "channel": _text("Channel"),
            # Write-only: the service keeps it to sign its calls and never answers it.
            "webhookSecret": _secret("Webhook signing secret", writeOnly=True),
            "notifyOn": _text("Notify on", enum=["publish", "change-request", "all"]),
        },
        required=("webhookSecret",),
    ),
    "space": _settings({"channel": _text("Channel")}),
}
TRACKERS = (
    "googleanalytics", "segment", "mixpanel", "plausible", "fathom", "hotjar", "heap",
    "amplitude", "posthog",
)  # fmt: skip
CATALOGUE: dict[str, dict[str, Any]] = {
    **dict.fromkeys(TRACKERS, ANALYTICS),
    "intercom": CHAT,
    "algolia": SEARCH,
    "slack": NOTIFICATIONS,
}


def write_only(name: str, target: str) -> frozenset[str]:
    """The settings of ``name``'s ``target`` configuration that are never answered."""
    properties = CATALOGUE[name].get(target, {}).get("properties", {})
    return frozenset(key for key, schema in properties.items() if schema.get("writeOnly"))


def render_integration(ctx: Ctx, name: str) -> dict[str, Any]:
    """A catalogue integration as the definition's Integration: every required field, those
    the sandbox has no value for empty (no scopes, categories, preview images or links)."""
    location = f"{API_BASE}/integrations/{name}"
    return {
        "object": "integration",
        "name": name,
        "title": name,
        "version": 1,
        "target": "all",
        "visibility": "public",
        "verified": True,
        "scopes": [],
        "categories": [],
        "previewImages": [],
        "externalLinks": [],
        "configurations": CATALOGUE[name],
        "owner": render_org(ctx, PUBLISHER),
        "permissions": {"admin": False},
        "urls": {
            "location": location,
            "app": f"{APP_BASE}/integrations/{name}",
            "assets": f"{location}/assets",
            "publicEndpoint": f"{location}/public",
            "publicContentEndpoint": f"{location}/public",
        },
    }


def require_integration(ctx: Ctx) -> str:
    name = ctx.params["integrationName"]
    if name not in CATALOGUE:
        raise not_found("integration", name)
    return name


@endpoint("GET", "/integrations/{integrationName}")
def get_integration(ctx: Ctx) -> dict[str, Any]:
    """A published integration, with the configurations it declares."""
    return render_integration(ctx, require_integration(ctx))
