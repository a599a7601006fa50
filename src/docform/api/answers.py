"""Reading what came back: the service's own error message, and what is wrong with a bad answer."""

from __future__ import annotations

import re

import httpx

SNIPPET_CHARS = 120
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def error_message(response: httpx.Response) -> str:
    """The ``error.message`` of an error answer, or a description of an answer without one."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(body.get("message"), str):
            return body["message"]
    reason = response.reason_phrase or "error"
    return f"{reason} ({describe_body(response)}, not the API's error body)"


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
