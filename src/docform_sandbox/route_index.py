"""Finding a request's route by its method and the literal segments of its path.

Starlette's router tries each route's pattern in turn, and the sandbox has over a hundred:
that search was most of the CPU the in-process sandbox spent routing a request. This router
first looks up the routes that could answer the request in full (its method, its number of
path segments, the segments that are literal in the route's path) and tries only those, in
the routes' order, so the route Starlette would take is the one taken. A request none of them
answers in full (a 404, a 405, a slash to redirect) goes through Starlette's own search, so
those answers stay Starlette's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from starlette._utils import get_route_path
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import Receive, Scope, Send

Shape = tuple[str, int]
"""A method and a number of path segments."""
Literals = tuple[int, ...]
"""The positions of the segments a route's path spells out (not parameters)."""


class IndexedRouter(Router):
    """A `Router` that tries, for each request, only the routes its index names, then
    ``rest`` (routes few requests take, such as the sandbox's own controls)."""

    def __init__(self, index: RouteIndex, rest: Sequence[BaseRoute] = ()) -> None:
        super().__init__([*index.order, *rest])
        self.index = index
        self.rest = list(rest)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = get_route_path(scope)
            for route in [*self.index.candidates(scope["method"], path), *self.rest]:
                match, child_scope = route.matches(scope)
                if match is Match.FULL:
                    scope.setdefault("router", self)
                    scope["route"] = route
                    scope.update(child_scope)
                    await route.handle(scope, receive, send)
                    return
        await super().app(scope, receive, send)


class RouteIndex:
    """The routes by method, segment count and literal segments; a route whose path a
    parameter may span several segments of (``{rest:path}``) is a candidate for every path.
    Built once for routes shared by many apps: building it costs as much as a few requests."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.literals: dict[Shape, set[Literals]] = defaultdict(set)
        self.routes: dict[tuple[Shape, Literals, tuple[str, ...]], list[int]] = defaultdict(list)
        self.everywhere: list[int] = []
        self.order = list(routes)
        for position, route in enumerate(self.order):
            if not _placeable(route):
                self.everywhere.append(position)
                continue
            assert isinstance(route, Route) and route.methods
            segments = route.path.split("/")
            literals = tuple(i for i, segment in enumerate(segments) if "{" not in segment)
            spelled = tuple(segments[i] for i in literals)
            for method in route.methods:
                shape = (method, len(segments))
                self.literals[shape].add(literals)
                self.routes[shape, literals, spelled].append(position)

    def candidates(self, method: str, path: str) -> list[BaseRoute]:
        """The routes that may answer ``method path`` in full, in the routes' order."""
        if "\n" in path:
            # A route's pattern ends in ``$``, which also matches before a final newline.
            return self.order
        segments = path.split("/")
        shape = (method, len(segments))
        positions = list(self.everywhere)
        for literals in self.literals.get(shape, ()):
            spelled = tuple(segments[i] for i in literals)
            positions += self.routes.get((shape, literals, spelled), ())
        return [self.order[p] for p in sorted(positions)]


def _placeable(route: Any) -> bool:
    """Whether each parameter of the route's path matches within one segment."""
    return isinstance(route, Route) and bool(route.methods) and ":path}" not in route.path
