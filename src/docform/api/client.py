"""`ApiClient`: docform's asynchronous client of the documentation service API.

The API URL (``DOCFORM_API_URL``, or ``base_url`` in code) is the service's root, for example
``https://api.example.com``; the client appends ``/v1`` (see `docform.api.urls`).
``SCHEME:FILE`` names a file that an installed plug-in serves in-process (`docform.api.schemes`):
this client opens the plug-in's transport unless the caller hands it one, and sends the
plug-in's default token when none is set.

The token comes from ``DOCFORM_API_TOKEN`` (or ``token`` in code), never from a command-line
argument, and never appears in a repr, a log line or an error (`docform.untrusted.redact`).

Every call: at most ``max_in_flight`` at a time, a timeout (30 s, or ``DOCFORM_API_TIMEOUT``
seconds) for each network operation, a deadline and a size cap for each attempt's whole answer
(`docform.api.limits`), retries as `docform.api.retry` describes, a pause of every call when the
service answers 429 (`docform.api.sender`), and accounting in ``stats``. Answers are read and
checked by `docform.api.reader`: 204 and 205 return None; a DELETE also succeeds on 200
(docs/service.md).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import httpx

from docform import __version__
from docform.api.answers import count_misfit
from docform.api.errors import ApiConfigError
from docform.api.limits import AnswerLimitExceeded, AnswerLimits
from docform.api.reader import AnswerReader
from docform.api.recording import ReadRecording
from docform.api.retry import RateBudget, RetryPolicy, is_retryable_call, shared_budget
from docform.api.schemes import url_forms
from docform.api.sender import Call, Sender, Sleep
from docform.api.shapes import RouteShapes
from docform.api.slots import Slots
from docform.api.stats import CallStats
from docform.api.transport import BearerAuth, ReadOnlyTransport, read_only_refusal
from docform.api.urls import API_PREFIX, environment_proxy, resolve_api_url
from docform.untrusted.paths import api_path
from docform.untrusted.redact import redact_url

LIST_PAGE_SIZE = 1000
MAX_LIST_PAGES = 10_000
"""Pages read of a list that gives no ``count``: ten million objects, far past any organization,
and a bound on a list that names a next page forever."""
MAX_LIST_ITEMS = 200_000
"""Items read of one list, whatever its ``count`` and ``next`` say: twenty times the members of
the largest organization docform is benchmarked at (10,000), and a bound on the memory of a list
a server fills with new items forever (``DOCFORM_API_MAX_LIST_ITEMS`` raises it)."""
MAX_LIST_BYTES = 512 * 1024 * 1024
"""Bytes of answers read for one list (its pages' bodies in all), whatever its pages say: a
bound on a list of few but huge items (``DOCFORM_API_MAX_LIST_MB`` raises it)."""
MAX_LIST_ITEMS_VARIABLE = "DOCFORM_API_MAX_LIST_ITEMS"
MAX_LIST_MB_VARIABLE = "DOCFORM_API_MAX_LIST_MB"
TIMEOUT_VARIABLE = "DOCFORM_API_TIMEOUT"


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
        url_source: str = "DOCFORM_API_URL",
        limits: AnswerLimits | None = None,
        shapes: RouteShapes | None = None,
        list_names: frozenset[str] = frozenset(),
        list_bounds: ListBounds | None = None,
    ) -> None:
        """``shapes`` are those of the answers the kinds read (`docform.api.shapes`);
        ``list_names`` the path segments that name a list, for counting calls by route
        (`docform.api.stats`). `docform.workflow.connect.Client` hands both over."""
        self.base_url, plugged = resolve_api_url(base_url, url_source)
        check_token(token)
        self.root_url = self.base_url.removesuffix(API_PREFIX)
        # Clients docform opens itself share the service's rate limit; one given a transport
        # (a test's) keeps its own.
        budget_key = None
        if transport is None:
            budget_key = plugged.budget_key if plugged else self.base_url
        if plugged is not None:
            token = token or plugged.plugin.default_token
            transport = transport or plugged.transport(token)
        elif not token:
            raise ApiConfigError(
                "DOCFORM_API_TOKEN is not set: set it to an API token of a member of the "
                "organization (docform never takes the token as a command-line argument)."
            )
        self.read_only = read_only
        self.list_bounds = list_bounds or ListBounds()
        self.stats = CallStats(list_names)
        self.reads = ReadRecording()
        """Every GET answer handed back, for a rehearsal of what was planned from them."""
        self.retry = RetryPolicy(
            max_retries, max_rate_limit_retries, backoff_base, backoff_cap, max_retry_wait
        )
        self._token = token
        self._slots = Slots(max_in_flight)
        self.http = self._http_client(transport, token, timeout)
        budget = shared_budget(budget_key, token) if budget_key else RateBudget()
        self._sleep = sleep
        self._sender = Sender(self.http, self.retry, self.stats, budget, sleep, limits)
        self._reader = AnswerReader(token, self.root_url, shapes)

    def _http_client(
        self, transport: httpx.AsyncBaseTransport | None, token: str, timeout: float
    ) -> httpx.AsyncClient:
        if transport is None:
            # Imported here: the network transport is built on httpcore, which a client
            # handed a transport (a plug-in's, in-process) never loads.
            from docform.api.connections import network_transport

            transport = network_transport(proxy=environment_proxy(self.base_url))
        return httpx.AsyncClient(
            base_url=self.base_url + "/",
            transport=ReadOnlyTransport(transport, API_PREFIX) if self.read_only else transport,
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
            raise ApiConfigError(f"DOCFORM_API_URL is not set: set it to {url_forms()}.")
        options.setdefault("token", env.get("DOCFORM_API_TOKEN") or None)
        if "timeout" not in options and env.get(TIMEOUT_VARIABLE, "").strip():
            options["timeout"] = _timeout_from_env(env[TIMEOUT_VARIABLE])
        options.setdefault("limits", AnswerLimits.from_env(env))
        options.setdefault("list_bounds", ListBounds.from_env(env))
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
        _, answer = await self.answered(
            method, path, params=params, json=json, retry=retry, priority=priority
        )
        return answer

    async def answered(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        retry: bool | None = None,
        priority: int = 0,
    ) -> tuple[int, Any]:
        """As `request`, with the HTTP status of the answer (apply reports it per call)."""
        status, answer, _ = await self._exchange(method, path, params, json, retry, priority)
        return status, answer

    async def _exchange(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None,
        json: Any,
        retry: bool | None,
        priority: int,
    ) -> tuple[int, Any, int]:
        """As `answered`, with the size of the answer's body in bytes."""
        method = method.upper()
        path = api_path(path)
        if self.read_only and method != "GET":
            raise read_only_refusal(method, path)
        retryable = is_retryable_call(method) if retry is None else retry
        call = Call(method, path, _clean_params(params), json, retryable)
        await self._slots.acquire(priority)
        try:
            response = await self._sender.send(call)
        except httpx.TransportError as exc:
            raise self._reader.transport_error(call, exc) from None
        except AnswerLimitExceeded as exc:
            raise self._reader.limit_error(call, exc.what) from None
        finally:
            self._slots.release()
        return response.status_code, self._reader.decode(call, response), len(response.content)

    async def get(self, path: str, *, params: Mapping[str, Any] | None = None) -> Any:
        answer = await self.request("GET", path, params=params)
        self.reads.add(path, params, answer)
        return answer

    async def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("POST", path, json=json, **kwargs)

    async def put(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("PUT", path, json=json, **kwargs)

    async def patch(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return await self.request("PATCH", path, json=json, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Any:
        return await self.request("DELETE", path, **kwargs)

    async def pause(self, seconds: float) -> None:
        """Waits ``seconds`` with the ``sleep`` the client was given (`ServiceClient.pause`)."""
        await self._sleep(seconds)

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list[dict[str, Any]]:
        """Every item of a list, reading pages of 1000 (``params`` may set ``limit`` to None
        for a list without pages) and following ``next.page`` cursors.

        A next page goes before other waiting calls, the more pages remain the sooner: pages
        can only be read one after another (see `docform.api.slots`). ``priority``: the first
        page's (lower goes first), and at most the next pages'. A list whose size changed while
        its pages were read (someone, or this apply's own creates, wrote to it meanwhile) is
        read again from its first page, up to `LIST_REREADS` times; one that keeps holding
        other than its ``count`` is refused.
        """
        for attempt in range(LIST_REREADS + 1):
            try:
                return await self._list_once(path, params, priority)
            except ListChanged as changed:
                if attempt == LIST_REREADS:
                    raise changed.error from None
        raise AssertionError("unreachable")

    async def _list_once(
        self, path: str, params: Mapping[str, Any] | None, priority: int
    ) -> list[dict[str, Any]]:
        # A list whose operation takes no page size (an organization's fonts) is given
        # ``limit: None``: the parameter is left out, and the list read whole.
        query = {"limit": LIST_PAGE_SIZE, **(params or {})}
        query = {name: value for name, value in query.items() if value is not None}
        items: list[dict[str, Any]] = []
        seen: set[str] = set()
        first = priority
        read = 0
        while True:
            _, page, size = await self._exchange("GET", path, query, None, None, priority)
            items.extend(self._reader.list_items(path, page, len(seen) + 1))
            read += size
            too_much = self.list_bounds.exceeded(len(items), read)
            if too_much:
                raise self._reader.malformed_list(path, too_much)
            cursor = _next_cursor(page)
            if cursor is None:
                # A list cut short would make live objects look absent, and a plan create them.
                problem = count_misfit(page, len(items))
                if problem:
                    raise ListChanged(self._reader.unfit(path, problem, len(seen) + 1))
                self.reads.add(path, params, {"items": items}, listed=True)
                return items
            if cursor in seen:
                raise self._reader.malformed_list(path, "gave the same next page cursor twice")
            endless = _endless(page, len(items), len(seen) + 1)
            if endless:
                raise self._reader.malformed_list(path, endless)
            seen.add(cursor)
            query["page"] = cursor
            priority = min(first, -_pages_left(page, len(items)))


#: How many times a list whose size changed while it was read is read again.
LIST_REREADS = 2


class ListChanged(Exception):
    """A list read whole held other than its ``count`` (``error``: the refusal, if it stays)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class ListBounds:
    """What one list may hold, whatever its ``count`` and ``next`` say."""

    items: int = MAX_LIST_ITEMS
    bytes: int = MAX_LIST_BYTES

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ListBounds:
        items, megabytes = env.get(MAX_LIST_ITEMS_VARIABLE, ""), env.get(MAX_LIST_MB_VARIABLE, "")
        return cls(
            _whole_positive(MAX_LIST_ITEMS_VARIABLE, items, "200000")
            if items.strip()
            else cls.items,
            _whole_positive(MAX_LIST_MB_VARIABLE, megabytes, "512") * 1024 * 1024
            if megabytes.strip()
            else cls.bytes,
        )

    def exceeded(self, items: int, read: int) -> str | None:
        if items > self.items:
            return (
                f"holds more than {self.items:,} items, more than an organization holds "
                f"({MAX_LIST_ITEMS_VARIABLE}); docform stopped reading it"
            )
        if read > self.bytes:
            return (
                f"takes more than {self.bytes // (1024 * 1024):,} MiB in all "
                f"({MAX_LIST_MB_VARIABLE}); docform stopped reading it"
            )
        return None


def _whole_positive(variable: str, value: str, example: str) -> int:
    text = value.strip()
    if not text.isdigit() or int(text) < 1:
        raise ApiConfigError(
            f"{variable} must be a whole number above 0 (like {example}), not {value!r}"
        )
    return int(text)


def check_token(token: str | None) -> None:
    """Refuses a token no HTTP header can carry as it is, before any call: sent anyway, it
    fails every attempt with no answer, which reads like a network problem."""
    if token is None:
        return
    if token != token.strip():
        raise ApiConfigError(
            "DOCFORM_API_TOKEN starts or ends with whitespace or a line break (often a "
            "newline copied with it, or from a file read with `$(cat ...)`): set it to the "
            "token alone."
        )
    if not token.isascii() or any(not char.isprintable() or char.isspace() for char in token):
        raise ApiConfigError(
            "DOCFORM_API_TOKEN holds a space, a line break, a control or a non-ASCII "
            "character, which no API token does: set it to the token alone."
        )


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


def _endless(page: dict[str, Any], read: int, pages: int) -> str | None:
    """Why a list that names a next page after ``pages`` pages and ``read`` items cannot have
    one: the read would otherwise go on for as long as the service names pages."""
    count = page.get("count")
    if not page.get("items"):
        return "names a next page after a page without items; docform stopped reading it"
    # A next page after exactly ``count`` items may be an empty last page (one of a list of
    # 1000 items); one that is past it holds more items than the list has.
    if isinstance(count, int) and read > count:
        return (
            f"names a next page after all {count} items its count allows; docform stopped "
            "reading it"
        )
    if pages >= MAX_LIST_PAGES:
        return (
            f"names more pages than its count allows (no count, and over {MAX_LIST_PAGES} "
            "pages); docform stopped reading it"
        )
    return None


def _next_cursor(page: dict[str, Any]) -> str | None:
    following = page.get("next")
    if isinstance(following, dict) and following.get("page"):
        return str(following["page"])
    return None
