"""The sandbox as an ASGI application: the same app serves HTTP and in-process clients.

Besides the API, ``/_sandbox/*`` controls the sandbox (never counted, limited or faulted):

- ``GET /_sandbox/stats``: requests by method, route and status (a request that got no answer,
  ``drop``, ``lost`` or a ``slow`` one the in-process client gave up on, counts in no status);
  once a fault was injected, ``faults``: their counts by kind; with a rate limit,
  ``rateLimit``: the requests that reached the limiter and those it turned away, per
  one-second window. ``POST /_sandbox/stats/reset`` starts the counts again.
- ``GET|POST /_sandbox/clock``: the sandbox's clock.
- ``GET /_sandbox/openapi.json``: the OpenAPI 3.1 description of the sandbox's ``/v1`` API.
- ``GET|PUT /_sandbox/faults`` with ``{"spec": "500:0.1,...", "seed": 7, "slowSeconds": 2,
  "retryAfter": 1}`` (see `docform_sandbox.faults`; a PUT replaces the faults, restarting their
  counts and random sequence).
- ``POST /_sandbox/ui``: an API call made as a named person clicking in the service's UI,
  recorded as such in the audit log (`docform_sandbox.ui`).

Every control route but ``openapi.json`` needs a sandbox admin token (``SandboxConfig.
admin_tokens``, ``serve --token``) as its bearer token, and answers 401 to anyone else.
"""

from __future__ import annotations

import asyncio
import functools
import math
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from docform_sandbox.audit import before_write, record_write
from docform_sandbox.exchange_log import ExchangeLog, exchange_log
from docform_sandbox.faults import (
    FaultInjector,
    FaultSettings,
    Hangup,
    answer_after,
    answer_instead,
    settings_from_json,
)
from docform_sandbox.http import (
    ApiError,
    Caller,
    Ctx,
    Endpoint,
    as_route,
    parse_timestamp,
    read_json_body,
    render,
    timestamp,
)
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.routes.tokens import require_accepted_kind
from docform_sandbox.store import Store
from docform_sandbox.ui import ui_change
from docform_sandbox.waits import RealTime, Waits


@dataclass
class SandboxConfig:
    """How a sandbox behaves beyond the API contract (all off by default)."""

    admin_tokens: tuple[str, ...] = ()
    latency_ms: float = 0.0
    rate_limit: float | None = None
    faults: FaultSettings = field(default_factory=FaultSettings)
    waits: Waits = field(default_factory=RealTime)
    """How latency and slow answers pass (`docform_sandbox.waits`): in real time but in tests."""
    audit: bool = True
    """Record each write in the audit log; off for a twin (`docform_sandbox.twin`), whose
    audit log nobody reads."""


@dataclass
class Stats:
    """Request counts, for tests and benchmarks (``GET /_sandbox/stats``)."""

    by_route: Counter[str] = field(default_factory=Counter)
    by_method: Counter[str] = field(default_factory=Counter)
    by_status: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, method: str, route: str, status: int | None) -> None:
        """Counts one request; ``status`` is None when no answer was sent."""
        with self.lock:
            self.by_route[f"{method} {route}"] += 1
            self.by_method[method] += 1
            if status is not None:
                self.by_status[str(status)] += 1

    def record_fault(self, kind: str) -> None:
        with self.lock:
            self.faults[kind] += 1

    def as_json(self) -> dict[str, Any]:
        with self.lock:
            counts: dict[str, Any] = {
                "total": sum(self.by_method.values()),
                "byMethod": dict(self.by_method),
                "byRoute": dict(self.by_route),
                "byStatus": dict(self.by_status),
            }
            if self.faults:
                counts["faults"] = dict(self.faults)
            return counts

    def reset(self) -> None:
        with self.lock:
            self.by_route.clear()
            self.by_method.clear()
            self.by_status.clear()
            self.faults.clear()


class RateLimiter:
    """A fixed one-second window shared by all callers, with the service's headers.

    It counts, per window, the requests that reached it and those it turned away, so tests can
    see whether clients keep to the limit once told (``GET /_sandbox/stats``, ``rateLimit``).
    """

    def __init__(self, per_second: float | None) -> None:
        self.limit = int(per_second) if per_second else None
        self.window = 0
        self.used = 0
        self.lock = threading.Lock()
        self.seen: dict[int, Counter[str]] = {}

    def admit(self) -> tuple[bool, dict[str, str]]:
        if self.limit is None:
            return True, {}
        now = time.time()
        with self.lock:
            window = int(now)
            if window != self.window:
                self.window, self.used = window, 0
            allowed = self.used < self.limit
            if allowed:
                self.used += 1
            remaining = max(self.limit - self.used, 0)
            self._count(window, allowed)
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": str(window + 1),
        }
        if not allowed:
            headers["Retry-After"] = str(max(1, math.ceil(window + 1 - now)))
        return allowed, headers

    def _count(self, window: int, allowed: bool) -> None:
        counts = self.seen.setdefault(window, Counter())
        counts["requests"] += 1
        counts["limited"] += not allowed
        while len(self.seen) > WINDOWS_KEPT:
            del self.seen[min(self.seen)]

    def as_json(self) -> dict[str, Any] | None:
        """``{"limit": N, "bySecond": {epoch second: {"requests", "limited"}}}``, when limiting."""
        if self.limit is None:
            return None
        with self.lock:
            seconds = {str(w): dict(c) for w, c in sorted(self.seen.items())}
        return {"limit": self.limit, "bySecond": seconds}

    def reset(self) -> None:
        with self.lock:
            self.seen.clear()


RATE_LIMITED = "API rate limit exceeded. Please try again in 60 seconds"
WINDOWS_KEPT = 3600


class Sandbox:
    """One emulated service: a store, its settings, and request accounting."""

    def __init__(self, store: Store, config: SandboxConfig | None = None) -> None:
        self.store = store
        self.config = config or SandboxConfig()
        self.stats = Stats()
        self.limiter = RateLimiter(self.config.rate_limit)
        self.faults = FaultInjector(self.config.faults)

    async def handle(self, ep: Endpoint, request: Request) -> Response:
        status: int | None = 500
        try:
            response = await self._answer(ep, request)
            status = None if isinstance(response, Hangup) else response.status_code
            return response
        except asyncio.CancelledError:
            status = None  # the in-process client gave up waiting: no answer was sent
            raise
        except ClientDisconnect:
            # The client left before its body arrived: nobody reads an answer, so none is
            # counted, and the server's log gets no traceback for an ordinary hang-up.
            status = None
            return Response(status_code=400)
        finally:
            self.stats.record(ep.method, ep.path, status)

    async def _answer(self, ep: Endpoint, request: Request) -> Response:
        if self.config.latency_ms:
            await self.config.waits.sleep(self.config.latency_ms / 1000)
        fault = self.faults.decide(ep.method, request.url.path.removeprefix("/v1"))
        if fault is not None:
            self.stats.record_fault(fault)
            instead = answer_instead(fault, self.faults.settings.retry_after)
            if instead is not None:
                return instead
        response = await self._process(ep, request)
        if fault == "slow":
            # The work is done at once, as a slow service would; only the answer is late.
            await self.config.waits.sleep(self.faults.settings.slow_seconds)
        return answer_after(fault, response)

    async def _process(self, ep: Endpoint, request: Request) -> Response:
        allowed, headers = self.limiter.admit()
        try:
            if not allowed:
                raise ApiError(429, RATE_LIMITED)
            caller = self.authenticate(request)
            require_accepted_kind(ep.method, ep.path, caller)
            body = await read_json_body(request) if ep.method in ("POST", "PUT", "PATCH") else None
            params = dict(request.path_params)
            response = self.run(ep, caller, params, request.query_params, body, source="api")
        except ApiError as exc:
            response = exc.response()
        response.headers.update(headers)
        return response

    def run(
        self,
        ep: Endpoint,
        caller: Caller,
        params: dict[str, str],
        query: Mapping[str, str],
        body: Any,
        *,
        source: str,
    ) -> Response:
        """One request's work in one transaction; a write that succeeds is recorded as an
        audit event from ``source`` (``api``, or ``ui`` for `docform_sandbox.ui`)."""
        ctx = Ctx(self.store, caller, params, query, body, ep.method)
        with self.store.transaction():
            before = before_write(ctx, ep) if self.config.audit else None
            answer = ep.handler(ctx)
            if before is not None:
                record_write(ctx, before, answer, source)
            return render(ep, answer)

    def authenticate(self, request: Request) -> Caller:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "missing bearer token in the Authorization header")
        token = token.strip()
        # A user's token acts as that user even where every token is trusted as an admin
        # (in-process), so rails about the caller's own membership can be exercised.
        record = self.store.get("token", token)
        if record is not None and record.get("kind") == "integration":
            return Caller(user_id=None, superuser=True, integration=True)
        if record is not None:
            return Caller(user_id=record["user"])
        if token in self.config.admin_tokens:
            return Caller(user_id=None, superuser=True)
        raise ApiError(401, "the bearer token is not valid")


def create_app(store: Store, config: SandboxConfig | None = None) -> Starlette:
    """The ASGI app for ``store``; ``app.state.sandbox`` exposes stats and the clock to tests."""
    return web_app(Sandbox(store, config), exchange_log())


def web_app(sandbox: Sandbox, logged: Path | None) -> Starlette:
    """The ASGI app of ``sandbox``, writing each exchange to the log ``logged`` (when not
    None, `docform_sandbox.exchange_log`)."""
    controls = _control_routes(sandbox)
    ui = _admin_only(sandbox)(ui_change(sandbox))
    controls.append(Route("/_sandbox/ui", ui, methods=["POST"]))
    middleware = [Middleware(ExchangeLog, path=logged)] if logged is not None else []
    app = Starlette(
        routes=[*_api_routes(), *controls],
        exception_handlers={HTTPException: _http_error},
        middleware=middleware,
    )
    app.state.sandbox = sandbox
    return app


async def _handled_by_its_sandbox(ep: Endpoint, request: Request) -> Response:
    sandbox: Sandbox = request.app.state.sandbox
    return await sandbox.handle(ep, request)


@functools.cache
def _api_routes() -> tuple[Route, ...]:
    """The API's routes, shared by every app: built with the first app (compiling each route's
    path is most of an app's making), not on import, since an in-process client hands the
    requests its endpoints take to them without the app (`docform_sandbox.transport`), and
    most such clients never make one."""
    return tuple(as_route(ep, _handled_by_its_sandbox) for ep in ENDPOINTS)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"no endpoint {request.method} {request.url.path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    return ApiError(exc.status_code, message).response()


def _control_routes(sandbox: Sandbox) -> list[Route]:
    """``/_sandbox/*``: outside the emulated API, never counted, limited or faulted."""

    async def stats(request: Request) -> Response:
        counts = sandbox.stats.as_json()
        limited = sandbox.limiter.as_json()
        if limited is not None:
            counts["rateLimit"] = limited
        return JSONResponse(counts)

    async def faults(request: Request) -> Response:
        if request.method == "PUT":
            try:
                sandbox.faults = FaultInjector(settings_from_json(await read_json_body(request)))
            except (ValueError, TypeError) as exc:
                return ApiError(400, f"body: {exc}").response()
            except ApiError as exc:
                return exc.response()
        return JSONResponse(sandbox.faults.settings.as_json())

    async def reset_stats(request: Request) -> Response:
        sandbox.stats.reset()
        sandbox.limiter.reset()
        return Response(status_code=204)

    async def clock(request: Request) -> Response:
        if request.method == "POST":
            try:
                body = await read_json_body(request) or {}
                if "now" in body:
                    sandbox.store.set_now(parse_timestamp(str(body["now"])))
                elif "advanceSeconds" in body:
                    advance = timedelta(seconds=float(body["advanceSeconds"]))
                    sandbox.store.set_now(sandbox.store.now() + advance)
                else:
                    raise ApiError(400, "body: give 'now' (ISO 8601) or 'advanceSeconds'")
            except (ValueError, TypeError, OverflowError) as exc:
                return ApiError(400, f"body: {exc}").response()
            except ApiError as exc:
                return exc.response()
        return JSONResponse({"now": timestamp(sandbox.store.now())})

    guard = _admin_only(sandbox)
    return [
        Route("/_sandbox/stats", guard(stats), methods=["GET"]),
        Route("/_sandbox/stats/reset", guard(reset_stats), methods=["POST"]),
        Route("/_sandbox/clock", guard(clock), methods=["GET", "POST"]),
        Route("/_sandbox/faults", guard(faults), methods=["GET", "PUT"]),
        # The API's description holds nothing of the sandbox's state: open to every caller.
        Route("/_sandbox/openapi.json", _openapi_json, methods=["GET"]),
    ]


ControlHandler = Callable[[Request], Awaitable[Response]]


def _admin_only(sandbox: Sandbox) -> Callable[[ControlHandler], ControlHandler]:
    """Control routes change what every caller sees (faults, the clock): only a sandbox admin
    token (``serve --token``) may use them, never a seeded user's token."""

    def guard(handler: ControlHandler) -> ControlHandler:
        async def checked(request: Request) -> Response:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() == "bearer" and token.strip() in sandbox.config.admin_tokens:
                return await handler(request)
            if not sandbox.config.admin_tokens:
                message = (
                    f"{request.url.path} needs the sandbox admin token, and this sandbox has "
                    "none: start it with 'docform sandbox serve --token TOKEN'"
                )
            else:
                message = (
                    f"{request.url.path} needs the sandbox admin token (the --token of "
                    "'docform sandbox serve') as 'Authorization: Bearer TOKEN'"
                )
            return ApiError(401, message).response()

        return checked

    return guard


async def _openapi_json(request: Request) -> Response:
    """The sandbox's own OpenAPI description (`docform_sandbox.openapi_description`)."""
    from docform_sandbox.openapi_description import openapi_description

    return JSONResponse(openapi_description())
