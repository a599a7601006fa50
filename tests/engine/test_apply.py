"""The applier (engine/apply.py): order, placeholders, failures, and lost answers."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import httpx

from docform.api import ApiClient
from docform.engine.apply import apply_plan
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import make_plan, recover_by_planning
from docform.workflow.saved import secret_resolver
from docform_sandbox.app import SandboxConfig
from docform_sandbox.transport import SandboxTransport
from planning import FIXTURES, assert_converged, live_api, seeded_sandbox

TOKEN = "tok_test_apply_0123456789"


class LosesAnswers(httpx.AsyncBaseTransport):
    """Delivers every request, but drops the answer of the first POST to a matching path:
    the write happened, the client never hears of it."""

    def __init__(self, inner: httpx.AsyncBaseTransport, path_part: str) -> None:
        self.inner = inner
        self.path_part = path_part
        self.lost: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and self.path_part in request.url.path and not self.lost:
            await response.aread()
            self.lost.append(request.url.path)
            raise httpx.RemoteProtocolError("connection closed without an answer")
        return response


def client(sandbox: Path, transport: httpx.AsyncBaseTransport | None = None, **kw) -> ApiClient:
    inner = SandboxTransport(sandbox, SandboxConfig(admin_tokens=(TOKEN,)))
    return Client(f"sandbox:{sandbox}", token=TOKEN, transport=transport or inner, **kw)


def test_a_create_whose_answer_was_lost_is_found_not_repeated(tmp_path):
    sandbox = seeded_sandbox(tmp_path)
    manifests_dir = tmp_path / "m"
    shutil.copytree(FIXTURES / "basic", manifests_dir)
    manifests = load_manifest_set(manifests_dir)
    lossy = LosesAnswers(SandboxTransport(sandbox, SandboxConfig(admin_tokens=(TOKEN,))), "/spaces")

    async def run() -> object:
        async with client(sandbox) as reader:
            plan = await make_plan(manifests, reader)
        async with client(sandbox, lossy) as writer:
            recover = recover_by_planning(manifests, lambda: client(sandbox, read_only=True))
            secrets = secret_resolver(manifests)
            return await apply_plan(plan.changes, writer, recover=recover, resolve_secret=secrets)

    report = asyncio.run(run())
    assert lossy.lost == ["/v1/orgs/org_acme/spaces"]
    assert report.ok, report.failed
    titles = [s["title"] for s in live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]]
    assert sorted(titles) == ["Handbook", "On-call"]
    assert_converged(manifests_dir, sandbox)


class DropsFirstPost(LosesAnswers):
    """Closes the connection before the first matching POST reaches the service."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and self.path_part in request.url.path and not self.lost:
            self.lost.append(request.url.path)
            raise httpx.RemoteProtocolError("connection closed before the request was sent")
        return await self.inner.handle_async_request(request)


def test_a_create_that_never_arrived_is_sent_again_once(tmp_path):
    sandbox = seeded_sandbox(tmp_path)
    manifests_dir = tmp_path / "m"
    shutil.copytree(FIXTURES / "basic", manifests_dir)
    manifests = load_manifest_set(manifests_dir)
    inner = SandboxTransport(sandbox, SandboxConfig(admin_tokens=(TOKEN,)))
    dropping = DropsFirstPost(inner, "/collections")

    async def run() -> object:
        async with client(sandbox) as reader:
            plan = await make_plan(manifests, reader)
        async with client(sandbox, dropping) as writer:
            recover = recover_by_planning(manifests, lambda: client(sandbox, read_only=True))
            return await apply_plan(
                plan.changes, writer, recover=recover, resolve_secret=secret_resolver(manifests)
            )

    report = asyncio.run(run())
    assert dropping.lost == ["/v1/orgs/org_acme/collections"]
    assert report.ok, report.failed
    titles = [c["title"] for c in live_api(sandbox, "GET", "/orgs/org_acme/collections")["items"]]
    assert sorted(titles) == ["Engineering", "Runbooks"]
    assert_converged(manifests_dir, sandbox)


def test_apply_json_reports_the_status_of_each_successful_call(tmp_path):
    from planning import run, write_manifests

    sandbox = seeded_sandbox(tmp_path)
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}}\n"
        "organization: {id: org_acme, title: Acme Inc}\n"
        "members: {alice@acme.test: admin, erin@acme.test: edit}\n"
        "teams: {core: {title: Core}}\n",
    )
    result = run(["apply", manifests, "--yes", "--json"], sandbox)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    calls = [e for e in events if e["type"] == "call"]
    assert {(e["method"], e["change"], e["status"], e["ok"]) for e in calls} == {
        ("PATCH", "organization#update", 200, True),
        ("PUT", "team.core#create", 201, True),
        ("DELETE", "member.~u_bob#delete", 205, True),
    }
