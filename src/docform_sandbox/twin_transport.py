"""A twin's transport: each request the sandbox has an endpoint for is handed to that endpoint
at once (`docform_sandbox.app.Sandbox.handle`, the same work every request gets: its token, its
body, its answer), found by its method and path in an index, instead of through the web app's
middleware and its routes tried one by one; a request no endpoint takes (a 404, a 405) goes
through the web app, as does every request while the exchange log is on (the test suite's
contract check reads it there, `docform_sandbox.exchange_log`)."""

from __future__ import annotations

import functools
import re
from typing import Any, cast

import httpx
from starlette.applications import Starlette
from starlette.requests import Request

from docform_sandbox.app import Sandbox, SandboxConfig
from docform_sandbox.exchange_log import exchange_log
from docform_sandbox.http import Endpoint
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport

API_PREFIX = "/v1"


@functools.cache
def _index() -> dict[tuple[str, int], list[tuple[re.Pattern[str], Endpoint]]]:
    """The endpoints by method and number of path segments, in the web app's order (the first
    whose path matches is the one its routing takes)."""
    index: dict[tuple[str, int], list[tuple[re.Pattern[str], Endpoint]]] = {}
    for ep in ENDPOINTS:
        path = API_PREFIX + ep.path
        parts = re.split(r"\{(\w+)\}", path)
        pattern = "".join(
            re.escape(part) if n % 2 == 0 else f"(?P<{part}>[^/]+)" for n, part in enumerate(parts)
        )
        key = (ep.method, path.count("/"))
        index.setdefault(key, []).append((re.compile(f"^{pattern}$"), ep))
    return index


def find_endpoint(method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
    """The endpoint the web app routes ``method path`` to, with the path's parameters."""
    for pattern, ep in _index().get((method, path.count("/")), ()):
        found = pattern.match(path)
        if found:
            return ep, found.groupdict()
    return None


class TwinTransport(httpx.AsyncBaseTransport):
    """The twin's sandbox over ``store``, called in-process, its endpoints found by index."""

    def __init__(self, store: Store, config: SandboxConfig) -> None:
        self._app = SandboxTransport(":memory:", config, store=store)
        self._sandbox: Sandbox = cast(Starlette, self._app.app).state.sandbox
        self._direct = exchange_log() is None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        found = find_endpoint(request.method, request.url.path) if self._direct else None
        if found is None:
            return await self._app.handle_async_request(request)
        ep, params = found
        body = await request.aread()

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        answer = await self._sandbox.handle(ep, Request(_scope(request, params), receive))
        return httpx.Response(
            answer.status_code, headers=answer.raw_headers, content=bytes(answer.body)
        )

    async def aclose(self) -> None:
        await self._app.aclose()


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
