"""The network transport under docform's client: a pool of httpcore's HTTP/1.1 connections,
handed to httpx through its public transport interface.

httpx's own transport uses httpcore's connection pool, which is built for any number of
callers: whenever a request arrives or an answer is closed it walks every connection and
every waiting request, counting the pool again for each idle connection it looks at, and it
may hand one idle connection to several waiting requests at once, all but one of which then
come round again. docform's client keeps few calls in flight (`ApiClient`'s ``max_in_flight``),
so this pool does only what those calls need: a request takes the idle connection to its
origin that was used last (a server closes the longest idle first), asks it once whether the
server closed it or its keep-alive ran out (httpcore's own test, `has_expired`), and gives it
back when its answer is closed. A new connection is opened only when no idle one is left, and
at most ``max_connections`` are open at once; beyond ``max_keepalive_connections`` idle ones,
a connection given back is closed (the limits of `httpx.Limits`, httpx's defaults).

Only httpcore's public classes are used (`httpcore.AsyncHTTPConnection` makes and speaks each
connection, TLS included), and httpcore's errors reach the client as httpx's. Through a proxy,
httpx's own transport is used as it is. BENCHMARKS.md ("Process knobs") has what this saves.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20)
UNLIMITED = 2**31
"""Stands for a limit of `httpx.Limits` given as None."""

_ERRORS: list[tuple[type[Exception], type[httpx.HTTPError]]] = [
    # The most specific first: a ConnectTimeout is a TimeoutException too.
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
]


@contextmanager
def _as_httpx_errors() -> Iterator[None]:
    """httpcore's exceptions raised as httpx's, which the client's retries know."""
    try:
        yield
    except Exception as exc:
        mapped = next((theirs for ours, theirs in _ERRORS if isinstance(exc, ours)), None)
        if mapped is None:
            raise
        raise mapped(str(exc)) from exc


class _Waiters:
    """Requests waiting for a connection, woken one at a time, first come first served, when
    one is given back idle or closed."""

    def __init__(self) -> None:
        self._queue: deque[asyncio.Future[None]] = deque()

    async def wait(self) -> None:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self.wake_one()  # woken just as the request gave up: the next one looks
            turn.cancel()
            raise

    def wake_one(self) -> None:
        while self._queue:
            turn = self._queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return


class _AnswerStream(httpx.AsyncByteStream):
    """An answer's body; closing it gives its connection back to the pool."""

    def __init__(
        self, inner: Any, connection: httpcore.AsyncHTTPConnection, pool: PooledTransport
    ) -> None:
        self._inner, self._connection, self._pool = inner, connection, pool
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._inner:
                yield part

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._inner.aclose()  # httpcore: the connection is idle again, or closed
        finally:
            await self._pool.give_back(self._connection)


class PooledTransport(httpx.AsyncBaseTransport):
    """httpcore's HTTP/1.1 connections (httpx's TLS settings and pool limits), pooled as the
    module doc says, as an httpx transport."""

    def __init__(self, limits: httpx.Limits = LIMITS) -> None:
        self._ssl_context: ssl.SSLContext | None = None
        """httpx's TLS settings, made for the first connection that needs them: a service
        reached over plain HTTP (a served sandbox) needs none."""
        self._keepalive_expiry = limits.keepalive_expiry
        most = limits.max_connections or UNLIMITED
        self._max_idle = min(limits.max_keepalive_connections or most, most)
        self._room = most
        """How many more connections may be opened."""
        self._idle: list[httpcore.AsyncHTTPConnection] = []
        """Idle connections, the one given back last at the end."""
        self._waiters = _Waiters()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors():
            connection, answer = await self._send(core_request)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_AnswerStream(answer.stream, connection, self),
            extensions=answer.extensions,
        )

    async def _send(
        self, request: httpcore.Request
    ) -> tuple[httpcore.AsyncHTTPConnection, httpcore.Response]:
        scheme = request.url.scheme
        if scheme not in (b"http", b"https"):
            raise httpcore.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{scheme.decode()}://'."
            )
        origin = request.url.origin
        while True:
            connection = await self._connection_to(origin, request)
            try:
                return connection, await connection.handle_async_request(request)
            except httpcore.ConnectionNotAvailable:
                # Closed since it was taken (by the server, or as its answer failed).
                await self.give_back(connection)
            except BaseException:
                await self.give_back(connection)
                raise

    async def _connection_to(
        self, origin: httpcore.Origin, request: httpcore.Request
    ) -> httpcore.AsyncHTTPConnection:
        """An idle connection to ``origin`` still open, else a new one within the limit, else
        the first of those once one is given back (within the pool timeout)."""
        timeouts = request.extensions.get("timeout", {})
        try:
            async with asyncio.timeout(timeouts.get("pool")):
                while True:
                    connection = await self._idle_or_new(origin)
                    if connection is not None:
                        return connection
                    await self._waiters.wait()
        except TimeoutError:
            raise httpcore.PoolTimeout("no connection was free in time") from None

    async def _idle_or_new(self, origin: httpcore.Origin) -> httpcore.AsyncHTTPConnection | None:
        while (connection := self._take_idle(origin)) is not None:
            if connection.is_available() and not connection.has_expired():
                return connection
            await self._close(connection)
        if self._room == 0 and self._idle:
            await self._close(self._idle.pop(0))  # the longest idle, to another origin
        if self._room == 0:
            return None
        self._room -= 1
        tls = self._tls() if origin.scheme == b"https" else None
        return httpcore.AsyncHTTPConnection(
            origin=origin, ssl_context=tls, keepalive_expiry=self._keepalive_expiry
        )

    def _tls(self) -> ssl.SSLContext:
        if self._ssl_context is None:
            self._ssl_context = httpx.create_ssl_context()
        return self._ssl_context

    def _take_idle(self, origin: httpcore.Origin) -> httpcore.AsyncHTTPConnection | None:
        for index in range(len(self._idle) - 1, -1, -1):
            if self._idle[index].can_handle_request(origin):
                return self._idle.pop(index)
        return None

    async def give_back(self, connection: httpcore.AsyncHTTPConnection) -> None:
        """``connection`` back to the idle ones once its answer is done, else closed."""
        idle = connection.is_idle() and not connection.is_closed()
        if idle and len(self._idle) < self._max_idle:
            self._idle.append(connection)
            self._waiters.wake_one()
            return
        await self._close(connection)

    async def _close(self, connection: httpcore.AsyncHTTPConnection) -> None:
        try:
            if not connection.is_closed():
                await connection.aclose()
        finally:
            self._room += 1
            self._waiters.wake_one()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await self._close(connection)


def network_transport(proxy: str | None = None) -> httpx.AsyncBaseTransport:
    """`PooledTransport`; through a proxy, httpx's own transport."""
    if proxy is not None:
        return httpx.AsyncHTTPTransport(proxy=proxy)
    return PooledTransport()
