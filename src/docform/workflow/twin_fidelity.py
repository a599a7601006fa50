"""Whether a twin answers as the live service did, in what docform reads: each recorded GET is
read again from the twin, and the fields the kinds declare they read at its route
(`docform.kind_framework.declaration.Reads`) are compared, item by item and in order. A kind
whose fields differ anywhere is one the twin could not load as it was read: the rehearsal
names it and runs none of its changes (`docform.workflow.rehearsal`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.client import ServiceClient
from docform.errors import DocformError
from docform.kind_registry import reads_by_kind


def route_pattern(template: str) -> re.Pattern[str]:
    """A declared GET route (``/orgs/*/teams``, ``*`` one path segment) as a pattern."""
    return re.compile("^" + re.escape(template).replace(r"\*", "[^/]+") + "$")


READS = [
    (kind, route_pattern(template), fields)
    for kind, routes in reads_by_kind().items()
    for template, fields in routes.items()
]


def kinds_of_paths(paths: Iterable[str]) -> list[str]:
    """The kinds that read the GET routes ``paths`` are on, in docform's kind order."""
    wanted = list(paths)
    return list(dict.fromkeys(k for k, pattern, _ in READS if any(map(pattern.match, wanted))))


async def unlike_kinds(client: ServiceClient, reads: Iterable[Any]) -> list[str]:
    """The kinds whose fields the twin behind ``client`` answers otherwise than ``reads``
    (`docform.api.recording.RecordedRead`) recorded, or not at all."""
    unlike: dict[str, None] = {}
    for read in reads:
        readers = [(kind, fields) for kind, p, fields in READS if p.match(read.path)]
        if not readers or all(kind in unlike for kind, _ in readers):
            continue
        try:
            if read.listed:
                again: Any = {"items": await client.list_all(read.path, dict(read.query))}
            else:
                again = await client.get(read.path, params=dict(read.query) or None)
        except DocformError:
            unlike.update(dict.fromkeys(kind for kind, _ in readers))
            continue
        for kind, fields in readers:
            if read_fields(read.body, fields, read.listed) != read_fields(
                again, fields, read.listed
            ):
                unlike[kind] = None
    order = [kind for kind, _, _ in READS]
    return sorted(unlike, key=order.index)


def read_fields(body: Any, fields: Sequence[str], listed: bool) -> list[Any]:
    """What ``fields`` hold in an answer (in each item of a list, in order)."""
    items = body.get("items", []) if listed and isinstance(body, Mapping) else [body]
    return [[_at(item, field.split(".")) for field in fields] for item in items]


def _at(value: Any, steps: list[str]) -> Any:
    if not steps:
        return value
    step, rest = steps[0], steps[1:]
    listed = step.endswith("[]")
    if not isinstance(value, Mapping):
        return None
    inner = value.get(step.removesuffix("[]"))
    if listed:
        return [_at(part, rest) for part in inner] if isinstance(inner, list) else inner
    return _at(inner, rest)
