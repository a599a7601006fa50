"""docform's network transport (`docform.api.connections`): httpcore's HTTP/1.1 connections in
a pool of docform's own. It keeps what httpx's pool does for docform's client: a connection the
server closed while it was idle is dropped before the next request, which then goes out on a
new connection with no failed attempt; connections the server keeps open are reused; at most
``max_connections`` are open, and a request beyond them waits for one (or fails with httpx's
PoolTimeout); beyond ``max_keepalive_connections`` idle ones, a connection given back is
closed; a connection whose answer was not read to its end, or whose request was cancelled, is
never reused and never keeps its place in the limit."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import httpx
import pytest

from docform.api import ApiClient
from docform.api.connections import PooledTransport, network_transport

pytestmark = pytest.mark.anyio
TOKEN = "connections-test-token"
ANSWER = b'{"ok": true}'


class CountingServer:
    """Answers each request with ``ANSWER`` (or ``body``) over HTTP/1.1; closes each connection
    after its first answer when ``close_after_answer``, keeps it open otherwise. Holds every
    answer while ``held`` is clear. Counts connections, and those open now."""

    def __init__(self, close_after_answer: bool, body: bytes = ANSWER) -> None:
        self.close_after_answer = close_after_answer
        self.body = body
        self.connections = 0
        self.open = 0
        self.most_open = 0
        self.held = threading.Event()
        self.held.set()
        self._lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self.open += 1
                self.most_open = max(self.most_open, self.open)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            with conn:
                while self._read_request(conn):
                    self.held.wait(10)
                    head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    head += f"content-length: {len(self.body)}\r\n\r\n"
                    conn.sendall(head.encode() + self.body)
                    if self.close_after_answer:
                        return
        except OSError:
            pass  # the client went away
        finally:
            with self._lock:
                self.open -= 1

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
def counting_server(*, close_after_answer: bool, body: bytes = ANSWER) -> Iterator[CountingServer]:
    server = CountingServer(close_after_answer, body)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.held.set()
        server.listener.close()


async def test_a_connection_the_server_closed_while_idle_is_replaced_with_no_retry() -> None:
    with counting_server(close_after_answer=True) as server:
        async with ApiClient(server.url, TOKEN, max_in_flight=1) as client:
            first = await client.get("/ping")
            await wait_for_close()
            second = await client.get("/ping")
    assert first == second == {"ok": True}
    assert server.connections == 2
    assert (client.stats.requests, client.stats.retries) == (2, 0)


async def test_a_connection_the_server_keeps_open_is_reused() -> None:
    with counting_server(close_after_answer=False) as server:
        async with ApiClient(server.url, TOKEN, max_in_flight=1) as client:
            for _ in range(3):
                assert await client.get("/ping") == {"ok": True}
                await wait_for_close()
    assert server.connections == 1
    assert (client.stats.requests, client.stats.retries) == (3, 0)


@pytest.mark.parametrize("in_flight", [1, 4, 16])
async def test_concurrent_calls_open_no_more_connections_than_they_are(in_flight: int) -> None:
    with counting_server(close_after_answer=False) as server:
        async with ApiClient(server.url, TOKEN, max_in_flight=in_flight) as client:
            answers = await asyncio.gather(*(client.get(f"/ping/{n}") for n in range(60)))
    assert answers == [{"ok": True}] * 60
    assert server.connections <= in_flight
    assert client.stats.retries == 0


async def test_at_most_max_connections_are_open_and_the_others_wait() -> None:
    limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
    with counting_server(close_after_answer=False) as server:
        async with httpx.AsyncClient(transport=PooledTransport(limits)) as http:
            server.held.clear()
            calls = [asyncio.ensure_future(http.get(f"{server.url}/{n}")) for n in range(5)]
            await wait_until(lambda: server.connections == 2)
            await wait_for_close()  # time for a third connection, were one opened
            assert server.connections == 2
            assert not any(call.done() for call in calls)
            server.held.set()
            answers = await asyncio.gather(*calls)
    assert [answer.json() for answer in answers] == [{"ok": True}] * 5
    assert server.connections == 2


async def test_a_request_that_finds_no_connection_in_time_is_a_pool_timeout() -> None:
    limits = httpx.Limits(max_connections=1)
    with counting_server(close_after_answer=False) as server:
        async with httpx.AsyncClient(transport=PooledTransport(limits)) as http:
            server.held.clear()
            first = asyncio.ensure_future(http.get(f"{server.url}/first"))
            await wait_until(lambda: server.connections == 1)
            with pytest.raises(httpx.PoolTimeout):
                await http.get(f"{server.url}/second", timeout=httpx.Timeout(5, pool=0.05))
            server.held.set()
            assert (await first).json() == {"ok": True}
            # The request that gave up took no place: the next one is answered.
            assert (await http.get(f"{server.url}/third")).json() == {"ok": True}


async def test_idle_connections_beyond_the_keepalive_limit_are_closed() -> None:
    limits = httpx.Limits(max_connections=10, max_keepalive_connections=2)
    with counting_server(close_after_answer=False) as server:
        async with httpx.AsyncClient(transport=PooledTransport(limits)) as http:
            server.held.clear()
            calls = [asyncio.ensure_future(http.get(f"{server.url}/{n}")) for n in range(5)]
            await wait_until(lambda: server.connections == 5)
            server.held.set()
            await asyncio.gather(*calls)
            await wait_until(lambda: server.open == 2)
            for _ in range(3):  # the two kept are reused
                assert (await http.get(f"{server.url}/again")).json() == {"ok": True}
        await wait_until(lambda: server.open == 0)  # and closed with the transport
    assert server.connections == 5


async def test_a_connection_whose_answer_was_not_read_to_its_end_is_not_reused() -> None:
    with counting_server(close_after_answer=False, body=b"[" + b"1," * 50_000 + b"1]") as server:
        async with httpx.AsyncClient(transport=PooledTransport()) as http:
            async with http.stream("GET", f"{server.url}/big") as answer:
                async for _ in answer.aiter_raw():
                    break  # the rest is never read
            assert (await http.get(f"{server.url}/small")).status_code == 200
    assert server.connections == 2


async def test_a_cancelled_request_gives_its_place_back() -> None:
    limits = httpx.Limits(max_connections=1)
    with counting_server(close_after_answer=False) as server:
        async with httpx.AsyncClient(transport=PooledTransport(limits)) as http:
            server.held.clear()
            waiting = asyncio.ensure_future(http.get(f"{server.url}/cancelled"))
            await wait_until(lambda: server.connections == 1)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            server.held.set()
            answer = await http.get(f"{server.url}/after", timeout=httpx.Timeout(5, pool=2))
    assert answer.json() == {"ok": True}
    assert server.connections == 2  # the cancelled one's connection was not reused


def test_the_transport_is_docform_s_pool_unless_proxied() -> None:
    assert isinstance(network_transport(), PooledTransport)
    proxied = network_transport(proxy="http://proxy.example:3128")
    assert isinstance(proxied, httpx.AsyncHTTPTransport)


async def test_a_refused_connection_is_httpx_s_connect_error() -> None:
    """httpcore's errors reach the client as httpx's, which its retries know; the failed
    connection keeps no place in the limit."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
    transport = PooledTransport(httpx.Limits(max_connections=1))
    for _ in range(2):
        request = httpx.Request("GET", f"http://127.0.0.1:{port}/", extensions={
            "timeout": {"connect": 5, "read": 5, "write": 5, "pool": 1}
        })  # fmt: skip
        with pytest.raises(httpx.ConnectError):
            await transport.handle_async_request(request)
    await transport.aclose()


async def test_an_unsupported_scheme_is_refused_before_connecting() -> None:
    transport = PooledTransport()
    with pytest.raises(httpx.UnsupportedProtocol):
        await transport.handle_async_request(httpx.Request("GET", "ftp://127.0.0.1/"))


async def wait_for_close() -> None:
    """Time for the server's close to reach the client's socket (loopback: well under this)."""
    await anyio.sleep(0.05)


async def wait_until(condition: object) -> None:
    """Until ``condition()`` holds (what the server's threads see), within a few seconds."""
    assert callable(condition)
    with anyio.fail_after(5):
        while not condition():
            await anyio.sleep(0.005)
