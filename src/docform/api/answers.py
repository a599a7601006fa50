"""Reading what came back: the service's own error message, and what is wrong with a bad answer
(an HTML page, JSON cut short, a list envelope or an object that does not fit the API)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from docform.api.shapes import describe, misfit
from docform.service.answer_fields import Field

SNIPPET_CHARS = 120
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def error_message(response: httpx.Response) -> str:
    """The ``error.message`` of an error answer, or a description of an answer without one."""
    message = _api_message(response)
    if message is not None:
        return message
    reason = response.reason_phrase or "error"
    return f"{reason} ({describe_body(response)}, not the API's error body)"


def has_api_error_body(response: httpx.Response) -> bool:
    """Whether an error answer carries the API's error body (not a proxy's page)."""
    return _api_message(response) is not None


def _api_message(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except (ValueError, RecursionError):
        return None
    if isinstance(body, dict):
        error = body.get("error")
        nested = error.get("message") if isinstance(error, dict) else None
        for message in (nested, body.get("message")):
            if isinstance(message, str):
                return message
    return None


def describe_body(response: httpx.Response) -> str:
    """A short, printable account of an answer's body: an HTML page, empty, or its start."""
    text = response.text.strip()
    if not text:
        return "an empty answer"
    if is_html(response, text):
        title = _HTML_TITLE.search(text)
        if title:
            return f"an HTML page titled {_squeeze(title.group(1))!r}"
        return "an HTML page"
    return f"an answer starting {_squeeze(text)!r}"


def malformed_description(response: httpx.Response, exc: ValueError) -> str:
    """Why a 2xx answer could not be read as JSON, for ``the answer (200, type) ...``."""
    text = response.text.strip()
    if is_html(response, text):
        return f"is {describe_body(response)}, not JSON"
    if text[:1] in ("{", "["):
        return f"is JSON cut short or broken after {len(response.content)} bytes ({exc})"
    return f"is not JSON: {describe_body(response)}"


def is_html(response: httpx.Response, text: str) -> bool:
    kind = response.headers.get("content-type", "")
    return "html" in kind or text[:15].lower().startswith(("<!doctype html", "<html"))


def _squeeze(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 3] + "..."


def content_type_misfit(response: httpx.Response) -> str | None:
    """Why a JSON body labelled as something else is refused (a proxy's or a website's answer),
    or None for ``application/json``, ``...+json`` or no label at all."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not kind or "json" in kind:
        return None
    return f"is labelled {kind}, not application/json"


def envelope_misfit(page: Any) -> str | None:
    """What is wrong with one page of a list as an envelope ``{next?, count, items}``."""
    if not isinstance(page, dict) or "items" not in page:
        return "is not a list (no 'items' array)"
    if not isinstance(page["items"], list):
        return f"is not a list ('items' is {describe(page['items'])})"
    following = page.get("next")
    if following is not None and not _is_cursor(following):
        return f"has a 'next' that is {describe(following)}, not {{page: CURSOR}}"
    count = page.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        return f"has a 'count' that is {describe(count)}, not a number"
    return None


def items_misfit(items: list[Any], shape: Mapping[str, Field] | None) -> str | None:
    """The first item of a page that does not fit ``shape``, and why; None when all fit."""
    if shape is None:
        return None
    for index, item in enumerate(items):
        problem = misfit(item, shape, f"items[{index}]")
        if problem:
            return problem
    return None


def count_misfit(page: Mapping[str, Any], read: int) -> str | None:
    """The last page's ``count`` is the size of the whole list (docs/service.md); fewer or
    more items mean a list that was cut short or changed while it was read."""
    count = page.get("count")
    if count is None or count == read:
        return None
    return (
        f"said the list holds {count} objects, but its pages held {read} (cut short, or "
        "changed while it was read; run the command again)"
    )


def _is_cursor(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("page"), str) and bool(value["page"])
