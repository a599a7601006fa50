"""The network transport under docform's client: httpcore's connection pool behind httpx's
public transport interface, with cheaper idle checks.

Before it sends a request and after it reads an answer, httpcore's connection pool asks every
idle connection whether its socket has become readable (the server closed it). Through anyio,
each question builds all of the stream's attributes to find the socket, for every idle
connection and every request. Here each connection finds its socket once and asks the
operating system directly, as httpcore does with it (BENCHMARKS.md, "Process knobs", has what
this saves).

Answers tend to come in together, and the requests that follow them go out together: the pool
then asks each idle connection again for every request it places, about eight system calls a
request. Each one hands the interpreter lock over, and while loading or matching runs in a
worker thread (`docform.runtime.beside_the_loop`) the event loop waits for it back every time. So a
connection found not readable is not asked again within `RECHECK_S`: a server closing it in
that moment is caught no later than before, since the question and the request that follows
it are that far apart anyway.

The pool is httpcore's, given its network backend through httpcore's public constructor, and
handed to httpx as an `httpx.AsyncBaseTransport` (`SocketTransport`), as httpx's own transport
does: no private attribute of either library is touched. Through a proxy, httpx's own transport
is used as it is. The readability question is asked through `selectors` (epoll, kqueue, or
select on Windows), so it works wherever Python does.
"""

from __future__ import annotations

import selectors
import socket
import ssl
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

RECHECK_S = 0.001
"""How long a connection found not readable is taken to stay so."""


class _SocketStream(httpcore.AsyncNetworkStream):
    """An anyio stream of httpcore whose readability is read from its socket, found once."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = inner.get_extra_info("socket")
        # The pool asks each idle connection on every request and answer: one selector per
        # socket, registered once, makes each question a single system call.
        self._selector = selectors.DefaultSelector()
        self._quiet_at = float("-inf")
        if self._socket is not None:
            self._selector.register(self._socket, selectors.EVENT_READ)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        self._selector.close()
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return _SocketStream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return self._readable()
        return self._inner.get_extra_info(info)

    def _readable(self) -> bool:
        """Whether the socket has something to read (or is gone): httpcore's test of an idle
        connection."""
        if self._socket is None or self._socket.fileno() < 0:
            return True
        now = time.monotonic()
        if now - self._quiet_at < RECHECK_S:
            return False
        if self._selector.select(0):
            return True
        self._quiet_at = now
        return False


class _SocketBackend(httpcore.AsyncNetworkBackend):
    """httpcore's anyio backend, handing out `_SocketStream` connections."""

    def __init__(self) -> None:
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _SocketStream(stream)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._inner.connect_unix_socket(path, timeout, socket_options)
        return _SocketStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


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


class _AnswerStream(httpx.AsyncByteStream):
    def __init__(self, inner: AsyncIterator[bytes], close: Any) -> None:
        self._inner, self._close = inner, close

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._inner:
                yield part

    async def aclose(self) -> None:
        await self._close()


class SocketTransport(httpx.AsyncBaseTransport):
    """httpcore's connection pool (HTTP/1.1, httpx's TLS and pool limits), its connections made
    by `_SocketBackend`, as an httpx transport."""

    def __init__(self) -> None:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_SocketBackend(),
        )

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
            answer = await self._pool.handle_async_request(core_request)
        stream: Any = answer.stream
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_AnswerStream(stream, stream.aclose),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


def network_transport(proxy: str | None = None) -> httpx.AsyncBaseTransport:
    """`SocketTransport`; through a proxy, httpx's own transport (only slower)."""
    if proxy is not None:
        return httpx.AsyncHTTPTransport(proxy=proxy)
    return SocketTransport()
