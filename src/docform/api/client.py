"""`ApiClient`: docform's asynchronous client of the documentation service API.

The API URL (``DOCFORM_API_URL``, or ``base_url`` in code) is the service's root, for example
``https://api.example.com``; the client appends ``/v1`` (see `docform.api.urls`).
``sandbox:PATH.sqlite`` calls the built-in sandbox over that file in-process, with no socket; the
sandbox then trusts the client's token as an admin of every organization (like
``docform sandbox serve --token``) unless it is a user's token from the seed, which acts as that
user; a fixed local token is used when none is set. It injects
the faults of ``DOCFORM_SANDBOX_FAULTS`` (seeded by ``DOCFORM_SANDBOX_FAULT_SEED``; ``slow``
waits ``DOCFORM_SANDBOX_SLOW_SECONDS``), as `docform.sandbox.faults` describes; each client
opens its own sandbox, so fault counts and draws start afresh with each client.

The token comes from ``DOCFORM_API_TOKEN`` (or ``token`` in code), never from a command-line
argument, and never appears in a repr, a log line or an error (`docform.redact`).

Every call: at most ``max_in_flight`` at a time, a timeout (30 s, or ``DOCFORM_API_TIMEOUT``
seconds), retries as `docform.api.retry` describes, a pause of every call when the service
answers 429, and accounting in ``stats``.
Answers 204 and 205 return None; a DELETE also succeeds on 200 (gaps.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self

import httpx

from docform import __version__
from docform.api.answers import (
    content_type_misfit,
    count_misfit,
    envelope_misfit,
    error_message,
    items_misfit,
    malformed_description,
)
from docform.api.errors import (
    ApiConfigError,
    ApiStatusError,
    ApiTransportError,
    MalformedAnswerError,
    status_hint,
    transport_hint,
)
from docform.api.retry import (
    RETRY_STATUSES,
    RateBudget,
    RetryPolicy,
    asked_wait,
    is_retryable_call,
    shared_budget,
)
from docform.api.shapes import item_shape, object_misfit
from docform.api.slots import Slots
from docform.api.stats import CallStats
from docform.api.transport import (
    BearerAuth,
    ReadOnlyTransport,
    SandboxTransport,
    read_only_refusal,
)
from docform.api.urls import API_PREFIX, environment_proxy, resolve_api_url
from docform.redact import redact_text, redact_url
from docform.sandbox import SandboxConfig
from docform.sandbox.faults import settings_from_env

log = logging.getLogger("docform.api")

LOCAL_SANDBOX_TOKEN = "docform-local-sandbox-token"
LIST_PAGE_SIZE = 1000
TIMEOUT_VARIABLE = "DOCFORM_API_TIMEOUT"

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Call:
    """One API call and its attempts so far."""

    method: str
    path: str
    params: Mapping[str, Any] | None
    json: Any
    retryable: bool
    attempts: int = 0
    failures: int = 0
    rate_limits: int = 0
    note: str = ""

    @property
    def lead(self) -> str:
        after = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"{self.method} {self.path} failed{after}"


class ApiClient:
    """Calls ``{base_url}/v1`` with a bearer token; use ``async with`` or ``await aclose()``."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        read_only: bool = False,
        max_in_flight: int = 16,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff_base: float = 0.2,
        backoff_cap: float = 10.0,
        max_rate_limit_retries: int = 30,
        max_retry_wait: float = 120.0,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.base_url, sandbox_file = resolve_api_url(base_url)
        self.root_url = self.base_url.removesuffix(API_PREFIX)
        # Clients docform opens itself share the service's rate limit; one given a transport
        # (a test's) keeps its own.
        budget_key = None if transport is not None else str(sandbox_file or self.base_url)
        if sandbox_file is not None:
            token = token or LOCAL_SANDBOX_TOKEN
            if transport is None:
                config = SandboxConfig(admin_tokens=(token,), faults=settings_from_env())
                transport = SandboxTransport(sandbox_file, config)
        elif not token:
            raise ApiConfigError(
                "DOCFORM_API_TOKEN is not set: set it to an API token of a member of the "
                "organization (docform never takes the token as a command-line argument)."
            )
        self.read_only = read_only
        self.stats = CallStats()
        self.retry = RetryPolicy(
            max_retries, max_rate_limit_retries, backoff_base, backoff_cap, max_retry_wait
        )
        self._token = token
        self._sleep = sleep
        self._slots = Slots(max_in_flight)
        self._resume_at = 0.0
        self._budget = shared_budget(budget_key, token) if budget_key else RateBudget()
        self.http = self._http_client(transport, token, timeout)

    def _http_client(
        self, transport: httpx.AsyncBaseTransport | None, token: str, timeout: float
    ) -> httpx.AsyncClient:
        inner = transport or httpx.AsyncHTTPTransport(proxy=environment_proxy(self.base_url))
        return httpx.AsyncClient(
            base_url=self.base_url + "/",
            transport=ReadOnlyTransport(inner, API_PREFIX) if self.read_only else inner,
            auth=BearerAuth(token),
            timeout=timeout,
            headers={"User-Agent": f"docform/{__version__}", "Accept": "application/json"},
        )

    @classmethod
    def from_env(
        cls,
        url: str | None = None,
        *,
        read_only: bool = False,
        environ: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Self:
        """A client for ``url`` (else ``DOCFORM_API_URL``) with the token of ``DOCFORM_API_TOKEN``.

        ``options`` are those of the constructor (``token`` included, for callers that hold one).
        """
        env = os.environ if environ is None else environ
        url = url or env.get("DOCFORM_API_URL")
        if not url:
            raise ApiConfigError(
                "DOCFORM_API_URL is not set: set it to the service's root URL "
                "(https://api.example.com) or to sandbox:FILE.sqlite for the built-in sandbox."
            )
        options.setdefault("token", env.get("DOCFORM_API_TOKEN") or None)
        if "timeout" not in options and env.get(TIMEOUT_VARIABLE, "").strip():
            options["timeout"] = _timeout_from_env(env[TIMEOUT_VARIABLE])
        return cls(url, read_only=read_only, **options)

    def __repr__(self) -> str:
        token = "set" if self._token else "none"
        url = redact_url(self.base_url)
        return f"ApiClient(url={url!r}, read_only={self.read_only}, token={token})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    # -- calls ---------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        retry: bool | None = None,
        priority: int = 0,
    ) -> Any:
        """The parsed JSON answer of ``METHOD /v1{path}``, or None for an empty answer.

        ``retry`` overrides whether the call may be repeated after a failure (see
        `docform.api.retry`). Waiting for a free slot, a lower ``priority`` goes first.
        Raises an `ApiError` subclass when the call fails.
        """
        method = method.upper()
        path = "/" + path.lstrip("/")
        if self.read_only and method != "GET":
            raise read_only_refusal(method, path)
        retryable = is_retryable_call(method, path) if retry is None else retry
        call = _Call(method, path, _clean_params(params), json, retryable)
        await self._slots.acquire(priority)
        try:
            response = await self._send(call)
        finally:
            self._slots.release()
        answer = self._decode(call, response)
        if method == "GET":
            self._check_object(path, answer)
        return answer

    async def get(self, path: str, *, params: Mapping[str, Any] | None = None) -> Any:
        return await self.request("GET", path, params=params)

    async def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("POST", path, json=json, **kwargs)

    async def put(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("PUT", path, json=json, **kwargs)

    async def patch(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("PATCH", path, json=json, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Any:
        return await self.request("DELETE", path, **kwargs)

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Every item of a list, reading pages of 1000 and following ``next.page`` cursors.

        A next page goes before other waiting calls, the more pages remain the sooner: pages
        can only be read one after another (see `docform.api.slots`).
        """
        query = {**(params or {}), "limit": LIST_PAGE_SIZE}
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        priority = 0
        while True:
            page = await self.request("GET", path, params=query, priority=priority)
            items.extend(self._list_items(path, page, len(seen) + 1))
            cursor = _next_cursor(page)
            if cursor is None:
                # A list cut short would make live objects look absent, and a plan create them.
                problem = count_misfit(page, len(items))
                if problem:
                    raise self._unfit(path, problem, len(seen) + 1)
                return items
            if cursor in seen:
                raise self._malformed_list(path, "gave the same next page cursor twice")
            seen.add(cursor)
            query["page"] = cursor
            priority = -_pages_left(page, len(items))

    # -- sending and retrying ------------------------------------------------------------------

    async def _send(self, call: _Call) -> httpx.Response:
        while True:
            await self._wait_for_pause()
            await self._wait_for_budget()
            call.attempts += 1
            self.stats.record_sent(call.method, call.path)
            started = time.monotonic()
            try:
                response = await self.http.request(
                    call.method, call.path.lstrip("/"), params=call.params, json=call.json
                )
            except httpx.TransportError as exc:
                wait = self._failure_wait(call)
                if wait is None:
                    raise self._transport_error(call, exc) from None
                reason = type(exc).__name__
            else:
                self._log_answer(call, response, started)
                self._budget.observe(response.headers)
                if response.status_code not in RETRY_STATUSES:
                    return response
                wait = self._status_wait(call, response)
                if wait is None:
                    return response
                reason = str(response.status_code)
            self.stats.record_retry(reason)
            log.warning(
                "%s %s: %s; retrying (attempt %d)",
                call.method,
                call.path,
                reason,
                call.attempts + 1,
            )
            if wait:
                await self._sleep(wait)

    async def _wait_for_budget(self) -> None:
        """Keeps to the rate limit the service announced (`docform.api.retry.RateBudget`)."""
        while (wait := self._budget.claim()) > 0:
            await self._sleep(wait + self.retry.jitter())

    async def _wait_for_pause(self) -> None:
        """After a 429 every call waits until the service said to come back."""
        delay = self._resume_at - time.monotonic()
        if delay > 0:
            await self._sleep(delay + self.retry.jitter())

    def _failure_wait(self, call: _Call) -> float | None:
        """The wait before retrying a call that got no answer; None to give up."""
        if not call.retryable or call.failures >= self.retry.max_retries:
            return None
        call.failures += 1
        return self.retry.backoff(call.failures - 1)

    def _status_wait(self, call: _Call, response: httpx.Response) -> float | None:
        """The wait before retrying after ``response`` (429 or 5xx); None to give up."""
        status = response.status_code
        if status == 429:
            self.stats.record_rate_limited()
            asked = self.retry.server_wait(response.headers, status, call.rate_limits)
            if asked <= self.retry.max_wait:
                self._resume_at = max(self._resume_at, time.monotonic() + asked)
            limit, count = self.retry.max_rate_limit_retries, call.rate_limits
        else:
            asked = self.retry.server_wait(response.headers, status, call.failures)
            limit, count = self.retry.max_retries, call.failures
        # A 429 was turned away before any work, so even a call that is never repeated after a
        # failure (a POST) is sent again.
        if (not call.retryable and status != 429) or count >= limit:
            return None
        if asked > self.retry.max_wait:
            call.note = (
                f"The service asked to wait {asked:.0f} s, longer than docform waits "
                f"({self.retry.max_wait:.0f} s)"
            )
            return None
        if status == 429:
            call.rate_limits += 1
            return 0.0  # the pause before the next attempt is the wait
        call.failures += 1
        return asked

    def _log_answer(self, call: _Call, response: httpx.Response, started: float) -> None:
        elapsed_ms = (time.monotonic() - started) * 1000
        log.debug("%s %s -> %d (%.0f ms)", call.method, call.path, response.status_code, elapsed_ms)

    # -- answers -------------------------------------------------------------------------------

    def _decode(self, call: _Call, response: httpx.Response) -> Any:
        status = response.status_code
        if not 200 <= status < 300:
            raise self._status_error(call, response)
        if status in (204, 205):
            return None
        if not response.content.strip():
            if call.method == "DELETE":
                return None
            raise self._malformed(call, response, "is empty")
        try:
            answer = response.json()
        except ValueError as exc:
            raise self._malformed(call, response, malformed_description(response, exc)) from None
        wrong_label = content_type_misfit(response)
        if wrong_label:
            raise self._malformed(call, response, wrong_label)
        return answer

    def _status_error(self, call: _Call, response: httpx.Response) -> ApiStatusError:
        status = response.status_code
        api_message = error_message(response).strip().rstrip(".")
        parts = [f"{call.lead}: {status} {api_message}."]
        if call.note:
            parts.append(f"{call.note}.")
        if 300 <= status < 400:
            target = response.headers.get("location", "another address")
            parts.append(f"The service redirects to {target}; set DOCFORM_API_URL to it.")
        parts.append(status_hint(status, call.method))
        return ApiStatusError(
            self._redact(" ".join(p for p in parts if p)),
            method=call.method,
            path=call.path,
            status=status,
            api_message=self._redact(api_message),
            retry_after=asked_wait(response.headers, status),
        )

    def _transport_error(self, call: _Call, exc: httpx.TransportError) -> ApiTransportError:
        detail = str(exc) or "no detail"
        message = (
            f"{call.lead}: no answer from {self.root_url} ({type(exc).__name__}: {detail}). "
            f"{transport_hint(call.method)}"
        )
        return ApiTransportError(self._redact(message), method=call.method, path=call.path)

    def _malformed(self, call: _Call, response: httpx.Response, what: str) -> MalformedAnswerError:
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        message = (
            f"{call.lead}: the answer ({response.status_code}, {kind}) {what}. Check that "
            f"DOCFORM_API_URL is the service's API root (docform adds {API_PREFIX}), not a "
            "website or a sign-in page; if it is, the answer was cut short: try again."
        )
        return MalformedAnswerError(
            self._redact(message), method=call.method, path=call.path, status=response.status_code
        )

    def _list_items(self, path: str, page: Any, number: int) -> list[dict[str, Any]]:
        """The items of page ``number`` of a list, once the page and its items fit the API."""
        problem = envelope_misfit(page)
        if problem:
            raise self._malformed_list(path, f"{problem}; is {path} a list endpoint?")
        problem = items_misfit(page["items"], item_shape("/" + path.lstrip("/")))
        if problem:
            raise self._unfit(path, f"does not fit the API: {problem}", number)
        return page["items"]

    def _check_object(self, path: str, answer: Any) -> None:
        problem = object_misfit(path, answer)
        if problem:
            raise self._unfit(path, f"does not fit the API: {problem}")

    def _malformed_list(self, path: str, what: str) -> MalformedAnswerError:
        message = f"GET {path} failed: the answer {what}"
        return MalformedAnswerError(self._redact(message), method="GET", path=path)

    def _unfit(self, path: str, what: str, page: int = 1) -> MalformedAnswerError:
        """A JSON answer of ``GET path`` that docform cannot trust (see `docform.api.shapes`)."""
        path = "/" + path.lstrip("/")
        answer = "the answer" if page == 1 else f"the answer of page {page}"
        message = (
            f"GET {path} failed: {answer} {what}. docform plans nothing from an answer it "
            f"cannot trust; check that DOCFORM_API_URL is the service's API root (docform adds "
            f"{API_PREFIX}) and try again."
        )
        return MalformedAnswerError(self._redact(message), method="GET", path=path)

    def _redact(self, text: str) -> str:
        return redact_text(text, (self._token,))


def _timeout_from_env(value: str) -> float:
    """``DOCFORM_API_TIMEOUT``: seconds to wait for each answer, a positive number."""
    try:
        seconds = float(value.strip())
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ApiConfigError(
            f"{TIMEOUT_VARIABLE} must be a positive number of seconds (like 30), not {value!r}"
        )
    return seconds


def _clean_params(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Query parameters without the None values; booleans as the API writes them."""
    if params is None:
        return None
    return {
        k: ("true" if v else "false") if isinstance(v, bool) else v
        for k, v in params.items()
        if v is not None
    }


def _pages_left(page: dict[str, Any], read: int) -> int:
    """Pages still to read after ``read`` items, from the list's ``count`` (1 when absent)."""
    count = page.get("count")
    if not isinstance(count, int) or count <= read:
        return 1
    return -(-(count - read) // LIST_PAGE_SIZE)


def _next_cursor(page: dict[str, Any]) -> str | None:
    following = page.get("next")
    if isinstance(following, dict) and following.get("page"):
        return str(following["page"])
    return None
