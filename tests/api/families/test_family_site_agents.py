"""Endpoint families (`endpoint_families`): what a site lends its assistant: share links, context
connections, MCP servers, channels.
"""

from __future__ import annotations

import pytest
from endpoint_families import (
    SITE,
    SITES,
    Session,
    family,
    object_id,
    page_ids,
)

pytestmark = pytest.mark.anyio


@family
async def test_share_links(session: Session) -> None:
    s, links = session, f"{SITES}/{SITE}/share-links"
    link_id = object_id(await s.send("POST", links, 201, json={"name": "Partners"}), "share-link")
    assert page_ids(await s.send("GET", links, 200), "share-link") == [link_id]
    patched = await s.send("PATCH", f"{links}/{link_id}", 200, json={"active": False})
    assert patched["active"] is False
    await s.send("DELETE", f"{links}/{link_id}", 205)
    assert page_ids(await s.send("GET", links, 200), "share-link") == []


@family
async def test_context_connections(session: Session) -> None:
    s, connections = session, f"{SITES}/{SITE}/context-connections"
    made = await s.send("POST", connections, 201, json={"connector": "builtin:api"})
    connection_id = made["id"]
    listed = await s.send("GET", connections, 200)
    assert [item["id"] for item in listed["items"]] == [connection_id]
    one = await s.send("GET", f"{connections}/{connection_id}", 200)
    assert one["id"] == connection_id
    patched = await s.send("PATCH", f"{connections}/{connection_id}", 200, json={"label": "API"})
    assert patched["label"] == "API"
    await s.send("DELETE", f"{connections}/{connection_id}", 205)
    assert (await s.send("GET", connections, 200))["items"] == []


@family
async def test_mcp_servers(session: Session) -> None:
    s, servers = session, f"{SITES}/{SITE}/mcp-servers"
    body = {"name": "Search", "url": "https://mcp.acme.test/sse", "headers": {}}
    server_id = (await s.send("POST", servers, 201, json=body))["id"]
    listed = await s.send("GET", servers, 200)
    assert [item["id"] for item in listed["items"]] == [server_id]
    assert (await s.send("GET", f"{servers}/{server_id}", 200))["id"] == server_id
    patched = await s.send("PATCH", f"{servers}/{server_id}", 200, json={"transport": "http"})
    assert patched["transport"] == "http"
    await s.send("DELETE", f"{servers}/{server_id}", 205)


@family
async def test_site_channels(session: Session) -> None:
    s, channels = session, f"{SITES}/{SITE}/channels"
    body = {"type": "builtin:slack", "setupSettings": {"allowedChannels": ["docs"]}}
    made = await s.send("POST", channels, 201, json=body)
    assert (made["status"], made["role"]) == ("pending", "support")
    listed = await s.send("GET", channels, 200)
    assert [item["id"] for item in listed["items"]] == [made["id"]]
    assert (await s.send("GET", f"{channels}/{made['id']}", 200))["type"] == "builtin:slack"
    patched = await s.send("PATCH", f"{channels}/{made['id']}", 200, json={"role": "collaborator"})
    assert patched["role"] == "collaborator"
    await s.send("DELETE", f"{channels}/{made['id']}", 205)
    await s.send("DELETE", f"{channels}/{made['id']}", 204)
