"""A twin's transport (`docform_sandbox.twin_transport`) answers as the sandbox's web app does:
it finds the endpoint the app's routing takes for the path of every endpoint, and gives the
same answers to the reads planning made of examples/acme, to a refused write, to a path no
endpoint serves and to a method a path does not take."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Match

from docform.manifest import load_manifest_set
from docform.workflow.rehearsal import twin_maker
from docform.workflow.run import plan_manifests
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.exchange_log import LOG_VARIABLE
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport
from docform_sandbox.twin_transport import TwinTransport, find_endpoint


def test_each_endpoint_is_found_as_the_web_app_routes_its_path() -> None:
    """The path of each endpoint (its parameters filled in) is routed, by the app's own
    routing, to the endpoint the index finds, with the same parameters."""
    app = create_app(Store(":memory:"))
    routed, found = [], []
    for ep in ENDPOINTS:
        path = "/v1" + re.sub(r"\{(\w+)\}", r"\1-7", ep.path)
        scope = {"type": "http", "method": ep.method, "path": path, "root_path": ""}
        route, params = next(
            (r.name, child["path_params"])
            for r in app.router.routes
            for match, child in [r.matches(scope)]
            if match == Match.FULL
        )
        routed.append((route, params))
        hit = find_endpoint(ep.method, path)
        found.append((f"{hit[0].method} {hit[0].path}", hit[1]) if hit else None)

    assert found == routed


@pytest.mark.contract_exempt("sends requests the service refuses, to compare the refusals")
def test_the_twin_answers_as_the_web_app_does(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    directory, sandbox = applied_acme
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    plan, _ = asyncio.run(plan_manifests(load_manifest_set(directory)))
    monkeypatch.delenv(LOG_VARIABLE, raising=False)  # the index answers only when no log is on
    twin = twin_maker().build(plan.reads)
    config = SandboxConfig(admin_tokens=(twin.token,))
    org = "/v1/orgs/org_acme"
    requests = [("GET", f"/v1{read.path}", None) for read in plan.reads] + [
        ("PATCH", f"{org}/teams/{_team(plan)}", {"title": "P" * 65}),
        ("GET", f"{org}/no-such-list", None),
        ("DELETE", org, None),
    ]

    async def both() -> list[tuple[Any, Any]]:
        direct = httpx.AsyncClient(transport=TwinTransport(twin.store, config))
        app = httpx.AsyncClient(transport=SandboxTransport(":memory:", config, store=twin.store))
        headers = {"Authorization": f"Bearer {twin.token}"}
        answers = []
        for method, path, body in requests:
            url = twin.root_url + path
            one = await direct.request(method, url, json=body, headers=headers)
            other = await app.request(method, url, json=body, headers=headers)
            answers.append(((one.status_code, one.json()), (other.status_code, other.json())))
        return answers

    try:
        answers = asyncio.run(both())
    finally:
        twin.close()
    assert [direct for direct, _ in answers] == [app for _, app in answers]
    assert [status for (status, _), _ in answers[-3:]] == [400, 404, 405]


def _team(plan: Any) -> str:
    read = next(r for r in plan.reads if r.path.endswith("/teams"))
    return str(read.body["items"][0]["id"])
