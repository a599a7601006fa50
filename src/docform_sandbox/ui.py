"""``POST /_sandbox/ui``: a change made by a named person in the service's UI.

The real service records a change someone clicks in its UI with that person as the actor and
``ui`` as the source. Tests make such a hand change with this control route: the body names
the person (a user id or email) and the API call the UI would make, which runs as that user
(with that user's rights) and is recorded as an audit event from ``ui``::

    POST /_sandbox/ui
    {"user": "alice@acme.test", "method": "PATCH", "path": "/spaces/sp_1",
     "body": {"title": "Company handbook"}, "query": {}}

The answer is the API's answer to that call. Like every control route it needs a sandbox
admin token.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route

from docform_sandbox.http import ApiError, Caller, Endpoint, as_route, read_json_body
from docform_sandbox.routes import ENDPOINTS

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def ui_change(sandbox: Any) -> Callable[[Request], Awaitable[Response]]:
    """The handler of ``POST /_sandbox/ui`` for ``sandbox`` (a `docform_sandbox.app.Sandbox`)."""
    routes = _matchers()

    async def change(request: Request) -> Response:
        try:
            asked = await read_json_body(request)
            if not isinstance(asked, Mapping):
                raise ApiError(400, "body: give user, method, path and, for a write, body")
            user = _user(sandbox.store, asked.get("user"))
            method, path = _call(asked)
            for ep, route in routes:
                scope = {"type": "http", "path": "/v1" + path, "method": method}
                matched, child = route.matches(scope)
                if matched == Match.FULL:
                    query = {str(k): str(v) for k, v in (asked.get("query") or {}).items()}
                    params = dict(child["path_params"])
                    return sandbox.run(  # type: ignore[no-any-return]
                        ep, Caller(user_id=user), params, query, asked.get("body"), source="ui"
                    )
            raise ApiError(404, f"no endpoint {method} /v1{path}")
        except ApiError as exc:
            return exc.response()

    return change


@cache
def _matchers() -> tuple[tuple[Endpoint, Route], ...]:
    """Each endpoint with a route that only matches paths (the change runs through
    ``sandbox.run``): built once, for every sandbox of the process."""
    return tuple((ep, as_route(ep, _never_called)) for ep in ENDPOINTS)


async def _never_called(ep: Endpoint, request: Request) -> Response:
    raise AssertionError(f"{ep.method} {ep.path}: a UI change runs through sandbox.run")


def _user(store: Any, who: Any) -> str:
    """The id of the user ``who`` names, by id or email."""
    if not isinstance(who, str) or not who:
        raise ApiError(400, "user: give the id or email of the person making the change")
    if store.get("user", who) is not None:
        return who
    for user in store.all("user"):
        if str(user.get("email", "")).lower() == who.lower():
            return str(user["id"])
    raise ApiError(400, f"user: no user '{who}' in the sandbox")


def _call(asked: Mapping[str, Any]) -> tuple[str, str]:
    method, path = asked.get("method"), asked.get("path")
    if method not in _METHODS:
        raise ApiError(400, f"method: one of {', '.join(_METHODS)}")
    if not isinstance(path, str) or not path.startswith("/"):
        raise ApiError(400, "path: the API path after /v1, such as /spaces/sp_1")
    return str(method), path.split("?", 1)[0]
