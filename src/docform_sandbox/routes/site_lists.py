"""Lists of a site's structure (section groups, sections, site spaces), paged in structure
order rather than in creation order, with cursors that hold their place as items come and go."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docform_sandbox.http import Ctx, bad_request, envelope, list_query
from docform_sandbox.store import pack_cursor, unpack_cursor


def page_of(
    ctx: Ctx, items: list[dict[str, Any]], render_item: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """A list answer over ``items`` (already in structure order), with cursors.

    A cursor names the item on each side of the page boundary and the boundary's index, so a
    page stays in place when items come and go: it resumes after the last item shown, else at
    the first item not shown yet, else at the index.
    """
    q = list_query(ctx)
    ids = [item["id"] for item in items]
    start, end = 0, min(len(ids), q.limit)
    if q.page:
        shown_id, unshown_id, index, backwards = _decode_cursor(q.page)
        if backwards:
            end = _resume(ids, shown_id, unshown_id, index, backwards)
            start = max(0, end - q.limit)
        else:
            start = _resume(ids, shown_id, unshown_id, index, backwards)
            end = min(len(ids), start + q.limit)
    shown = items[start:end]
    next_page = previous = None
    if shown and end < len(ids):
        next_page = pack_cursor([ids[end - 1], ids[end], end, 0])
    if shown and start > 0:
        previous = pack_cursor([ids[start], ids[start - 1], start, 1])
    return envelope([render_item(item) for item in shown], len(items), next_page, previous)


def _resume(ids: list[str], shown_id: str, unshown_id: str, index: int, backwards: bool) -> int:
    """Where the boundary a cursor names is now in ``ids``."""
    if shown_id in ids:
        return ids.index(shown_id) + (0 if backwards else 1)
    if unshown_id in ids:
        return ids.index(unshown_id) + (1 if backwards else 0)
    return min(index, len(ids))


def _decode_cursor(cursor: str) -> tuple[str, str, int, bool]:
    try:
        shown_id, unshown_id, index, backwards = unpack_cursor(cursor)
        if not (isinstance(shown_id, str) and isinstance(unshown_id, str)):
            raise ValueError(cursor)
        if type(index) is not int or backwards not in (0, 1):
            raise ValueError(cursor)
        return shown_id, unshown_id, max(index, 0), bool(backwards)
    except (ValueError, TypeError):
        raise bad_request("page: not a cursor this list issued") from None
