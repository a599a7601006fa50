"""The registry of a twin's loaders (`docform_sandbox.twin`): for each GET route of the service,
the loader that turns its recorded answer back into the sandbox's stored documents, and what
the answer watches: the marks of the writes that may change it (`Store.journal`).

A loader stores what the answer shows: the same ids, in the order the answer lists them, with
the fields the route would render them from. What an answer derives (counts, ``urls``, the
caller's ``permissions``) is left out: the routes derive it again. A route no loader is
registered for is not loaded, and the twin says so.

What an answer watches covers every stored document the fields docform reads of it come from
(`docform.kind_framework.declaration.Reads`): a rehearsal takes the recorded answer as the
twin's own while no write since loading marked any of them, and reads the twin otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from docform_sandbox.store import Store

Loader = Callable[[Store, tuple[str, ...], Any], None]
"""Stores one recorded answer: the store, the ids the route's path held, the answer's body."""
Watch = Callable[[tuple[str, ...], Any], Iterable[str]]
"""The marks a recorded answer watches: from the ids its path held and its body."""


@dataclass(frozen=True)
class Route:
    pattern: re.Pattern[str]
    load: Loader
    listed: bool
    newest_first: bool
    """A list the service gives newest first unless its query asks otherwise: its items are
    stored from the last, so that the twin lists them in the same order."""
    watch: Watch | None
    last: bool
    """Loaded after every other answer: it is told apart from what those hold."""


class NotHeld(Exception):
    """An answer the twin cannot hold as the service gave it (a loader raises it before it
    stores anything): the twin names its path as not loaded."""


ROUTES: list[Route] = []
ID = r"([^/]+)"


def loads(
    template: str,
    *,
    listed: bool = True,
    newest_first: bool = True,
    watch: Watch | None = None,
    last: bool = False,
) -> Callable[[Loader], Loader]:
    """Register a loader for the GET route ``template`` (``{}`` for each id of the path);
    ``watch``: what its answers watch (none: a rehearsal always reads the twin again);
    ``last``: loaded after every answer of other routes."""
    pattern = re.compile("^" + template.replace("{}", ID) + "$")

    def register(load: Loader) -> Loader:
        ROUTES.append(Route(pattern, load, listed, listed and newest_first, watch, last))
        return load

    return register


def route_of(path: str, listed: bool) -> tuple[Route, tuple[str, ...]] | None:
    for route in ROUTES:
        found = route.pattern.match(path)
        if found and route.listed == listed:
            return route, found.groups()
    return None


def loaded_last(path: str, listed: bool) -> bool:
    """Whether the answer of ``path`` is loaded after the others (`loads` ``last``)."""
    found = route_of(path, listed)
    return found is not None and found[0].last


def load_answer(store: Store, path: str, query: Mapping[str, Any], body: Any, listed: bool) -> bool:
    """Store one recorded answer with the loader of its route; False when no loader has it."""
    found = route_of(path, listed)
    if found is None:
        return False
    route, ids = found
    if route.newest_first and query.get("order", "desc") == "desc":
        body = {**body, "items": list(reversed(items_of(body)))}
    try:
        route.load(store, ids, body)
    except NotHeld:
        return False
    return True


def watched_by(path: str, body: Any, listed: bool) -> frozenset[str] | None:
    """The marks a recorded answer watches; None when its route declares none (or has no
    loader): a rehearsal then always reads it from the twin again."""
    found = route_of(path, listed)
    if found is None or found[0].watch is None:
        return None
    watch, ids = found[0].watch, found[1]
    return frozenset(watch(ids, body))


# -- marks (`docform_sandbox.store.written_marks`) ----------------------------------------------


def row(kind: str, id: str) -> str:
    """Any write of one document."""
    return f"{kind}#{id}"


def in_org(kind: str, org: str) -> str:
    """Any write of a document of ``kind`` filed under organization ``org``."""
    return f"{kind}@{org}"


def under(kind: str, parent: str) -> str:
    """Any write of a document of ``kind`` filed under ``parent``."""
    return f"{kind}^{parent}"


def each(kind: str, ids: Iterable[Any]) -> list[str]:
    return [row(kind, str(id)) for id in ids if id]


# -- what loaders share ----------------------------------------------------------------------


def items_of(body: Any) -> list[dict[str, Any]]:
    return [item for item in body.get("items", []) if isinstance(item, dict)]


def kept(item: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {name: item[name] for name in fields if name in item}


def insert_new(
    store: Store, kind: str, doc: dict[str, Any], *, org: str | None, parent: str | None = None
) -> None:
    if store.locate(kind, doc["id"]) is None:
        store.insert(kind, doc, org=org, parent=parent)


def org_of(store: Store, kind: str, id: str) -> str:
    doc = store.get(kind, id)
    return str(doc["organization"]) if doc else ""
