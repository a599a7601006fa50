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
        start = _resume(ids, *_decode_cursor(q.page))
        end = min(len(ids), start + q.limit)
    shown = items[start:end]
    next_page = None
    if shown and end < len(ids):
        next_page = pack_cursor([ids[end - 1], ids[end], end])
    return envelope([render_item(item) for item in shown], len(items), next_page)


def _resume(ids: list[str], shown_id: str, unshown_id: str, index: int) -> int:
    """Where the boundary a cursor names is now in ``ids``."""
    if shown_id in ids:
        return ids.index(shown_id) + 1
    if unshown_id in ids:
        return ids.index(unshown_id)
    return min(index, len(ids))


def _decode_cursor(cursor: str) -> tuple[str, str, int]:
    try:
        shown_id, unshown_id, index = unpack_cursor(cursor)
        if not (isinstance(shown_id, str) and isinstance(unshown_id, str)):
            raise ValueError(cursor)
        if type(index) is not int:
            raise ValueError(cursor)
        return shown_id, unshown_id, max(index, 0)
    except (ValueError, TypeError):
        raise bad_request("page: not a cursor this list issued") from None
