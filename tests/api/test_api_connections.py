"""docform's network transport (`docform.api.connections`): httpx's, whose idle connections are
checked through their socket, found once. It keeps httpcore's behaviour: a connection the
server closed while it was idle is dropped before the next request, which then goes out on a
new connection with no failed attempt; connections the server keeps open are reused."""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest

from docform.api import ApiClient, connections
from docform.api.connections import RECHECK_S, SocketTransport, network_transport

pytestmark = pytest.mark.anyio
TOKEN = "connections-test-token"
ANSWER = b'{"ok": true}'


class OneShotServer:
    """Answers each request with ``ANSWER`` over HTTP/1.1; closes each connection after its
    first answer when ``close_after_answer``, keeps it open otherwise. Counts connections."""

    def __init__(self, close_after_answer: bool) -> None:
        self.close_after_answer = close_after_answer
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            while self._read_request(conn):
                head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                head += f"content-length: {len(ANSWER)}\r\n\r\n"
                conn.sendall(head.encode() + ANSWER)
                if self.close_after_answer:
                    return

    @staticmethod
    def _read_request(conn: socket.socket) -> bool:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return False
            data += chunk
        return True


@contextmanager
def one_shot_server(*, close_after_answer: bool) -> Iterator[OneShotServer]:
    server = OneShotServer(close_after_answer)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.listener.close()


async def test_a_connection_the_server_closed_while_idle_is_replaced_with_no_retry() -> None:
    with one_shot_server(close_after_answer=True) as server:
        async with ApiClient(server.url, TOKEN, max_in_flight=1) as client:
            first = await client.get("/ping")
            await wait_for_close()
            second = await client.get("/ping")
    assert first == second == {"ok": True}
    assert server.connections == 2
    assert (client.stats.requests, client.stats.retries) == (2, 0)


async def test_a_connection_the_server_keeps_open_is_reused() -> None:
    with one_shot_server(close_after_answer=False) as server:
        async with ApiClient(server.url, TOKEN, max_in_flight=1) as client:
            for _ in range(3):
                assert await client.get("/ping") == {"ok": True}
                await wait_for_close()
    assert server.connections == 1
    assert (client.stats.requests, client.stats.retries) == (3, 0)


def test_the_transport_makes_connections_through_the_socket_backend_unless_proxied() -> None:
    assert isinstance(network_transport(), SocketTransport)
    proxied = network_transport(proxy="http://proxy.example:3128")
    assert isinstance(proxied, httpx.AsyncHTTPTransport)


async def test_a_refused_connection_is_httpx_s_connect_error() -> None:
    """httpcore's errors reach the client as httpx's, which its retries know."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
    transport = network_transport()
    with pytest.raises(httpx.ConnectError):
        await transport.handle_async_request(httpx.Request("GET", f"http://127.0.0.1:{port}/"))
    await transport.aclose()


class SocketOnly:
    """The one thing `connections._SocketStream` asks of the stream it wraps: its socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def get_extra_info(self, info: str) -> Any:
        return self.sock if info == "socket" else None


def test_a_connection_found_quiet_is_asked_again_only_after_the_recheck_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool asks each idle connection for every request it places; within `RECHECK_S`
    of a quiet answer the socket is not polled again (each poll hands the interpreter lock
    over), and after it a close the server sent in between is seen."""
    clock = [1000.0]
    monkeypatch.setattr(connections, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    ours, theirs = socket.socketpair()
    with ours:
        stream = connections._SocketStream(SocketOnly(ours))  # type: ignore[arg-type]
        assert not stream.get_extra_info("is_readable")
        theirs.close()  # the server hangs up
        assert select.select([ours], [], [], 5)[0], "the close never reached the socket"
        clock[0] += RECHECK_S / 2
        assert not stream.get_extra_info("is_readable")
        clock[0] += RECHECK_S
        assert stream.get_extra_info("is_readable")
        assert stream.get_extra_info("is_readable")  # and stays so


async def wait_for_close() -> None:
    """Time for the server's close to reach the client's socket (loopback: well under this)."""
    await anyio.sleep(0.05)
