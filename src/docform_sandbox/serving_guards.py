"""What a served sandbox refuses before the app sees a request: a ``Host`` that is not this
machine (when it listens on loopback), and a client that takes too long to send its headers,
or then its body.

DNS rebinding: a web page at ``evil.test`` whose name then resolves to 127.0.0.1 can make the
browser call the sandbox, with the example token the docs print; the browser still sends
``Host: evil.test``, which a loopback server never needs to accept. Slowloris: uvicorn bounds
how long an idle kept-alive connection stays open, but not how long one may take to send the
headers of a request, nor its body, so connections sending a byte now and then were held for
minutes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
"""Seconds a connection has to send a request's headers (a new one, or the next one on a
kept-alive connection), and then as many to send its whole body;
``DOCFORM_SANDBOX_HEADER_SECONDS`` changes it."""


def loopback_hosts_only(app: ASGIApp) -> ASGIApp:
    """``app``, answering 400 to a request whose ``Host`` names anything but this machine."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _host_is_loopback(scope):
            await app(scope, receive, send)
            return
        message = (
            "the Host header names another machine: this sandbox listens on loopback and "
            "answers only requests addressed to 127.0.0.1, localhost or [::1]"
        )
        body = json.dumps({"error": {"code": 400, "message": message}}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return guarded


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
"""The names a loopback sandbox answers to, exactly (not any 127.x: a Host of 127.0.0.2 is no
address a client of this server was given)."""
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?")


def _host_is_loopback(scope: Scope) -> bool:
    """Whether the ``Host`` header is one of `LOOPBACK_NAMES`, with a port or none, and nothing
    else (``localhost:1@evil.test`` names another host)."""
    host = next((v for k, v in scope["headers"] if k == b"host"), b"").decode("latin-1")
    found = _HOST.fullmatch(host)
    return found is not None and found.group(1).lower() in LOOPBACK_NAMES


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine: ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that has not sent a request's headers
    within `header_seconds` of opening or of its last answer, or its whole body within as many
    seconds of its headers."""

    header_seconds = HEADER_SECONDS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._timed: object = None
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return
        if not cycle.more_body:
            self._disarm()  # the whole request is in
        elif self._timed is not cycle:
            self._arm()  # the headers are in: the body has as long again
            self._timed = cycle

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        cycle = self.cycle
        if cycle is None or cycle.response_complete or cycle.more_body:
            self.transport.close()
