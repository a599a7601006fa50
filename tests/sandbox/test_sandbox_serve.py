"""``docform sandbox serve`` over real HTTP on loopback, through docform's client."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
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
# The served sandbox's deadline for a request's headers, and then for its body: what the tests of
# a slow client wait out, each measured from before it connects, so never less.
HEADER_SECONDS = 0.5


@dataclass(frozen=True)
class Served:
    """A running ``docform sandbox serve``: its root URL and the file of everything it prints."""

    root: str
    log: Path

    def printed(self, pattern: str) -> str:
        """What it printed, once ``pattern`` is in it (it prints as it serves)."""
        deadline = time.monotonic() + 10
        while not re.search(pattern, text := self.log.read_text(encoding="utf-8")):
            assert time.monotonic() < deadline, text
            time.sleep(0.02)
        return text


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One ``docform sandbox serve -v --rate-limit 50`` (headers allowed `HEADER_SECONDS`) for
    the tests that only read from it: starting Python and docform takes a second or more each
    time."""
    directory = tmp_path_factory.mktemp("served")
    ready, log = directory / "sandbox-url", directory / "printed.log"
    command = [sys.executable, "-m", "docform", "sandbox", "serve", "--port", "0", "-v"]
    command += ["--data", str(directory / "served.sqlite"), "--token", SERVE_TOKEN]
    command += ["--seed", str(SEED_FILE), "--ready-file", str(ready), "--rate-limit", "50"]
    env = {**os.environ, "DOCFORM_SANDBOX_HEADER_SECONDS": str(HEADER_SECONDS)}
    with log.open("w", encoding="utf-8") as printed:
        process = subprocess.Popen(command, stdout=printed, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not (ready.exists() and ready.read_text().startswith("http")):
            assert process.poll() is None, log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, "no ready file"
            time.sleep(0.02)
        yield Served(ready.read_text(encoding="utf-8").strip(), log)
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_served_sandbox_lists_organizations(served: Served) -> None:
    root = served.root
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


async def test_served_sandbox_refuses_a_wrong_token(served: Served) -> None:
    async with Client(served.root, WRONG_TOKEN) as api:
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


def test_verbose_serve_prints_a_line_per_request(served: Served) -> None:
    headers = {"Authorization": f"Bearer {SERVE_TOKEN}"}
    httpx.get(f"{served.root}/v1/orgs/org_other", headers=headers)
    assert served.printed(r'"GET /v1/orgs/org_other HTTP/1\.1" 200')


# -- what a served sandbox refuses before the app sees a request ------------------------------


def test_a_request_addressed_to_another_host_is_refused_on_loopback(served: Served) -> None:
    """DNS rebinding: a page whose name now resolves to 127.0.0.1 still sends its own Host."""
    root = served.root
    auth = {"Authorization": f"Bearer {SERVE_TOKEN}"}
    rebound = httpx.get(f"{root}/v1/orgs/org_acme", headers={**auth, "Host": "evil.test"})
    for host in ("127.0.0.1", "localhost", "[::1]"):
        port = root.rsplit(":", 1)[1]
        own = httpx.get(f"{root}/v1/orgs/org_acme", headers={**auth, "Host": f"{host}:{port}"})
        assert own.status_code == 200, (host, own.text)
    assert rebound.status_code == 400
    assert rebound.json()["error"]["message"].startswith("the Host header names another machine")
    port = root.rsplit(":", 1)[1]
    for other in ("localhost:1@evil.test", "127.0.0.2", f"127.0.0.2:{port}", "localhost.evil.test",
                  f"localhost:{port}/x", "", "[::2]"):  # fmt: skip
        refused = httpx.get(f"{root}/v1/orgs/org_acme", headers={**auth, "Host": other})
        assert refused.status_code == 400, other


def test_a_connection_that_sends_its_headers_too_slowly_is_closed(served: Served) -> None:
    root = served.root
    host, port = root.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as slow:
        slow.sendall(b"GET /v1/orgs/org_acme HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert slow.recv(1024) == b""  # closed by the server, not answered
        held = time.monotonic() - started
    assert httpx.get(f"{root}/_sandbox/openapi.json").status_code == 200
    assert HEADER_SECONDS <= held < 5, held


@pytest.mark.contract_exempt("sends a body over the size limit, which the service refuses")
def test_a_chunked_body_over_the_limit_gets_the_documented_400(served: Served) -> None:
    """No Content-Length to refuse it by, and more than the socket buffers hold, written
    whole before the answer is read: the answer is the 400 docs/sandbox.md promises."""
    host, port = served.root.removeprefix("http://").split(":")
    chunk = b"x" * 65536
    with socket.create_connection((host, int(port)), timeout=30) as client:
        client.sendall(
            b"PUT /v1/orgs/org_acme/teams HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + SERVE_TOKEN.encode() + b"\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        for _ in range(256):  # 16 MiB: more than the socket buffers hold
            client.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        client.sendall(b"0\r\n\r\n")
        answer = b""
        while b"bytes" not in answer and (part := client.recv(65536)):
            answer += part
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert b"request body is larger than 1000000 bytes" in answer


@pytest.mark.contract_exempt(
    "a body never finished: the connection is closed unanswered", answers=True
)
def test_a_connection_that_sends_its_body_too_slowly_is_closed(served: Served) -> None:
    """Headers in time, then a body a byte at a time: the body has as long as the headers had
    (`HEADER_SECONDS`), then the connection is closed, unanswered."""
    host, port = served.root.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as slow:
        slow.sendall(
            b"PUT /v1/orgs/org_acme/teams HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + SERVE_TOKEN.encode() + b"\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        slow.settimeout(0.1)
        closed = False
        while not closed and time.monotonic() - started < 8:
            try:
                closed = slow.recv(1024) == b""
            except TimeoutError:
                try:
                    slow.sendall(b" ")  # a byte now and then: never the whole body
                except OSError:
                    closed = True
            except ConnectionResetError:  # closed while a byte was on its way: also closed
                closed = True
        held = time.monotonic() - started
    assert closed
    assert HEADER_SECONDS <= held < 5, held
    assert httpx.get(f"{served.root}/_sandbox/openapi.json").status_code == 200
