"""The sandbox's indexed router takes the route Starlette's own router takes, for any request:
the same route and path parameters, the same 404, 405 and slash redirects."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, Router

from conftest import fuzz_examples
from docform_sandbox.route_index import IndexedRouter, RouteIndex
from docform_sandbox.routes import ENDPOINTS

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
API_PATHS = ["/v1" + ep.path for ep in ENDPOINTS]
WORDS = sorted({w for p in API_PATHS for w in p.split("/") if w and "{" not in w})


async def _echo(request: Request) -> Response:
    route = request.scope["route"]
    return JSONResponse({"route": f"{sorted(route.methods)} {route.path}", **request.path_params})


def _routes() -> list[Route]:
    """The sandbox's routes (methods, paths and order) and a control route outside ``/v1``,
    each answering which route it is and the parameters it read."""
    routes = [Route("/v1" + ep.path, _echo, methods=[ep.method]) for ep in ENDPOINTS]
    return [*routes, Route("/v1/files/{rest:path}", _echo, methods=["GET"])]


ROUTES = _routes()
INDEXED = IndexedRouter(RouteIndex(ROUTES[:-1]), ROUTES[-1:])
PLAIN = Router(ROUTES)


def answer(router: Router, method: str, path: str) -> list[dict[str, Any]]:
    """What ``router`` sends for ``method path``."""
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"sandbox.test")],
        "scheme": "http",
        "server": ("sandbox.test", 80),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(router(scope, receive, send))
    return sent


def _filled(template: str, values: list[str]) -> str:
    parts = iter(values)
    return re.sub(r"\{[^}]*\}", lambda _: next(parts, "x"), template)


ODD_SEGMENTS = ["latest", "", "a b", "x\n", "%2F"]
segment = st.one_of(st.sampled_from(WORDS), st.sampled_from(ODD_SEGMENTS), st.text(max_size=4))


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str]:
    path = _filled(draw(st.sampled_from(API_PATHS)), draw(st.lists(segment, max_size=6)))
    edit = draw(st.sampled_from(["none", "slash", "unslash", "cut", "add", "newline"]))
    if edit == "slash":
        path += "/"
    elif edit == "unslash":
        path = path.rstrip("/") or "/"
    elif edit == "cut":
        path = path.rsplit("/", 1)[0] or "/"
    elif edit == "add":
        path += "/" + draw(segment)
    elif edit == "newline":
        path += "\n"
    return draw(st.sampled_from(METHODS)), path


@settings(max_examples=fuzz_examples(150), deadline=None)
@given(requests())
def test_the_indexed_router_answers_as_starlettes_router(request: tuple[str, str]) -> None:
    method, path = request
    assert answer(INDEXED, method, path) == answer(PLAIN, method, path)


def test_routes_declared_alike_are_told_apart_by_their_order() -> None:
    """``versions/latest`` is declared before ``versions/{versionId}``, which also matches it."""
    latest = "/v1/orgs/o/openapi/s/versions/latest"
    assert answer(INDEXED, "GET", latest) == answer(PLAIN, "GET", latest)
    body = answer(INDEXED, "GET", latest)[1]["body"]
    assert b"versions/latest" in body and b"versionId" not in body
