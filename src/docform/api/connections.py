"""The network transport under docform's client: httpx's own, with cheaper idle checks.

Before it sends a request and after it reads an answer, httpcore's connection pool asks every
idle connection whether its socket has become readable (the server closed it). Through anyio,
each question builds all of the stream's attributes to find the socket: at 16 requests in
flight and 1,000 requests a plan, that was a fifth of the client's CPU. Here each connection
finds its socket once and asks the operating system directly, as httpcore does with it.

Answers tend to come in together, and the requests that follow them go out together: the pool
then asks each idle connection again for every request it places, about eight system calls a
request. Each one hands the interpreter lock over, and while loading or matching runs in a
worker thread (`docform.worker_threads`) the event loop waits for it back every time. So a
connection found not readable is not asked again within `RECHECK_S`: a server closing it in
that moment is caught no later than before, since the question and the request that follows
it are that far apart anyway.
"""

from __future__ import annotations

import select
import socket
import ssl
import time
from collections.abc import Iterable
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
        # The pool asks each idle connection on every request and answer: one poll object
        # per socket, registered once, makes each question a single system call.
        self._poll = select.poll()
        self._quiet_at = float("-inf")
        if self._socket is not None:
            self._poll.register(self._socket, select.POLLIN)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
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
        if self._poll.poll(0):
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


def network_transport(proxy: str | None = None) -> httpx.AsyncHTTPTransport:
    """httpx's transport (HTTP/1.1, its pool and TLS settings), its connections made by
    `_SocketBackend`. Through a proxy, and where httpx's pool is not httpcore's own (another
    httpx version), httpx's transport is left as it is: only slower."""
    transport = httpx.AsyncHTTPTransport(proxy=proxy)
    pool = getattr(transport, "_pool", None)
    if type(pool) is httpcore.AsyncConnectionPool and hasattr(pool, "_network_backend"):
        pool._network_backend = _SocketBackend()
    return transport


def uses_socket_backend(transport: httpx.AsyncHTTPTransport) -> bool:
    """Whether ``transport`` makes its connections through `_SocketBackend`."""
    pool = getattr(transport, "_pool", None)
    return isinstance(getattr(pool, "_network_backend", None), _SocketBackend)
