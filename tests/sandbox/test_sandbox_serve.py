"""``docform sandbox serve`` over real HTTP on loopback, through docform's client."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import ORG, SEED_FILE
from docform.api import ApiStatusError
from docform.workflow.connect import Client
from planning import SERVE_TOKEN, served_sandbox

pytestmark = pytest.mark.anyio
WRONG_TOKEN = "tok_not_known_1a2b3c4d5e"
STARTUP_SECONDS = 60.0  # starting Python and docform alone can take seconds on a loaded machine


async def test_served_sandbox_lists_organizations(tmp_path: Path) -> None:
    with served_sandbox(tmp_path / "served.sqlite", "--rate-limit", "50") as (root, _):
        async with Client(root, SERVE_TOKEN) as api:
            orgs = await api.list_all("/orgs")
        limited = httpx.get(f"{root}/v1/orgs", headers={"Authorization": f"Bearer {SERVE_TOKEN}"})
    assert sorted(org["id"] for org in orgs) == ["org_acme", "org_other"]
    # --rate-limit reaches the served app (tests/api/test_rate_limit.py runs the limit itself).
    assert limited.headers["X-RateLimit-Limit"] == "50"


async def test_served_sandbox_keeps_changes_across_restarts(tmp_path: Path) -> None:
    data = tmp_path / "served.sqlite"
    with served_sandbox(data) as (root, _):
        async with Client(root, SERVE_TOKEN) as api:
            await api.patch(f"/orgs/{ORG}", {"title": "Acme Renamed"})
    with served_sandbox(data) as (root, _):
        async with Client(root, SERVE_TOKEN) as api:
            org = await api.get(f"/orgs/{ORG}")
    assert org["title"] == "Acme Renamed"


async def test_served_sandbox_refuses_a_wrong_token(tmp_path: Path) -> None:
    with served_sandbox(tmp_path / "served.sqlite") as (root, _):
        async with Client(root, WRONG_TOKEN) as api:
            with pytest.raises(ApiStatusError) as caught:
                await api.get("/orgs")
    assert caught.value.status == 401
    assert str(caught.value) == (
        "GET /orgs failed: 401 the bearer token is not valid. Check that DOCFORM_API_TOKEN is "
        "set to a valid, unexpired API token for this service."
    )
    assert WRONG_TOKEN not in repr(caught.value)


def test_ready_file_holds_the_url_once_the_server_answers_and_goes_when_it_stops(
    tmp_path: Path,
) -> None:
    ready = tmp_path / "sandbox-url"
    ready.write_text("stale from an earlier run\n", encoding="utf-8")
    command = [sys.executable, "-m", "docform", "sandbox", "serve", "--port", "0"]
    command += ["--data", str(tmp_path / "served.sqlite"), "--token", SERVE_TOKEN]
    command += ["--seed", str(SEED_FILE), "--ready-file", str(ready)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not (ready.exists() and ready.read_text().startswith("http")):
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "no ready file"
            time.sleep(0.02)
        root = ready.read_text(encoding="utf-8")
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+\n", root)
        answer = httpx.get(
            f"{root.strip()}/v1/orgs", headers={"Authorization": f"Bearer {SERVE_TOKEN}"}
        )
        assert answer.status_code == 200
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert not ready.exists()
    assert stderr == f"docform sandbox: serving {tmp_path / 'served.sqlite'} at {root.strip()}/v1\n"


def test_verbose_serve_prints_a_line_per_request(tmp_path: Path) -> None:
    ready = tmp_path / "sandbox-url"
    command = [sys.executable, "-m", "docform", "sandbox", "serve", "--port", "0", "-v"]
    command += ["--data", str(tmp_path / "served.sqlite"), "--token", SERVE_TOKEN]
    command += ["--seed", str(SEED_FILE), "--ready-file", str(ready)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not ready.exists():
            assert process.poll() is None and time.monotonic() < deadline, "no ready file"
            time.sleep(0.02)
        root = ready.read_text(encoding="utf-8").strip()
        httpx.get(f"{root}/v1/orgs", headers={"Authorization": f"Bearer {SERVE_TOKEN}"})
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=10)
    assert re.search(r'"GET /v1/orgs HTTP/1\.1" 200', output), output


# -- what a served sandbox refuses before the app sees a request ------------------------------


def test_a_request_addressed_to_another_host_is_refused_on_loopback(tmp_path: Path) -> None:
    """DNS rebinding: a page whose name now resolves to 127.0.0.1 still sends its own Host."""
    with served_sandbox(tmp_path / "served.sqlite") as (root, _):
        auth = {"Authorization": f"Bearer {SERVE_TOKEN}"}
        rebound = httpx.get(f"{root}/v1/orgs/org_acme", headers={**auth, "Host": "evil.test"})
        for host in ("127.0.0.1", "localhost", "[::1]"):
            port = root.rsplit(":", 1)[1]
            own = httpx.get(f"{root}/v1/orgs/org_acme", headers={**auth, "Host": f"{host}:{port}"})
            assert own.status_code == 200, (host, own.text)
    assert rebound.status_code == 400
    assert rebound.json()["error"]["message"].startswith("the Host header names another machine")


def test_a_connection_that_sends_its_headers_too_slowly_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_HEADER_SECONDS", "1")
    with served_sandbox(tmp_path / "served.sqlite") as (root, _):
        host, port = root.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as slow:
            slow.sendall(b"GET /v1/orgs/org_acme HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            started = time.monotonic()
            assert slow.recv(1024) == b""  # closed by the server, not answered
            held = time.monotonic() - started
        assert httpx.get(f"{root}/_sandbox/openapi.json").status_code == 200
    assert 0.5 < held < 5, held
