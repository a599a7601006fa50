"""The in-process transport (`docform_sandbox.transport`) hands each request to the endpoint
it finds in its index instead of through the web app: it finds the endpoint the app's routing
takes for the path of every endpoint, and gives the same answers, and writes the same exchange
log lines (what the suite's contract check reads), as the web app does, to the reads planning
made of examples/acme, to a refused write, to a write a fault answers without reading its body,
to a path no endpoint serves and to a method a path does not take."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Match

from docform.workflow.rehearsal import twin_maker
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.exchange_log import LOG_VARIABLE
from docform_sandbox.faults import FaultSettings
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport, find_endpoint
from planning import planned_in_process


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
def test_the_transport_answers_and_logs_as_the_web_app_does(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    plan, _ = planned_in_process(applied_acme, monkeypatch)
    twin = twin_maker().build(plan.reads)
    # The first team create fails before its body is read: logged without a request body.
    faults = FaultSettings("503:1@PUT:/orgs/*/teams#1")
    config = SandboxConfig(admin_tokens=(twin.token,), faults=faults)
    org = "/v1/orgs/org_acme"
    requests = [("GET", f"/v1{read.path}", read.query or None, None) for read in plan.reads] + [
        ("PATCH", f"{org}/teams/{_team(plan)}", None, {"title": "P" * 65}),
        ("PUT", f"{org}/teams", None, {"title": "Platform"}),
        ("GET", f"{org}/no-such-list", None, None),
        ("DELETE", org, None, None),
    ]

    def logged_through(name: str, transport_of: Any) -> tuple[list[Any], list[Any]]:
        log = tmp_path / f"{name}.jsonl"
        monkeypatch.setenv(LOG_VARIABLE, str(log))
        transport = transport_of()

        async def send() -> list[Any]:
            client = httpx.AsyncClient(transport=transport)
            headers = {"Authorization": f"Bearer {twin.token}"}
            answers = []
            for method, path, query, body in requests:
                url = twin.root_url + path
                one = await client.request(method, url, params=query, json=body, headers=headers)
                answers.append((one.status_code, one.json()))
            return answers

        answers = asyncio.run(send())
        return answers, [json.loads(line) for line in log.read_text().splitlines()]

    try:
        direct = logged_through(
            "direct", lambda: SandboxTransport(":memory:", config, store=twin.store)
        )
        web = logged_through("web", lambda: httpx.ASGITransport(app=create_app(twin.store, config)))
    finally:
        twin.close()
    assert direct == web
    answers, lines = direct
    assert [status for status, _ in answers[-4:]] == [400, 503, 404, 405]
    assert len(lines) == len(requests)
    assert [line["request"] for line in lines[-4:-2]] == ['{"title":"' + "P" * 65 + '"}', None]


def _team(plan: Any) -> str:
    read = next(r for r in plan.reads if r.path.endswith("/teams"))
    return str(read.body["items"][0]["id"])
