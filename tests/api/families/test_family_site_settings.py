"""Endpoint families (`endpoint_families`): a site's settings documents: visitor sign-in,
customization, the adaptive schema, ads and the style guide, agent settings.
"""

from __future__ import annotations

import pytest
from endpoint_families import (
    SITE,
    SITES,
    Session,
    family,
    new_space,
    object_id,
)

pytestmark = pytest.mark.anyio


@family
async def test_visitor_authentication(session: Session) -> None:
    s, auth = session, f"{SITES}/{SITE}/publishing/auth"
    first = await s.send("GET", auth, 200)
    body = {"backend": "custom", "fallbackURL": "https://id.acme.test/"}
    patched = await s.send("PATCH", auth, 200, json=body)
    assert (patched["fallbackURL"], patched["privateKey"]) == (
        body["fallbackURL"],
        first["privateKey"],
    )
    renewed = await s.send("POST", f"{auth}/regenerate", 200)
    assert renewed["privateKey"] != first["privateKey"]


@family
async def test_site_customization(session: Session) -> None:
    s, path = session, f"{SITES}/{SITE}/customization"
    document = await s.send("GET", path, 200)
    assert "updatedAt" not in document
    document["styling"]["primaryColor"]["light"] = "#0B5FFF"
    document["ai"] = {"mode": "assistant"}
    document["pageActions"] = {"items": ["pdf"]}
    stored = await s.send("PUT", path, 200, json=document)
    assert stored["styling"]["primaryColor"]["light"] == "#0B5FFF"
    assert stored["pageActions"]["items"] == ["assistant", "pdf"]
    assert "updatedAt" in stored


@family
async def test_site_space_customization(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    space_id = await new_space(s, "Handbook")
    made = await s.send("POST", f"{site}/site-spaces", 201, json={"spaceId": space_id})
    path = f"{site}/site-spaces/{object_id(made, 'site-space')}/customization"
    # The definition answers SiteCustomizationSettings, which has no hasOverrides.
    assert "hasOverrides" not in await s.send("GET", path, 200)
    patched = await s.send("PATCH", path, 200, json={"themes": {"default": "dark"}})
    assert patched["themes"]["default"] == "dark" and "hasOverrides" not in patched
    await s.send("DELETE", path, 205)
    await s.send("DELETE", path, 204)


@family
async def test_site_adaptive_schema(session: Session) -> None:
    s, path = session, f"{SITES}/{SITE}/adaptive-schema"
    schema = {
        "type": "object",
        "properties": {"beta": {"type": "boolean", "description": "In the beta"}},
        "additionalProperties": False,
    }
    stored = await s.send("PUT", path, 200, json={"jsonSchema": schema})
    assert stored["object"] == "site-adaptive-schema"
    assert (await s.send("GET", path, 200))["jsonSchema"]["properties"] == schema["properties"]
    switched = await s.send(
        "PATCH", f"{SITES}/{SITE}", 200, json={"adaptiveContent": {"enabled": True}}
    )
    assert switched["adaptiveContent"] == {"enabled": True}


@family
async def test_site_ads_and_styleguide(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    await s.send("POST", f"{site}/ads", 204, json={"status": "in-review", "topic": "webdev"})
    assert (await s.send("GET", site, 200))["ads"]["status"] == "in-review"
    made = await s.send("POST", f"{site}/styleguide", 200, json={})
    assert made is not None


@family
async def test_site_agent_settings(session: Session) -> None:
    s, settings = session, f"{SITES}/{SITE}/agent-settings"
    made = await s.send("GET", settings, 200)
    assert (made["scans"]["topics"], "updatedAt" in made) == ("auto", False)
    body = {name: made[name] for name in ("scans", "findings", "editing")}
    put = await s.send("PUT", settings, 200, json={**body, "scans": {"topics": "never"}})
    assert put["scans"]["topics"] == "never" and put["findings"] == made["findings"]
