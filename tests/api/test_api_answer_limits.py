"""Answers docform refuses to wait for or to hold (api/limits.py), and answers nested too deep
to read (api/reader.py): a small TCP server on a loopback port misbehaves the way a network or a
hostile server can, and `docform plan` against it stops with one error naming the call, at once,
without a traceback and without retrying."""

from __future__ import annotations

import contextlib
import re
import socketserver
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from canary import CANARY_TOKEN
from docform.cli import cli
from loopback import serving
from planning import write_manifests

Behaviour = Callable[[socketserver.StreamRequestHandler], None]
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
CALL = "GET /orgs/org_acme failed"
EMPTY = b'{"count": 0, "items": []}'


@contextmanager
def misbehaving_server(behaviour: Behaviour) -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 answering ``GET /v1/orgs/org_acme`` with ``behaviour`` and every
    list with an empty one; yields its root URL and the request lines it received."""
    received: list[str] = []

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            received.append(self.rfile.readline().decode().strip())
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            if not received[-1].startswith("GET /v1/orgs/org_acme "):
                self.wfile.write(HEAD + b"Content-Length: %d\r\n\r\n%s" % (len(EMPTY), EMPTY))
                return
            # docform hangs up on a refused answer, as it should.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                behaviour(self)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with serving(server) as root:
        yield root, received


def plan_against(root: str, tmp_path: Path, **env: str) -> tuple[Result, float]:
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme}\n")
    variables = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": CANARY_TOKEN, **env}
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["plan", str(manifests)], env=variables)
    return result, time.monotonic() - started


def declares_two_gigabytes(handler: socketserver.StreamRequestHandler) -> None:
    handler.wfile.write(HEAD + b"Content-Length: 2147483648\r\n\r\n")
    while True:
        handler.wfile.write(b" " * 65536)


def streams_without_end(handler: socketserver.StreamRequestHandler) -> None:
    endless_chunks(handler, b"")


def endless_chunks(handler: socketserver.StreamRequestHandler, headers: bytes) -> None:
    handler.wfile.write(HEAD + headers + b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b" " * 65536
    while True:
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))


def trickles(handler: socketserver.StreamRequestHandler) -> None:
    body = b'{"id": "org_acme", "title": "Acme"}'
    handler.wfile.write(HEAD + b"Content-Length: %d\r\n\r\n" % len(body))
    for byte in body:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.1)


def nests_100000_levels(handler: socketserver.StreamRequestHandler) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    handler.wfile.write(HEAD + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_an_answer_declaring_2_gb_is_refused_before_it_is_read(tmp_path):
    with misbehaving_server(declares_two_gigabytes) as (root, received):
        result, elapsed = plan_against(root, tmp_path)
    assert result.exit_code == 1
    assert (
        f"{CALL}: the answer is larger than 64 MiB (declares 2147483648 bytes), the most "
        "docform reads (DOCFORM_API_MAX_ANSWER_MB raises it)." in result.stderr
    )
    assert "Traceback" not in result.output
    assert received.count("GET /v1/orgs/org_acme HTTP/1.1") == 1
    assert elapsed < 10


def endless_chunks_declaring_ten_bytes(handler: socketserver.StreamRequestHandler) -> None:
    """Chunks framing the body whatever length the answer declares: a client reading the
    declared length alone would read on to the deadline."""
    endless_chunks(handler, b"Content-Length: 10\r\n")


@pytest.mark.parametrize("behaviour", [streams_without_end, endless_chunks_declaring_ten_bytes])
def test_an_answer_growing_past_the_cap_is_refused_once_it_does(tmp_path, behaviour):
    with misbehaving_server(behaviour) as (root, received):
        result, elapsed = plan_against(root, tmp_path, DOCFORM_API_MAX_ANSWER_MB="1")
    assert result.exit_code == 1
    assert (
        f"{CALL}: the answer is larger than 1 MiB (grew past that), the most docform "
        "reads (DOCFORM_API_MAX_ANSWER_MB raises it)." in result.stderr
    )
    assert received.count("GET /v1/orgs/org_acme HTTP/1.1") == 1
    assert elapsed < 10


def test_a_trickling_answer_ends_at_the_deadline_though_each_read_is_quick(tmp_path):
    with misbehaving_server(trickles) as (root, received):
        result, elapsed = plan_against(
            root, tmp_path, DOCFORM_API_TIMEOUT="5", DOCFORM_API_DEADLINE="0.5"
        )
    assert result.exit_code == 1
    assert (
        f"{CALL}: the answer was not complete within 0.5 s (the deadline of one attempt, "
        "DOCFORM_API_DEADLINE); the service or the network is too slow, or the connection "
        "trickles." in result.stderr
    )
    assert received.count("GET /v1/orgs/org_acme HTTP/1.1") == 1
    assert 0.5 <= elapsed < 5


def test_a_trickling_answer_ends_at_the_commands_deadline_before_the_attempts(tmp_path):
    """DOCFORM_DEADLINE below the attempt's deadline: no answer is waited for past it."""
    with misbehaving_server(trickles) as (root, received):
        result, elapsed = plan_against(
            root,
            tmp_path,
            DOCFORM_API_TIMEOUT="5",
            DOCFORM_API_DEADLINE="60",
            DOCFORM_DEADLINE="0.5",
        )
    assert result.exit_code == 1
    # Reads run at once, so whichever the deadline ends first is the one named.
    assert re.search(
        r"GET /orgs/org_acme\S* failed: the answer was not complete when the command reached "
        r"its deadline of 0\.5 s \(DOCFORM_DEADLINE\); the service or the network is too slow, "
        r"or the connection trickles\.",
        result.stderr,
    ), result.stderr
    assert received.count("GET /v1/orgs/org_acme HTTP/1.1") == 1
    assert elapsed < 5


def test_an_answer_nested_100000_levels_deep_is_malformed_not_a_traceback(tmp_path):
    with misbehaving_server(nests_100000_levels) as (root, _):
        result, _ = plan_against(root, tmp_path)
    assert result.exit_code == 1
    assert (
        f"{CALL}: the answer (200, application/json) nests deeper than 64 levels." in result.stderr
    )
    assert "Traceback" not in result.output


def test_a_bad_limit_setting_is_an_error_naming_the_variable(tmp_path):
    result, _ = plan_against("https://api.example.test", tmp_path, DOCFORM_API_DEADLINE="soon")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: DOCFORM_API_DEADLINE must be a positive number of seconds (like 120), not 'soon'\n"
    )
