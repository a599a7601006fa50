"""Endpoint families (`endpoint_families`): integration installations and their targets, and
Git Sync."""

from __future__ import annotations

import pytest
from endpoint_families import (
    ORG,
    SITE,
    SITES,
    Session,
    family,
    new_space,
)

pytestmark = pytest.mark.anyio


@family
async def test_integration_installations(session: Session) -> None:
    s, org = session, f"/orgs/{ORG}"
    assert (await s.send("GET", "/integrations/segment", 200))["name"] == "segment"
    made = await s.send(
        "POST", "/integrations/segment/installations", 201, json={"organization": ORG}
    )
    one = f"/integrations/segment/installations/{made['id']}"
    listed = await s.send("GET", f"{org}/installations", 200)
    assert [i["installation"]["id"] for i in listed["items"]] == [made["id"]]
    assert (await s.send("GET", one, 200))["status"] == "active"
    patched = await s.send("PATCH", one, 200, json={"configuration": {"siteId": "x"}})
    assert patched["configuration"] == {"siteId": "x"}
    status = f"{org}/integrations/segment/installation_status"
    assert await s.send("GET", status, 200) == {"status": "active"}
    space = await new_space(s, "Handbook")
    for target, body, key in (
        ("spaces", {"space": space}, space),
        ("sites", {"siteId": SITE}, SITE),
    ):
        created = await s.send("POST", f"{one}/{target}", 201, json=body)
        assert created["installation"] == made["id"]
        assert len((await s.send("GET", f"{one}/{target}", 200))["items"]) == 1
        await s.send("GET", f"{one}/{target}/{key}", 200)
        await s.send("PATCH", f"{one}/{target}/{key}", 200, json={"configuration": {"a": 1}})
        await s.send("DELETE", f"{one}/{target}/{key}", 205)
    statuses = await s.send("GET", f"{org}/integrations/installations-status", 200)
    assert [i["integration"]["name"] for i in statuses["items"]] == ["segment"]
    await s.send("DELETE", one, 205)


@family
async def test_git_sync(session: Session) -> None:
    s = session
    space = await new_space(s, "Handbook")
    body = {"provider": "github", "target": {"type": "space", "spaceId": space, "siteId": SITE}}
    made = await s.send("POST", "/git/installations", 201, json=body)
    assert made["status"] == "pending"
    one = f"/git/installations/{made['id']}"
    config = {"repositoryId": 7, "branch": "refs/heads/main"}
    setup = {"provider": "github", "providerConfiguration": config}
    assert (await s.send("PATCH", one, 200, json=setup))["status"] == "active"
    assert (await s.send("GET", one, 200))["id"] == made["id"]
    info = await s.send("GET", f"/spaces/{space}/git/info", 200)
    assert info["installationId"] == made["id"]
    listed = await s.send("GET", f"{SITES}/{SITE}/spaces/git/installations", 200)
    assert [i["id"] for i in listed["items"]] == [made["id"]]
    await s.send("DELETE", one, 205)
