"""The transports under the client: read-only enforcement and bearer auth.

Read-only is enforced here, below the client, so that no code path (a bug in a kind, a direct
use of ``client.http``) can send anything but a GET through a client opened for planning.
"""

from __future__ import annotations

from collections.abc import Generator

import httpx

from docform.api.errors import ReadOnlyError


class BearerAuth(httpx.Auth):
    """Adds ``Authorization: Bearer ...``; its repr never shows the token."""

    def __init__(self, token: str) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._token}"
        yield request

    def __repr__(self) -> str:
        return "BearerAuth(***)"


def read_only_refusal(method: str, path: str) -> ReadOnlyError:
    return ReadOnlyError(
        f"{method} {path} refused before sending: this API client is read-only "
        "(plan, drift and export never change the organization). This is a bug in docform; "
        "please report it.",
        method=method,
        path=path,
    )


class ReadOnlyTransport(httpx.AsyncBaseTransport):
    """Passes GET requests to ``inner`` and refuses every other method without sending it."""

    def __init__(self, inner: httpx.AsyncBaseTransport, api_prefix: str = "/v1") -> None:
        self.inner = inner
        self.api_prefix = api_prefix

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            path = request.url.path
            if path.startswith(self.api_prefix + "/"):
                path = path[len(self.api_prefix) :]
            raise read_only_refusal(request.method, path)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
