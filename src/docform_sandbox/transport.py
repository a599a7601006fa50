"""The sandbox as an httpx transport: `docform.workflow.connect` opens one for ``sandbox:FILE``
URLs, so the API client talks to the sandbox in-process exactly as it talks HTTP to a service.

A request an endpoint of the sandbox takes is handed to that endpoint at once
(`docform_sandbox.app.Sandbox.handle`: the same work as through the web app, its token, faults,
body and answer), found by its method and path in an index, instead of through the web app's
middleware and its routes tried one by one; its exchange goes to the exchange log as the web
app's would (`docform_sandbox.exchange_log`). The rest (a path no endpoint serves, a method a
path does not take, the control routes ``/_sandbox/*``) goes through the web app.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request

from docform_sandbox.app import Sandbox, SandboxConfig, web_app
from docform_sandbox.exchange_log import exchange_log, log_exchange
from docform_sandbox.faults import HANGUP, ConnectionHangup, Hangup
from docform_sandbox.http import Endpoint
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.store import Store

API_PREFIX = "/v1"


class SandboxTransport(httpx.AsyncBaseTransport):
    """The sandbox app over the SQLite file at ``path``, called in-process (no socket).

    It behaves as a socket would where the sandbox's faults need it: a connection the sandbox
    closes raises `httpx.RemoteProtocolError`, and an answer later than the request's read
    timeout raises `httpx.ReadTimeout` (on the sandbox's `Waits`: real time, unless a test
    handed it others). Closing the transport closes the store, unless the store was handed
    over (``store``: a twin's, in memory, which outlives each client that opens it).
    """

    def __init__(
        self, path: str | Path, config: SandboxConfig | None = None, *, store: Store | None = None
    ) -> None:
        config = config or SandboxConfig()
        self._owns_store = store is None
        self.store = store or Store(path)
        self.sandbox = Sandbox(self.store, config)
        self.waits = config.waits
        self._log = exchange_log()

    @functools.cached_property
    def app(self) -> Starlette:
        """The sandbox's web app, built for the first request no endpoint takes: most clients
        send none."""
        return web_app(self.sandbox, self._log)

    @functools.cached_property
    def _through_web_app(self) -> httpx.ASGITransport:
        return httpx.ASGITransport(app=self.app)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions.get("timeout", {}).get("read")
        try:
            return await self.waits.within(self._answer(request), timeout)
        except ConnectionHangup as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from None
        except TimeoutError:
            raise httpx.ReadTimeout(
                f"no answer within the read timeout of {timeout} s", request=request
            ) from None

    async def _answer(self, request: httpx.Request) -> httpx.Response:
        found = find_endpoint(request.method, request.url.path)
        if found is None:
            return await self._through_web_app.handle_async_request(request)
        ep, params = found
        scope = _scope(request, params)
        body = _RequestBody(request)
        answer = await self.sandbox.handle(ep, Request(scope, body.receive))
        if isinstance(answer, Hangup):
            raise ConnectionHangup(HANGUP)
        content = bytes(answer.body)
        if self._log is not None:
            log_exchange(self._log, scope, body.whole(), answer.status_code, content)
        return httpx.Response(answer.status_code, headers=answer.raw_headers, content=content)

    async def aclose(self) -> None:
        if self._owns_store:
            self.store.close()


@functools.cache
def _index() -> dict[tuple[str, int], list[tuple[str, Endpoint]]]:
    """The endpoints by method and number of path segments, in the web app's order (the first
    whose path matches is the one its routing takes), each with its path as a pattern."""
    index: dict[tuple[str, int], list[tuple[str, Endpoint]]] = {}
    for ep in ENDPOINTS:
        path = API_PREFIX + ep.path
        parts = re.split(r"\{(\w+)\}", path)
        pattern = "".join(
            re.escape(part) if n % 2 == 0 else f"(?P<{part}>[^/]+)" for n, part in enumerate(parts)
        )
        index.setdefault((ep.method, path.count("/")), []).append((f"^{pattern}$", ep))
    return index


@functools.cache
def _compiled(method: str, depth: int) -> list[tuple[re.Pattern[str], Endpoint]]:
    """The endpoints of one method and path depth, their patterns compiled the first time a
    request asks for them: a client sends few of the combinations."""
    return [(re.compile(pattern), ep) for pattern, ep in _index().get((method, depth), ())]


def find_endpoint(method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
    """The endpoint the web app routes ``method path`` to, with the path's parameters."""
    for pattern, ep in _compiled(method, path.count("/")):
        found = pattern.match(path)
        if found:
            return ep, found.groupdict()
    return None


class _RequestBody:
    """The request's body handed to the endpoint as a web server hands it over (chunk by chunk,
    then the end), noting what the endpoint read."""

    def __init__(self, request: httpx.Request) -> None:
        self._chunks = request.stream.__aiter__()  # type: ignore[union-attr]
        self._read: list[bytes] = []
        self._ended = False

    async def receive(self) -> dict[str, Any]:
        if self._ended:
            return {"type": "http.disconnect"}
        try:
            chunk = await self._chunks.__anext__()
        except StopAsyncIteration:
            self._ended = True
            return {"type": "http.request", "body": b"", "more_body": False}
        self._read.append(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    def whole(self) -> bytes | None:
        """The body, when the endpoint read all of it; None when it did not (a fault, the rate
        limit, a body over the size limit)."""
        return b"".join(self._read) if self._ended else None


def _scope(request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
    """The request as the web app would have handed it to the endpoint."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "headers": [(name.lower(), value) for name, value in request.headers.raw],
        "scheme": request.url.scheme,
        "path": request.url.path,
        "raw_path": request.url.raw_path.split(b"?")[0],
        "query_string": request.url.query,
        "server": (request.url.host, request.url.port),
        "client": ("127.0.0.1", 123),
        "root_path": "",
        "path_params": params,
    }
