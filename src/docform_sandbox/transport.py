"""The sandbox as an httpx transport: `docform.workflow.connect` opens one for ``sandbox:FILE``
URLs, so the API client talks to the sandbox in-process exactly as it talks HTTP to a service."""

from __future__ import annotations

from pathlib import Path

import httpx

from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.faults import ConnectionHangup
from docform_sandbox.store import Store


class SandboxTransport(httpx.ASGITransport):
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
        self.app = create_app(self.store, config)
        self.waits = config.waits
        super().__init__(app=self.app)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = request.extensions.get("timeout", {}).get("read")
        try:
            return await self.waits.within(super().handle_async_request(request), timeout)
        except ConnectionHangup as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from None
        except TimeoutError:
            raise httpx.ReadTimeout(
                f"no answer within the read timeout of {timeout} s", request=request
            ) from None

    async def aclose(self) -> None:
        if self._owns_store:
            self.store.close()
