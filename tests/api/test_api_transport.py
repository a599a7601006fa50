"""Retries, waits, rate limits, concurrency and bad answers, through transports around the sandbox.

The transport is the seam: `ScriptedTransport` answers the first attempts from a script (an error
status, a dropped connection, an HTML page) and passes the rest to the real sandbox app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import ADMIN_TOKEN, ORG, SEED_FILE
from docform.api import (
    ApiClient,
    ApiStatusError,
    ApiTransportError,
    MalformedAnswerError,
)
from docform_sandbox.app import SandboxConfig
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport
from fast_clock import FastClock
from planning import change, live_api, plan_json, run, seeded_sandbox, write_manifests

pytestmark = pytest.mark.anyio
ROOT = "https://api.sandbox.test"
BASE = 0.01
Step = httpx.Response | Exception
GUIDES_TEAM = """\
    organization: {id: org_acme}
    teams: {guides: {title: Guides}}
"""


@pytest.fixture
def sandbox(tmp_path: Path) -> SandboxTransport:
    path = tmp_path / "sandbox.sqlite"
    store = Store(path)
    apply_seed(store, load_seed_file(SEED_FILE))
    store.close()
    return SandboxTransport(path, SandboxConfig(admin_tokens=(ADMIN_TOKEN,)))


class ScriptedTransport(httpx.AsyncBaseTransport):
    """Answers from ``script`` while it lasts, then from ``inner``; records what was asked."""

    def __init__(self, inner: httpx.AsyncBaseTransport, script: Iterable[Step]) -> None:
        self.inner = inner
        self.script = list(script)
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        if self.script:
            step = self.script.pop(0)
            if isinstance(step, Exception):
                raise step
            return step
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class RecordedWaits(list[float]):
    """A sleep that records how long the client asked to wait and returns at once."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": status, "message": message}}
    return httpx.Response(status, json=body, headers=headers)


def unavailable(headers: dict[str, str] | None = None) -> httpx.Response:
    return error(503, "service unavailable", headers)


def dropped() -> httpx.ConnectError:
    return httpx.ConnectError("connection refused")


def scripted_client(
    sandbox: SandboxTransport, script: Iterable[Step], **options: Any
) -> tuple[ApiClient, ScriptedTransport, RecordedWaits]:
    transport = ScriptedTransport(sandbox, script)
    waits = RecordedWaits()
    options = {"backoff_base": BASE, "max_retries": 3, "sleep": waits, **options}
    return ApiClient(ROOT, ADMIN_TOKEN, transport=transport, **options), transport, waits


# -- retries -----------------------------------------------------------------------------------


async def test_get_is_retried_after_503_with_growing_backoff(sandbox: SandboxTransport) -> None:
    api, transport, waits = scripted_client(sandbox, [unavailable(), unavailable()])
    async with api:
        org = await api.get(f"/orgs/{ORG}")
    assert org["id"] == ORG
    assert transport.seen == [f"GET /v1/orgs/{ORG}"] * 3
    assert len(waits) == 2
    assert BASE / 2 <= waits[0] <= BASE
    assert BASE <= waits[1] <= 2 * BASE
    assert (api.stats.requests, api.stats.retries) == (3, 2)
    assert api.stats.summary() == "3 API requests (GET 3), 2 retries (503 2)"


async def test_get_is_retried_after_dropped_connections(sandbox: SandboxTransport) -> None:
    api, _, _ = scripted_client(sandbox, [dropped(), httpx.ReadTimeout("timed out")])
    async with api:
        org = await api.get(f"/orgs/{ORG}")
    assert org["id"] == ORG
    assert api.stats.retries_by_reason == {"ConnectError": 1, "ReadTimeout": 1}


@pytest.mark.parametrize("method", ["PATCH", "PUT", "DELETE"])
async def test_idempotent_changes_are_retried(sandbox: SandboxTransport, method: str) -> None:
    api, transport, _ = scripted_client(sandbox, [])
    async with api:
        team = await api.put(f"/orgs/{ORG}/teams", {"title": "Platform"})
        path = f"/orgs/{ORG}/teams/{team['id']}" + ("/members" if method == "PUT" else "")
        transport.script.append(error(502, "bad gateway"))
        await api.request(method, path, json={"title": "Platform Two", "add": ["u_bob"]})
    assert transport.seen[1:] == [f"{method} /v1{path}"] * 2


async def test_post_is_never_retried(sandbox: SandboxTransport) -> None:
    api, transport, waits = scripted_client(sandbox, [unavailable()])
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.post(f"/orgs/{ORG}/collections", {"title": "Guides"})
    assert transport.seen == [f"POST /v1/orgs/{ORG}/collections"]
    assert waits == []
    assert str(caught.value) == (
        f"POST /orgs/{ORG}/collections failed: 503 service unavailable. The service failed; try "
        "again later. POST calls are never retried automatically because the service may have "
        "done the work; run docform plan to see whether it did."
    )


async def test_post_is_not_retried_after_a_dropped_connection(sandbox: SandboxTransport) -> None:
    api, transport, _ = scripted_client(sandbox, [dropped()])
    async with api:
        with pytest.raises(ApiTransportError):
            await api.post(f"/orgs/{ORG}/collections", {"title": "Guides"})
    assert len(transport.seen) == 1


@pytest.mark.parametrize("fault", ["lost", "502"])
def test_team_creation_by_put_is_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """The team kind marks its create ``retry: false`` in the plan and the applier passes that
    to the client: after a lost answer or a 5xx the team is looked for, never sent blindly again
    (a repeated PUT would create a second team)."""
    sandbox = seeded_sandbox(tmp_path)
    manifests = write_manifests(tmp_path / "m", GUIDES_TEAM)
    planned = change(plan_json(manifests, sandbox), "team.guides", "create")
    assert planned["calls"][0] == {
        "method": "PUT",
        "path": f"/orgs/{ORG}/teams",
        "body": {"title": "Guides"},
        "retry": False,
    }
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", f"{fault}:1@PUT:/orgs/*/teams#1")
    result = run(["apply", manifests, "--yes", "-v"], sandbox)
    assert result.exit_code == 0, result.output
    assert "retrying" not in result.stderr
    teams = live_api(sandbox, "GET", f"/orgs/{ORG}/teams")
    assert [t["title"] for t in teams["items"]].count("Guides") == 1


def test_a_saved_plan_keeps_its_team_creation_from_being_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox = seeded_sandbox(tmp_path)
    manifests = write_manifests(tmp_path / "m", GUIDES_TEAM)
    saved = tmp_path / "docform.plan"
    assert run(["plan", manifests, "--out", saved], sandbox).exit_code == 0
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "lost:1@PUT:/orgs/*/teams#1")
    result = run(["apply", saved, "--yes", "-v"], sandbox)
    assert result.exit_code == 0, result.output
    assert "retrying" not in result.stderr
    teams = live_api(sandbox, "GET", f"/orgs/{ORG}/teams")
    assert [t["title"] for t in teams["items"]].count("Guides") == 1


async def test_retry_false_turns_retries_off_for_one_call(sandbox: SandboxTransport) -> None:
    api, transport, _ = scripted_client(sandbox, [unavailable()])
    async with api:
        with pytest.raises(ApiStatusError):
            await api.request("GET", f"/orgs/{ORG}", retry=False)
    assert len(transport.seen) == 1


async def test_retries_are_bounded_and_the_error_counts_attempts(
    sandbox: SandboxTransport,
) -> None:
    api, transport, _ = scripted_client(sandbox, [unavailable()] * 5, max_retries=2)
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}")
    assert len(transport.seen) == 3
    assert str(caught.value) == (
        f"GET /orgs/{ORG} failed after 3 attempts: 503 service unavailable. "
        "The service failed; try again later."
    )


async def test_transport_failure_after_retries_names_the_service(
    sandbox: SandboxTransport,
) -> None:
    api, _, _ = scripted_client(sandbox, [dropped()] * 3, max_retries=2)
    async with api:
        with pytest.raises(ApiTransportError) as caught:
            await api.get(f"/orgs/{ORG}")
    assert caught.value.status is None
    assert str(caught.value) == (
        f"GET /orgs/{ORG} failed after 3 attempts: no answer from https://api.sandbox.test "
        "(ConnectError: connection refused). Check the network and that DOCFORM_API_URL points "
        "at the service's root."
    )


# -- waits the service asks for -----------------------------------------------------------------


async def test_retry_after_on_503_is_honoured(sandbox: SandboxTransport) -> None:
    api, _, waits = scripted_client(sandbox, [unavailable({"Retry-After": "7"})])
    async with api:
        await api.get(f"/orgs/{ORG}")
    assert waits == [7.0]


async def test_retry_after_on_429_pauses_the_next_attempt(sandbox: SandboxTransport) -> None:
    limited = error(429, "API rate limit exceeded", {"Retry-After": "3"})
    api, transport, waits = scripted_client(sandbox, [limited])
    async with api:
        await api.get(f"/orgs/{ORG}")
    assert len(transport.seen) == 2
    assert len(waits) == 1
    assert 2.9 <= waits[0] <= 3 + BASE
    assert api.stats.rate_limited == 1


async def test_a_429_pauses_the_calls_that_follow(sandbox: SandboxTransport) -> None:
    limited = error(429, "API rate limit exceeded", {"Retry-After": "2"})
    api, transport, waits = scripted_client(sandbox, [limited])
    async with api:
        await api.get(f"/orgs/{ORG}")
        await api.get(f"/orgs/{ORG}/teams")
    assert len(waits) == 2
    assert all(1.9 <= wait <= 2 + BASE for wait in waits)
    assert transport.seen == [f"GET /v1/orgs/{ORG}"] * 2 + [f"GET /v1/orgs/{ORG}/teams"]


async def test_a_rate_limited_post_is_sent_again_and_creates_once(
    sandbox: SandboxTransport,
) -> None:
    limited = error(429, "API rate limit exceeded", {"Retry-After": "1"})
    api, transport, _ = scripted_client(sandbox, [limited])
    async with api:
        created = await api.post(f"/orgs/{ORG}/collections", {"title": "Guides"})
        listed = await api.list_all(f"/orgs/{ORG}/collections")
    assert transport.seen[:2] == [f"POST /v1/orgs/{ORG}/collections"] * 2
    assert [c["id"] for c in listed] == [created["id"]]
    assert api.stats.retries_by_reason == {"429": 1}


async def test_a_post_answered_500_is_not_sent_again(sandbox: SandboxTransport) -> None:
    api, transport, _ = scripted_client(sandbox, [error(500, "internal error")])
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.post(f"/orgs/{ORG}/collections", {"title": "Guides"})
    assert caught.value.status == 500
    assert transport.seen == [f"POST /v1/orgs/{ORG}/collections"]


async def test_get_is_retried_after_500(sandbox: SandboxTransport) -> None:
    api, _, _ = scripted_client(sandbox, [error(500, "internal error")])
    async with api:
        org = await api.get(f"/orgs/{ORG}")
    assert org["id"] == ORG
    assert api.stats.retries_by_reason == {"500": 1}


async def test_429_without_retry_after_waits_until_the_reset_time(
    sandbox: SandboxTransport,
) -> None:
    reset = str(int(time.time()) + 5)
    limited = error(429, "API rate limit exceeded", {"X-RateLimit-Reset": reset})
    api, _, waits = scripted_client(sandbox, [limited])
    async with api:
        await api.get(f"/orgs/{ORG}")
    assert len(waits) == 1
    assert 3.9 <= waits[0] <= 5 + BASE


async def test_a_wait_longer_than_the_limit_fails_at_once(sandbox: SandboxTransport) -> None:
    limited = error(429, "API rate limit exceeded", {"Retry-After": "3600"})
    api, transport, waits = scripted_client(sandbox, [limited], max_retry_wait=60)
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}")
    assert len(transport.seen) == 1
    assert waits == []
    assert caught.value.retry_after == 3600.0
    assert str(caught.value) == (
        f"GET /orgs/{ORG} failed: 429 API rate limit exceeded. The service asked to wait "
        "3600 s, longer than docform waits (60 s). The API's rate limit was still exceeded; "
        "lower the number of concurrent calls or try again later."
    )


async def test_sandbox_rate_limit_is_waited_out_until_every_call_succeeds(
    tmp_path: Path, fast_clock: FastClock
) -> None:
    """The sandbox's one-second windows and the client's waits for them on `fast_clock`."""
    path = tmp_path / "sandbox.sqlite"
    store = Store(path)
    apply_seed(store, load_seed_file(SEED_FILE))
    store.close()
    sandbox = SandboxTransport(path, SandboxConfig(admin_tokens=(ADMIN_TOKEN,), rate_limit=8))
    async with ApiClient(ROOT, ADMIN_TOKEN, transport=sandbox, backoff_base=BASE) as api:
        orgs = await asyncio.gather(*(api.get(f"/orgs/{ORG}") for _ in range(20)))
        stats = sandbox.app.state.sandbox.stats.as_json()
    assert [org["id"] for org in orgs] == [ORG] * 20
    assert stats["byStatus"]["200"] == 20
    assert stats["byStatus"]["429"] == api.stats.rate_limited > 0
    assert api.stats.requests == 20 + api.stats.rate_limited


# -- concurrency -------------------------------------------------------------------------------


class SlowTransport(httpx.AsyncBaseTransport):
    """Holds each request a moment and records the most requests it held at once."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.in_flight = 0
        self.peak = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            return await self.inner.handle_async_request(request)
        finally:
            self.in_flight -= 1


async def test_calls_in_flight_are_bounded(sandbox: SandboxTransport) -> None:
    transport = SlowTransport(sandbox)
    async with ApiClient(ROOT, ADMIN_TOKEN, transport=transport, max_in_flight=3) as api:
        await asyncio.gather(*(api.get(f"/orgs/{ORG}") for _ in range(12)))
    assert transport.peak == 3


# -- answers the API does not send ------------------------------------------------------------


async def test_an_html_page_is_a_malformed_answer(sandbox: SandboxTransport) -> None:
    page = "<html><head><title>Sign in</title></head><body>...</body></html>"
    html = httpx.Response(200, text=page, headers={"Content-Type": "text/html; charset=utf-8"})
    api, _, _ = scripted_client(sandbox, [html])
    async with api:
        with pytest.raises(MalformedAnswerError) as caught:
            await api.get("/orgs")
    assert str(caught.value) == (
        "GET /orgs failed: the answer (200, text/html) is an HTML page titled 'Sign in', not "
        "JSON. Check that DOCFORM_API_URL is the service's API root (docform adds /v1), not a "
        "website or a sign-in page; if it is, the answer was cut short: try again."
    )


async def test_truncated_json_is_a_malformed_answer(sandbox: SandboxTransport) -> None:
    cut = httpx.Response(
        200, content=b'{"items": [{"id": "a"}, {"id"', headers={"Content-Type": "application/json"}
    )
    api, _, _ = scripted_client(sandbox, [cut])
    async with api:
        with pytest.raises(MalformedAnswerError) as caught:
            await api.get("/orgs")
    assert str(caught.value).startswith(
        "GET /orgs failed: the answer (200, application/json) is JSON cut short or broken "
        "after 29 bytes ("
    )


async def test_an_error_page_from_a_proxy_is_described(sandbox: SandboxTransport) -> None:
    page = "<!DOCTYPE html><html><title>502 Bad Gateway</title></html>"
    proxy = httpx.Response(502, text=page, headers={"Content-Type": "text/html"})
    api, _, _ = scripted_client(sandbox, [proxy], max_retries=0)
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get("/orgs")
    assert str(caught.value) == (
        "GET /orgs failed: 502 Bad Gateway (an HTML page titled '502 Bad Gateway', not the "
        "API's error body). The service failed; try again later."
    )


@pytest.mark.parametrize("answer", [httpx.Response(205), httpx.Response(200)])
async def test_delete_succeeds_on_200_and_205(
    sandbox: SandboxTransport, answer: httpx.Response
) -> None:
    api, _, _ = scripted_client(sandbox, [answer])
    async with api:
        assert await api.delete(f"/orgs/{ORG}/teams/t_gone") is None


# -- secrets -----------------------------------------------------------------------------------


async def test_secrets_echoed_by_the_service_are_masked(sandbox: SandboxTransport) -> None:
    echo = error(400, f"bad token {ADMIN_TOKEN} for https://bot:pw@api.example.test/v1")
    api, _, _ = scripted_client(sandbox, [echo])
    async with api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get("/orgs")
    shown = [str(caught.value), repr(caught.value), caught.value.api_message, repr(api)]
    assert all(ADMIN_TOKEN not in text and "pw@" not in text for text in shown)
    assert caught.value.api_message == "bad token *** for https://***@api.example.test/v1"


async def test_log_lines_never_show_the_token(
    sandbox: SandboxTransport, caplog: pytest.LogCaptureFixture
) -> None:
    api, _, _ = scripted_client(sandbox, [unavailable(), dropped()])
    with caplog.at_level("DEBUG", logger="docform.api"):
        async with api:
            await api.get(f"/orgs/{ORG}")
    assert [r.getMessage() for r in caplog.records if r.levelname == "INFO"] == [
        f"GET /orgs/{ORG}: 503; retrying (attempt 2)",
        f"GET /orgs/{ORG}: ConnectError; retrying (attempt 3)",
    ]
    assert ADMIN_TOKEN not in caplog.text
