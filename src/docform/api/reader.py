"""`AnswerReader`: turns what came back into the value a call returns, or into the `ApiError`
that says what went wrong, for whom, and what to do.

Answers 204 and 205 are None; a DELETE also succeeds with an empty 200 (docs/service.md). A
JSON answer of a read route must fit the shape derived for it (`docform.api.shapes`) before
anyone uses it.
Every message is redacted with the client's token (`docform.untrusted.redact`).
"""

from __future__ import annotations

from typing import Any

import httpx

from docform.api.answers import (
    content_type_misfit,
    envelope_misfit,
    error_message,
    has_api_error_body,
    items_misfit,
    malformed_description,
)
from docform.api.errors import (
    USER_TOKEN_HINT,
    ApiStatusError,
    ApiTransportError,
    MalformedAnswerError,
    status_hint,
    transport_hint,
)
from docform.api.retry import asked_wait
from docform.api.scopes import need_of
from docform.api.sender import Call
from docform.api.shapes import RouteShapes
from docform.api.urls import API_PREFIX
from docform.untrusted.json_depth import deeper_than
from docform.untrusted.lookalikes import escape_controls
from docform.untrusted.paths import answer_ids_misfit
from docform.untrusted.redact import redact_text

UNAUTHORIZED = 401
FORBIDDEN = 403

MAX_ANSWER_DEPTH = 64
"""No answer of the API nests a tenth as deep; deeper ones would overflow what walks them."""


class AnswerReader:
    """Reads the answers of one client, whose ``token`` no message may show."""

    def __init__(self, token: str, root_url: str, shapes: RouteShapes | None = None) -> None:
        self._token = token
        self.root_url = root_url
        self.shapes = shapes or RouteShapes()

    def decode(self, call: Call, response: httpx.Response) -> Any:
        """The parsed JSON of a 2xx answer, None for an empty one; raises for anything else."""
        status = response.status_code
        if not 200 <= status < 300:
            raise self.status_error(call, response)
        if status in (204, 205):
            return None
        if not response.content.strip():
            if call.method == "DELETE":
                return None
            raise self.malformed(call, response, "is empty")
        try:
            answer = response.json()
        except ValueError as exc:
            raise self.malformed(call, response, malformed_description(response, exc)) from None
        except RecursionError:
            answer = None
            too_deep = True
        else:
            too_deep = deeper_than(answer, MAX_ANSWER_DEPTH)
        if too_deep:
            raise self.malformed(call, response, f"nests deeper than {MAX_ANSWER_DEPTH} levels")
        wrong_label = content_type_misfit(response)
        if wrong_label:
            raise self.malformed(call, response, wrong_label)
        if call.method == "GET":
            self.check_object(call.path, answer)
        problem = answer_ids_misfit(answer, typed=call.method != "GET")
        if problem:
            raise self.unsafe_id(call, problem)
        return answer

    def status_error(self, call: Call, response: httpx.Response) -> ApiStatusError:
        status = response.status_code
        # Read as the service's refusal of the token's kind only on a route that takes a user's
        # token alone: elsewhere a 401 is a bad token.
        refused_kind = status == UNAUTHORIZED and need_of(call.method, call.path).user_only
        api_message = error_message(response).strip().rstrip(".")
        parts = [f"{call.lead}: {status} {api_message}."]
        if call.note:
            parts.append(f"{call.note}.")
        if 300 <= status < 400:
            # Where an answer redirects is the answer's word, not the service's address: it is
            # neither followed nor suggested (it could be anyone's, or plain http).
            parts.append(
                "The answer redirects elsewhere, which docform does not follow; set "
                "DOCFORM_API_URL to the service's root URL as its documentation gives it."
            )
        parts.append(USER_TOKEN_HINT if refused_kind else status_hint(status, call.method))
        return ApiStatusError(
            self.redact(" ".join(p for p in parts if p)),
            method=call.method,
            path=call.path,
            status=status,
            api_message=self.redact(api_message),
            retry_after=asked_wait(response.headers, status),
            denied=status == FORBIDDEN and has_api_error_body(response),
            refused_kind=refused_kind,
        )

    def transport_error(self, call: Call, exc: httpx.TransportError) -> ApiTransportError:
        detail = str(exc) or "no detail"
        message = (
            f"{call.lead}: no answer from {self.root_url} ({type(exc).__name__}: {detail}). "
            f"{transport_hint(call.method)}"
        )
        return ApiTransportError(self.redact(message), method=call.method, path=call.path)

    def limit_error(self, call: Call, what: str) -> ApiTransportError:
        """An answer refused for its size or its slowness (`docform.api.limits`); the call may
        have been done, so it is reported as an answer that did not come back."""
        message = f"{call.lead}: the answer {what}. {transport_hint(call.method)}"
        return ApiTransportError(self.redact(message), method=call.method, path=call.path)

    def unsafe_id(self, call: Call, problem: str) -> MalformedAnswerError:
        """An answer whose id could not be put into a path without leaving its route."""
        message = (
            f"{call.lead}: the answer holds an id docform cannot use: {problem}. docform puts "
            "ids into the paths of later calls, so it uses nothing from this answer; the "
            "service or something between it and docform sent a bad answer."
        )
        return MalformedAnswerError(
            self.redact(message), method=call.method, path=call.path, status=None
        )

    def malformed(self, call: Call, response: httpx.Response, what: str) -> MalformedAnswerError:
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        message = (
            f"{call.lead}: the answer ({response.status_code}, {kind}) {what}. Check that "
            f"DOCFORM_API_URL is the service's API root (docform adds {API_PREFIX}), not a "
            "website or a sign-in page; if it is, the answer was cut short: try again."
        )
        return MalformedAnswerError(
            self.redact(message), method=call.method, path=call.path, status=response.status_code
        )

    def list_items(self, path: str, page: Any, number: int) -> list[dict[str, Any]]:
        """The items of page ``number`` of a list, once the page and its items fit the API."""
        problem = envelope_misfit(page)
        if problem:
            raise self.malformed_list(path, f"{problem}; is {path} a list endpoint?")
        problem = items_misfit(page["items"], self.shapes.item_shape("/" + path.lstrip("/")))
        if problem:
            raise self.unfit(path, f"does not fit the API: {problem}", number)
        items: list[dict[str, Any]] = page["items"]
        for index, item in enumerate(items):
            problem = answer_ids_misfit(item, f"items[{index}]")
            if problem:
                raise self.unfit(path, f"holds an id docform cannot use: {problem}", number)
        return items

    def check_object(self, path: str, answer: Any) -> None:
        problem = self.shapes.object_misfit(path, answer)
        if problem:
            raise self.unfit(path, f"does not fit the API: {problem}")

    def malformed_list(self, path: str, what: str) -> MalformedAnswerError:
        message = f"GET {path} failed: the answer {what}"
        return MalformedAnswerError(self.redact(message), method="GET", path=path)

    def unfit(self, path: str, what: str, page: int = 1) -> MalformedAnswerError:
        """A JSON answer of ``GET path`` that docform cannot trust (see `docform.api.shapes`)."""
        path = "/" + path.lstrip("/")
        answer = "the answer" if page == 1 else f"the answer of page {page}"
        message = (
            f"GET {path} failed: {answer} {what}. docform plans nothing from an answer it "
            f"cannot trust; check that DOCFORM_API_URL is the service's API root (docform adds "
            f"{API_PREFIX}) and try again."
        )
        return MalformedAnswerError(self.redact(message), method="GET", path=path)

    def redact(self, text: str) -> str:
        """``text`` (which may quote the service) without the token, and with the service's
        control characters escaped: its ``\\r`` or newline could forge a line of output."""
        return escape_controls(redact_text(text, (self._token,)))
