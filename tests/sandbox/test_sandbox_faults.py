"""Fault injection in the sandbox (sandbox/faults.py): the spec, what each fault does, how a
client sees it in-process and over HTTP, the control endpoint, and the environment variables."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from conftest import ORG
from docform.api import ApiTransportError
from docform.cli import cli
from docform.workflow.connect import Client
from docform_sandbox.app import Sandbox, SandboxConfig
from docform_sandbox.faults import FaultSettings, FaultSpecError, parse_fault_spec, path_matches
from docform_sandbox.transport import SandboxTransport
from docform_sandbox.waits import RealTime, Waits
from planning import (
    FIXTURES,
    SERVE_TOKEN,
    assert_converged,
    live_api,
    run,
    seeded_sandbox,
    served_sandbox,
)
from skipped_time import SkippedTime

pytestmark = pytest.mark.anyio
TOKEN = SERVE_TOKEN
ROOT = "http://sandbox.test"


@asynccontextmanager
async def faulty(
    sandbox_file: Path, spec: str, seed: int | None = None, **options: Any
) -> AsyncIterator[tuple[httpx.AsyncClient, Sandbox]]:
    """A raw HTTP client of an in-process sandbox injecting ``spec``, and that sandbox."""
    settings = FaultSettings(spec, seed, options.pop("slow_seconds", 35.0))
    waits = options.pop("waits", RealTime())
    config = SandboxConfig((TOKEN,), faults=settings, waits=waits)
    transport = SandboxTransport(sandbox_file, config)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(
        transport=transport, base_url=f"{ROOT}/v1/", headers=headers, **options
    ) as client:
        yield client, transport.app.state.sandbox


async def org_title(client: httpx.AsyncClient) -> str:
    return (await client.get(f"orgs/{ORG}")).json()["title"]


# -- the spec ----------------------------------------------------------------------------------


def test_a_spec_reads_kind_probability_route_and_count() -> None:
    rules = parse_fault_spec("500:0.07, 429:0.04,lost:1@POST:/orgs/*/spaces#3-")
    assert [(r.kind, r.probability, r.method, r.glob, r.first, r.last) for r in rules] == [
        ("500", 0.07, "*", "/**", 1, None),
        ("429", 0.04, "*", "/**", 1, None),
        ("lost", 1.0, "POST", "/orgs/*/spaces", 3, None),
    ]


def test_a_count_selects_one_request_or_a_range() -> None:
    one, span = parse_fault_spec("500:1#3,503:1@/orgs#2-4")
    assert (one.first, one.last) == (3, 3)
    assert (span.method, span.first, span.last) == ("*", 2, 4)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("boom:0.5", "fault rule 'boom:0.5': unknown kind 'boom'; use one of "
         "500, 502, 503, 504, 429, drop, lost, slow"),
        ("500:1.5", "fault rule '500:1.5': the probability must be a number from 0 to 1"),
        ("500:often", "fault rule '500:often': the probability must be a number from 0 to 1"),
        ("500", "fault rule '500': write KIND:PROBABILITY[@METHOD:PATH][#N]"),
        ("500:1@POST:orgs", "fault rule '500:1@POST:orgs': the route must be METHOD:/path/glob "
         "(or /path/glob), the path as after /v1"),
        ("500:1#0", "fault rule '500:1#0': write the count as #N, #N-M or #N-"),
        ("500:1#4-2", "fault rule '500:1#4-2': the count range ends before it starts"),
    ],
)  # fmt: skip
def test_a_bad_spec_is_refused_naming_the_rule(spec: str, message: str) -> None:
    with pytest.raises(FaultSpecError) as caught:
        parse_fault_spec(spec)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("glob", "path", "matched"),
    [
        ("/orgs/*/teams", "/orgs/org_acme/teams", True),
        ("/orgs/*/teams", "/orgs/org_acme/teams/t1", False),
        ("/orgs/*/teams", "/orgs/teams", False),
        ("/orgs/**", "/orgs", True),
        ("/orgs/**/members", "/orgs/org_acme/teams/t1/members", True),
        ("/orgs/*/team*", "/orgs/org_acme/teams", True),
        ("/collections/*", "/collections/c1?limit=5", True),
    ],
)
def test_a_star_is_one_path_segment_and_two_stars_any(glob: str, path: str, matched: bool) -> None:
    assert path_matches(glob, path) is matched


# -- what each fault does ----------------------------------------------------------------------


async def test_a_status_fault_answers_the_error_body_and_writes_nothing(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "502:1@PATCH:/orgs/*") as (client, _):
        answer = await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
        assert answer.status_code == 502
        assert answer.json() == {
            "error": {"code": 502, "message": "Bad gateway (fault injected by the sandbox)"}
        }
        assert await org_title(client) == "Acme"


async def test_a_429_fault_says_when_to_retry(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "429:1") as (client, _):
        answer = await client.get(f"orgs/{ORG}")
    assert (answer.status_code, answer.headers["Retry-After"]) == (429, "1")


async def test_a_drop_closes_the_connection_before_the_write(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "drop:1@PATCH:/orgs/*") as (client, _):
        with pytest.raises(httpx.RemoteProtocolError):
            await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
        assert await org_title(client) == "Acme"


async def test_a_lost_answer_comes_after_the_write_is_committed(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "lost:1@PATCH:/orgs/*") as (client, _):
        with pytest.raises(httpx.RemoteProtocolError):
            await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
        assert await org_title(client) == "Renamed"


# The sandbox's waits in real time, and skipped (tests/skipped_time.py) as the tests of slow
# answers through docform take them: a slow answer must do the same on both.
WAITS = pytest.mark.parametrize("waits", [RealTime, SkippedTime], ids=["real", "skipped"])


@WAITS
async def test_a_slow_answer_times_the_client_out_after_the_write(
    tmp_path: Path, waits: type[Waits]
) -> None:
    options = {"slow_seconds": 5.0, "timeout": 0.2, "waits": waits()}
    spec = "slow:1@PATCH:/orgs/*"
    async with faulty(seeded_sandbox(tmp_path), spec, **options) as (client, sandbox):
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
        assert time.monotonic() - started < 2.0
        assert await org_title(client) == "Renamed"
    stats = sandbox.stats.as_json()
    assert (stats["total"], stats["byStatus"], stats["faults"]) == (2, {"200": 1}, {"slow": 1})


@WAITS
async def test_a_slow_answer_within_the_read_timeout_comes(
    tmp_path: Path, waits: type[Waits]
) -> None:
    options = {"slow_seconds": 0.05, "timeout": 5.0, "waits": waits()}
    async with faulty(seeded_sandbox(tmp_path), "slow:1@PATCH:/orgs/*", **options) as (client, _):
        answer = await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
    assert (answer.status_code, answer.json()["title"]) == (200, "Renamed")


async def test_skipped_waits_add_up_per_request_and_spend_no_real_time(tmp_path: Path) -> None:
    """Latency and a slow answer add up on the request's own clock: 10 + 15 s is past a
    20 s timeout though neither is; the next request starts its clock afresh."""
    waits = SkippedTime()
    transport = SandboxTransport(
        seeded_sandbox(tmp_path),
        SandboxConfig(
            (TOKEN,),
            latency_ms=10_000,
            faults=FaultSettings("slow:1@PATCH:/orgs/*#1", slow_seconds=15),
            waits=waits,
        ),
    )
    headers = {"Authorization": f"Bearer {TOKEN}"}
    started = time.monotonic()
    async with httpx.AsyncClient(
        transport=transport, base_url=f"{ROOT}/v1/", headers=headers, timeout=20
    ) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.patch(f"orgs/{ORG}", json={"title": "Renamed"})
        again = await client.patch(f"orgs/{ORG}", json={"title": "Again"})
    assert again.status_code == 200
    assert waits.waited == [10, 15, 10]
    assert time.monotonic() - started < 5


async def test_a_route_limited_fault_spares_other_methods_and_paths(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "500:1@POST:/orgs/*/teams") as (client, _):
        listed = await client.get(f"orgs/{ORG}/teams")
        other = await client.get(f"orgs/{ORG}")
    assert (listed.status_code, other.status_code) == (200, 200)


async def test_a_count_fails_only_the_chosen_matching_request(tmp_path: Path) -> None:
    spec = "500:1@POST:/orgs/*/collections#2"
    async with faulty(seeded_sandbox(tmp_path), spec) as (client, _):
        await client.get(f"orgs/{ORG}/collections")
        statuses = []
        for title in ("One", "Two", "Three"):
            answer = await client.post(f"orgs/{ORG}/collections", json={"title": title})
            statuses.append(answer.status_code)
    assert statuses == [201, 500, 201]


async def test_the_same_seed_injects_the_same_faults(tmp_path: Path) -> None:
    sandbox_file = seeded_sandbox(tmp_path)

    async def statuses(seed: int) -> list[int]:
        async with faulty(sandbox_file, "500:0.3,503:0.2", seed) as (client, _):
            return [(await client.get(f"orgs/{ORG}")).status_code for _ in range(40)]

    first, again, other = await statuses(7), await statuses(7), await statuses(8)
    assert first == again
    assert first != other
    assert {500, 503, 200} == set(first)


async def test_faults_never_touch_the_control_endpoints(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "500:1") as (client, _):
        answer = await client.get(f"{ROOT}/_sandbox/stats")
    assert answer.status_code == 200


async def test_stats_count_injected_faults_by_kind(tmp_path: Path) -> None:
    spec = "drop:1@GET:/orgs/*#1,503:1@GET:/orgs/*#2"
    async with faulty(seeded_sandbox(tmp_path), spec) as (client, _):
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(f"orgs/{ORG}")
        await client.get(f"orgs/{ORG}")
        await client.get(f"orgs/{ORG}")
        stats = (await client.get(f"{ROOT}/_sandbox/stats")).json()
    assert stats["faults"] == {"drop": 1, "503": 1}
    assert stats["byStatus"] == {"503": 1, "200": 1}
    assert stats["total"] == 3


# -- the control endpoint ----------------------------------------------------------------------


async def test_put_faults_replaces_them_at_run_time(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "") as (client, _):
        before = await client.get(f"orgs/{ORG}")
        put = await client.put(f"{ROOT}/_sandbox/faults", json={"spec": "503:1#1", "seed": 4})
        after = await client.get(f"orgs/{ORG}")
        settings = (await client.get(f"{ROOT}/_sandbox/faults")).json()
    assert (before.status_code, put.status_code, after.status_code) == (200, 200, 503)
    assert settings == {"spec": "503:1#1", "seed": 4, "slowSeconds": 35.0, "retryAfter": 1}


async def test_put_faults_restarts_the_counts(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "503:1#1") as (client, _):
        first = await client.get(f"orgs/{ORG}")
        await client.put(f"{ROOT}/_sandbox/faults", json={"spec": "503:1#1"})
        again = await client.get(f"orgs/{ORG}")
    assert (first.status_code, again.status_code) == (503, 503)


async def test_put_faults_refuses_a_bad_spec_and_keeps_the_old_one(tmp_path: Path) -> None:
    async with faulty(seeded_sandbox(tmp_path), "429:1@DELETE:/**") as (client, _):
        answer = await client.put(f"{ROOT}/_sandbox/faults", json={"spec": "500:2"})
        kept = (await client.get(f"{ROOT}/_sandbox/faults")).json()["spec"]
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == (
        "body: spec: fault rule '500:2': the probability must be a number from 0 to 1"
    )
    assert kept == "429:1@DELETE:/**"


# -- through docform's client ------------------------------------------------------------------


async def no_wait(seconds: float) -> None:
    await asyncio.sleep(0)


async def test_the_in_process_sandbox_reads_its_faults_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "drop:1@GET:/orgs/*#1,503:1@GET:/orgs/*#2")
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULT_SEED", "11")
    async with Client(f"sandbox:{seeded_sandbox(tmp_path)}", sleep=no_wait) as client:
        org = await client.get(f"/orgs/{ORG}")
    assert org["id"] == ORG
    assert dict(client.stats.retries_by_reason) == {"RemoteProtocolError": 1, "503": 1}


async def test_a_slow_read_times_out_in_process_and_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "slow:1@GET:/orgs/*#1")
    monkeypatch.setenv("DOCFORM_SANDBOX_SLOW_SECONDS", "5")
    sandbox_file = seeded_sandbox(tmp_path)
    started = time.monotonic()
    async with Client(f"sandbox:{sandbox_file}", timeout=0.2, sleep=no_wait) as client:
        org = await client.get(f"/orgs/{ORG}")
    assert org["id"] == ORG
    assert dict(client.stats.retries_by_reason) == {"ReadTimeout": 1}
    assert time.monotonic() - started < 2.0


async def test_a_dropped_post_is_a_transport_error_and_is_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "drop:1@POST:/orgs/*/collections")
    async with Client(f"sandbox:{seeded_sandbox(tmp_path)}", sleep=no_wait) as client:
        with pytest.raises(ApiTransportError) as caught:
            await client.post(f"/orgs/{ORG}/collections", {"title": "Docs"})
    assert str(caught.value).startswith(
        f"POST /orgs/{ORG}/collections failed: no answer from https://api.sandbox.test "
        "(RemoteProtocolError: the sandbox closed the connection (injected fault))."
    )
    assert client.stats.requests == 1


def test_a_bad_fault_spec_in_the_environment_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:0.1,oops")
    with pytest.raises(FaultSpecError) as caught:
        Client(f"sandbox:{seeded_sandbox(tmp_path)}")
    assert str(caught.value) == (
        "DOCFORM_SANDBOX_FAULTS: fault rule 'oops': write KIND:PROBABILITY[@METHOD:PATH][#N]"
    )


def test_a_bad_fault_seed_in_the_environment_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULT_SEED", "seven")
    with pytest.raises(FaultSpecError) as caught:
        Client(f"sandbox:{seeded_sandbox(tmp_path)}")
    assert str(caught.value) == "DOCFORM_SANDBOX_FAULT_SEED must be a number, not 'seven'"


def test_apply_finds_a_create_whose_answer_the_environment_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox_file = seeded_sandbox(tmp_path)
    manifests = tmp_path / "m"
    shutil.copytree(FIXTURES / "basic", manifests)
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "lost:1@POST:/orgs/*/collections#1")
    result = run(["apply", manifests, "--yes"], sandbox_file)
    assert result.exit_code == 0, result.output
    monkeypatch.delenv("DOCFORM_SANDBOX_FAULTS")
    titles = [
        c["title"] for c in live_api(sandbox_file, "GET", f"/orgs/{ORG}/collections")["items"]
    ]
    assert sorted(titles) == ["Engineering", "Runbooks"]
    assert_converged(manifests, sandbox_file)


def test_retries_are_quiet_unless_plan_is_verbose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox_file = seeded_sandbox(tmp_path)
    manifests = tmp_path / "m"
    shutil.copytree(FIXTURES / "basic", manifests)
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", f"503:1@GET:/orgs/{ORG}#1")
    retry = f"GET /orgs/{ORG}: 503; retrying (attempt 2)"
    # A process of its own: in pytest, the log capture would hide what Python prints by default.
    quiet = subprocess.run(
        [sys.executable, "-m", "docform", "plan", str(manifests)],
        env={**os.environ, "DOCFORM_API_URL": f"sandbox:{sandbox_file}", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert quiet.returncode == 0, quiet.stderr
    assert "retrying" not in quiet.stderr
    verbose = run(["plan", manifests, "-v"], sandbox_file)
    assert verbose.exit_code == 0, verbose.output
    assert retry in verbose.stderr.splitlines()


# -- served over HTTP --------------------------------------------------------------------------


async def test_a_served_sandbox_drops_and_loses_answers_and_counts_them(tmp_path: Path) -> None:
    spec = "lost:1@POST:/orgs/*/collections#1,drop:1@GET:/orgs/*#1"
    options = ("--faults", spec, "--fault-seed", "3")
    with served_sandbox(tmp_path / "served.sqlite", *options) as (root, output):
        async with Client(root, TOKEN, sleep=no_wait) as client:
            with pytest.raises(ApiTransportError, match="RemoteProtocolError"):
                await client.post(f"/orgs/{ORG}/collections", {"title": "Kept"})
            await client.get(f"/orgs/{ORG}")
            listed = await client.list_all(f"/orgs/{ORG}/collections")
        admin = {"Authorization": f"Bearer {TOKEN}"}
        stats = httpx.get(f"{root}/_sandbox/stats", headers=admin).json()
        settings = httpx.get(f"{root}/_sandbox/faults", headers=admin).json()
    assert [c["title"] for c in listed] == ["Kept"]
    assert client.stats.retries_by_reason == {"RemoteProtocolError": 1}
    assert stats["faults"] == {"lost": 1, "drop": 1}
    assert settings == {"spec": spec, "seed": 3, "slowSeconds": 35.0, "retryAfter": 1}
    assert "Traceback" not in output[0]


@pytest.mark.contract_exempt(
    "leaves in the middle of its body on purpose: the sandbox's empty 400 is read by nobody",
    answers=True,
)
def test_a_served_sandbox_takes_a_client_leaving_mid_body_without_a_traceback(
    tmp_path: Path,
) -> None:
    with served_sandbox(tmp_path / "served.sqlite") as (root, output):
        port = int(root.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            head = f"PUT /v1/orgs/{ORG}/teams HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            head += f"Authorization: Bearer {TOKEN}\r\nContent-Length: 1000\r\n\r\n"
            sock.sendall(head.encode() + b'{"title": "Half')
            time.sleep(0.3)
        admin = {"Authorization": f"Bearer {TOKEN}"}
        deadline = time.monotonic() + 10
        while not (stats := httpx.get(f"{root}/_sandbox/stats", headers=admin).json())["total"]:
            assert time.monotonic() < deadline, "the request the client left is never counted"
            time.sleep(0.02)
    assert "Traceback" not in output[0]
    assert "ClientDisconnect" not in output[0]
    assert stats["byRoute"] == {"PUT /orgs/{organizationId}/teams": 1}
    assert stats["byStatus"] == {}


def test_serve_refuses_a_bad_fault_spec() -> None:
    result = CliRunner().invoke(cli, ["sandbox", "serve", "--data", "x.sqlite", "--faults", "7:1"])
    assert result.exit_code == 1
    assert "Invalid value for '--faults': fault rule '7:1': unknown kind '7'" in result.stderr
