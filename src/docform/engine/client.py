"""What the engine calls on the client of the documentation service.

`docform.api.client.ApiClient` is one; the engine names only this protocol, so it imports
nothing from the layer that talks HTTP, and a test may hand it any client that answers these.
Answers are JSON as the service sent it: the kinds know their shapes, the engine does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class ServiceClient(Protocol):
    async def get(self, path: str, *, params: Mapping[str, Any] | None = None) -> Any:
        """The answer to a GET of ``path``; raises `docform.errors.ServiceCallError` on an
        error answer (404 included)."""
        ...

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list[dict[str, Any]]:
        """Every item of the list at ``path``, all pages read; a lower ``priority`` goes
        first among the calls waiting for a slot."""
        ...

    async def answered(
        self, method: str, path: str, *, json: Any = None, retry: bool | None = None
    ) -> tuple[int, Any]:
        """One call of a change and the HTTP status of its answer; ``retry`` as
        `docform.engine.plan.Call.retry` says."""
        ...

    async def pause(self, seconds: float) -> None:
        """Waits ``seconds`` before the next look at the service, on the client's own clock
        (the one its retries wait on): a client whose waits are not spent, a test's, spends
        none on this either."""
        ...
