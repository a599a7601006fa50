"""The calls of examples/demo.sh: a few API calls through docform's client, printed readably.

Reads DOCFORM_API_URL and DOCFORM_API_TOKEN like every docform command; waits for the served
sandbox to answer first.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

import httpx

from docform.api import ApiClient
from docform.errors import DocformError

ORG = "org_demo"
STARTUP_SECONDS = 10.0


def wait_for_server(root: str) -> None:
    """Return once the sandbox answers; exit with a message when it never does."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{root}/_sandbox/stats", timeout=1.0)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    sys.exit(f"demo: the sandbox did not answer at {root} within {STARTUP_SECONDS:.0f} s")


def show(call: str, obj: dict[str, Any], *fields: str) -> None:
    print(f"\n{call}")
    width = max(len(f) for f in fields)
    for name in fields:
        print(f"    {name:<{width}}  {obj.get(name)!r}")


def show_list(call: str, items: list[dict[str, Any]], *fields: str) -> None:
    print(f"\n{call}  ->  {len(items)} item{'s' if len(items) != 1 else ''}")
    for item in items:
        print("    - " + ", ".join(f"{name}={item.get(name)!r}" for name in fields))


async def run(api: ApiClient) -> None:
    show_list("GET /orgs", await api.list_all("/orgs"), "id", "title")
    org = await api.get(f"/orgs/{ORG}")
    show(f"GET /orgs/{ORG}", org, "id", "title", "hostname", "defaultRole", "emailDomains")

    team = await api.put(f"/orgs/{ORG}/teams", {"title": "Platform"})
    show(f"PUT /orgs/{ORG}/teams", team, "object", "id", "title", "createdAt")
    show_list(f"GET /orgs/{ORG}/teams", await api.list_all(f"/orgs/{ORG}/teams"), "id", "title")

    collection = await api.post(f"/orgs/{ORG}/collections", {"title": "Engineering"})
    show(f"POST /orgs/{ORG}/collections", collection, "object", "id", "title", "parent")
    body = {"title": "Handbook", "emoji": "1f4d8", "parent": collection["id"]}
    space = await api.post(f"/orgs/{ORG}/spaces", body)
    show(f"POST /orgs/{ORG}/spaces", space, "object", "id", "title", "parent", "visibility")
    spaces = await api.list_all(f"/collections/{collection['id']}/spaces")
    show_list(f"GET /collections/{collection['id']}/spaces", spaces, "id", "title")

    print(f"\n{api.stats.summary()}")


async def main() -> None:
    root = os.environ.get("DOCFORM_API_URL", "")
    print(f"docform demo: the sandbox served at {root}/v1")
    wait_for_server(root)
    async with ApiClient.from_env() as api:
        await run(api)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except DocformError as exc:
        sys.exit(f"Error: {exc}")
