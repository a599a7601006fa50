"""Ids from answers go into paths: each must be one safe path segment, and paths are sent as
segments, escaped.

An id is only ever data the service sent. One like ``../../org_beta/teams/t1`` (a misbehaving
or compromised answer) would otherwise turn ``DELETE /orgs/org_acme/teams/{id}`` into a call on
another organization once the path is normalised. So:

- `id_misfit` says why an id read from an answer is not a single safe segment (the reader
  refuses such an answer before anyone uses it; `docform.api.shapes` may call it too);
- `api_path` is what the client sends: a path whose every segment is escaped, refusing empty,
  ``.`` and ``..`` segments, so nothing can climb out of the route a caller built;
- `path_segments` is how a path is compared (the organization scope rail), segment by segment,
  never as a string prefix.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from docform.errors import DocformError

_SEGMENT = re.compile(r"[A-Za-z0-9._~-]+")
# The characters an id may hold unescaped: RFC 3986's unreserved ones.
_UNRESERVED = "-._~"
ID_FIELDS = ("id", "slug")
"""Fields of answers whose values docform puts into paths."""


class UnsafePathError(DocformError):
    """A path with an empty, ``.`` or ``..`` segment; refused before sending."""


def id_misfit(value: Any) -> str | None:
    """Why ``value`` cannot be one path segment, or None when it can."""
    if not isinstance(value, str):
        return None  # the shape check names the wrong type
    if _SEGMENT.fullmatch(value) and value not in (".", ".."):
        return None
    glimpse = value if len(value) <= 40 else value[:37] + "..."
    return (
        f"is {glimpse!r}, not a single path segment (letters, digits and - _ . ~ only, "
        "and not . or ..)"
    )


def answer_ids_misfit(answer: Any, where: str = "", *, typed: bool = False) -> str | None:
    """The first id of an answer object (``id``, ``slug``) that is not a safe segment.

    ``typed``: an id that is there must also be a string (in the answer of a write, which no
    shape check reads first: a create answering ``"id": null`` would put ``None`` in a path)."""
    if not isinstance(answer, dict):
        return None
    for name in ID_FIELDS:
        value = answer.get(name)
        if typed and name in answer and not isinstance(value, str):
            problem: str | None = f"is {json.dumps(value)[:40]}, not a string"
        else:
            problem = id_misfit(value)
        if problem:
            return f"{where}.{name} {problem}" if where else f"{name} {problem}"
    return None


def path_segments(path: str) -> list[str]:
    """The segments of ``/a/b/c``; raises `UnsafePathError` for an empty, ``.`` or ``..`` one."""
    segments = path.strip("/").split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise UnsafePathError(
            f"the path {path!r} holds an empty, '.' or '..' segment; docform never sends "
            "such a path (an id from an answer would have climbed out of its route). This is "
            "a bug in docform or a hostile answer; please report it."
        )
    return segments


def api_path(path: str) -> str:
    """``path`` as sent: each segment percent-escaped (``%``, ``#``, spaces...); a query a
    caller wrote after ``?`` is kept as written (ids never hold ``?``: `id_misfit`)."""
    route, mark, query = path.partition("?")
    segments = path_segments(route)
    return "/" + "/".join(quote(segment, safe=_UNRESERVED) for segment in segments) + mark + query
