"""The sandbox's request plumbing: errors, request context, routes, bodies and list envelopes.

Route handlers are plain synchronous functions of a `Ctx`. The request body is read before a
handler runs and the handler runs inside one store transaction under the store's lock, so
concurrent requests never interleave their writes.
"""

from __future__ import annotations

import json
import re
import secrets
import string
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from docform.untrusted.json_depth import deeper_than
from docform_sandbox.store import CursorError, Store, Where

API_BASE = "https://api.sandbox.test/v1"
APP_BASE = "https://app.sandbox.test"
PUBLISHED_BASE = "https://docs.sandbox.test"
MAX_BODY_BYTES = 1_000_000
MAX_BODY_DEPTH = 32
ROLES = ("admin", "create", "review", "edit", "comment", "read")

Model = TypeVar("Model", bound=BaseModel)


class ApiError(Exception):
    """An answer other than 2xx, rendered as ``{"error": {"code", "message"}}``."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})

    def response(self) -> JSONResponse:
        body = {"error": {"code": self.status, "message": self.message}}
        return JSONResponse(body, status_code=self.status, headers=self.headers)


def not_found(what: str, id: str) -> ApiError:
    return ApiError(404, f"{what} '{id}' not found")


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


@dataclass
class Caller:
    """Who a request acts as: a user, and whether the token is an all-organization admin."""

    user_id: str | None
    superuser: bool = False
    integration: bool = False
    """An integration's token: an admin everywhere, but refused where the API takes only a
    user's token (`docform_sandbox.routes.tokens`)."""


@dataclass
class Ctx:
    """Everything a handler may look at; handlers never touch the Starlette request."""

    store: Store
    caller: Caller
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    method: str
    extra: dict[str, Any] = field(default_factory=dict)

    def now(self) -> datetime:
        """The sandbox clock, read once per request so one change has one timestamp."""
        now: datetime = self.extra.setdefault("now", self.store.now())
        return now

    def body_as(self, model: type[Model]) -> Model:
        """The JSON body checked against ``model``; a mismatch answers 400 naming the field."""
        if self.body is None:
            self.body = {}
        try:
            return model.model_validate(self.body)
        except ValidationError as exc:
            raise bad_request(describe_validation_error(exc)) from None

    def query_as(self, model: type[Model]) -> Model:
        try:
            return model.model_validate(dict(self.query))
        except ValidationError as exc:
            raise bad_request(describe_validation_error(exc)) from None


class Body(BaseModel):
    """Base of request bodies: types are strict (a number is not a string) and extras ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True, defer_build=True)


class Query(BaseModel):
    """Base of query strings: values arrive as strings and are converted (``limit=5``)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "body"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


Handler = Callable[[Ctx], Any]


@dataclass(frozen=True)
class Endpoint:
    """One route: ``METHOD /v1{path}``, its handler, its success status and summary. What it
    answers is the service's definition's answer of the operation (`docform_sandbox.answer_schema`).
    """

    method: str
    path: str
    handler: Handler
    status: int = 200
    summary: str = ""


def endpoint(method: str, path: str, status: int = 200) -> Callable[[Handler], Endpoint]:
    """Declare a handler for ``METHOD /v1{path}``; it returns the JSON body or None (204)."""

    def wrap(handler: Handler) -> Endpoint:
        return Endpoint(method, path, handler, status, (handler.__doc__ or "").strip())

    return wrap


def collect(namespace: Mapping[str, Any]) -> list[Endpoint]:
    """The endpoints a route module defines, in definition order; a module that builds its
    endpoints rather than declaring each one holds them in a list named ``ENDPOINTS``."""
    built = namespace.get("ENDPOINTS", [])
    return [v for v in namespace.values() if isinstance(v, Endpoint)] + list(built)


def as_route(ep: Endpoint, run: Callable[[Endpoint, Request], Awaitable[Response]]) -> Route:
    async def call(request: Request) -> Response:
        return await run(ep, request)

    return Route("/v1" + ep.path, call, methods=[ep.method], name=f"{ep.method} {ep.path}")


async def read_json_body(request: Request) -> Any:
    """The JSON body, or 400; an oversized body is refused without holding more of it than
    the limit (by its Content-Length, else while it streams in)."""
    too_large = bad_request(f"request body is larger than {MAX_BODY_BYTES} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise too_large
    if not raw.strip():
        return None
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise bad_request("request body is not valid JSON") from None
    except RecursionError:
        body = too_deep = True
    else:
        too_deep = deeper_than(body, MAX_BODY_DEPTH)
    if too_deep:
        raise bad_request(f"request body is nested deeper than {MAX_BODY_DEPTH} levels")
    if _SURROGATE_ESCAPE.search(raw) and not _is_text(body):
        raise bad_request("request body holds a lone surrogate (like \\ud800), which is not text")
    return body


# JSON's escape of a UTF-16 surrogate: a pair is one character, but one alone is no text.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _is_text(body: Any) -> bool:
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def render(ep: Endpoint, result: Any) -> Response:
    if result is None:
        return Response(status_code=204)
    if isinstance(result, Response):
        return result
    return JSONResponse(result, status_code=ep.status)


# -- lists -------------------------------------------------------------------------------------


class ListQuery(Query):
    page: str | None = None
    limit: int = 50
    order: str = "desc"


def list_query(ctx: Ctx) -> ListQuery:
    """The shared list parameters, checked: ``limit`` 0..1000, ``order`` asc|desc."""
    q = ctx.query_as(ListQuery)
    if not 0 <= q.limit <= 1000:
        raise bad_request("limit: must be an integer from 0 to 1000")
    if q.order not in ("asc", "desc"):
        raise bad_request("order: must be one of 'asc', 'desc'")
    return q


def list_page(
    ctx: Ctx,
    kind: str,
    where: Where,
    render_item: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    *,
    render_page: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None,
    sort: str = "rank",
    default_order: str | None = None,
) -> dict[str, Any]:
    """A list answer: ``{next?, count, items}`` with keyset cursors (the definition's lists
    have no ``previous``).

    Lists whose order carries meaning (site structure) pass ``default_order="asc"`` and ignore
    ``order``; the others honour it, newest first by default as the API documents. Each item
    is rendered by ``render_item``, or the page's items all at once by ``render_page``.
    """
    q = list_query(ctx)
    descending = (default_order or q.order) == "desc"
    try:
        page = ctx.store.page(
            kind, where, cursor=q.page, limit=q.limit, descending=descending, sort=sort
        )
    except CursorError:
        raise bad_request("page: not a cursor this list issued") from None
    if render_page is not None:
        return envelope(render_page(page.items), page.count, page.next)
    assert render_item is not None, "a list renders its items one by one or all at once"
    return envelope([render_item(item) for item in page.items], page.count, page.next)


def envelope(items: list[dict[str, Any]], count: int, next: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if next:
        body["next"] = {"page": next}
    body["count"] = count
    body["items"] = items
    return body


# -- values ------------------------------------------------------------------------------------

_ID_ALPHABET = string.ascii_letters + string.digits


def new_id(length: int = 20) -> str:
    """A fresh identifier, matching ``^[a-zA-Z0-9_-]+$`` like the service's own."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def timestamp(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 time; one without an offset is UTC, like every time the API answers."""
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def check_role(value: Any, field_name: str, *, allow_inherit: bool = False) -> None:
    """Roles are the six documented values or null (guest); levels may also be 'inherit'."""
    allowed = (*ROLES, "inherit") if allow_inherit else ROLES
    if value is not None and value not in allowed:
        names = ", ".join(repr(r) for r in allowed)
        raise bad_request(f"{field_name}: must be one of {names} or null, not {value!r}")
