"""The errors of API calls: one base class, `ApiError`, and a subclass per way a call fails.

Every message names the call (``GET /orgs/org_acme/teams``, the path relative to ``/v1``),
what went wrong, and what the user can do about it. Messages are built already redacted: the
token and URL credentials never reach an error (see `docform.untrusted.redact`).
"""

from __future__ import annotations

from docform.errors import ServiceCallError

HINTS = {
    400: "The service refused the request as invalid; check the value the message names.",
    401: "Check that DOCFORM_API_TOKEN is set to a valid, unexpired API token for this service.",
    403: (
        "Check that DOCFORM_API_TOKEN belongs to a member of the organization with a role "
        "allowed to do this (most changes need admin)."
    ),
    404: (
        "Check the ids in the path: the object does not exist, or the token's user cannot see it."
    ),
    409: (
        "The live organization conflicts with this change; run docform plan again to see "
        "its current state."
    ),
    412: "The object changed since it was read; run docform plan again to see its current state.",
}
USER_TOKEN_HINT = (
    "The service takes this call from a user's API token only, and this token is of another "
    "kind (an integration's, say); use a user's token to make it."
)
SERVER_HINT = "The service failed; try again later."
RATE_LIMIT_HINT = (
    "The API's rate limit was still exceeded; lower the number of concurrent calls or try "
    "again later."
)
POST_HINT = (
    "POST calls are never retried automatically because the service may have done the work; "
    "run docform plan to see whether it did."
)


class ApiError(ServiceCallError):
    """A call to the API failed; ``method``, ``path`` and (for HTTP answers) ``status`` say which.

    ``status`` is None when no HTTP answer came back (connection failures, read-only refusal).
    """

    def __init__(self, message: str, *, method: str, path: str, status: int | None = None):
        super().__init__(message)
        self.message = message
        self.method = method
        self.path = path
        self.status = status


class ApiStatusError(ApiError):
    """The service answered with an error status; ``api_message`` is its own explanation."""

    def __init__(
        self,
        message: str,
        *,
        method: str,
        path: str,
        status: int,
        api_message: str,
        retry_after: float | None = None,
        denied: bool = False,
        refused_kind: bool = False,
    ):
        super().__init__(message, method=method, path=path, status=status)
        self.api_message = api_message
        self.retry_after = retry_after
        self.denied = denied or refused_kind
        self.refused_kind = refused_kind


class ApiTransportError(ApiError):
    """No answer came back (connection refused or dropped, timeout), after any retries."""

    answer_lost = True


class MalformedAnswerError(ApiError):
    """An answer that is not what the API sends: an HTML page, truncated JSON, a bad list."""


class ReadOnlyError(ApiError):
    """A call other than GET through a read-only client; it was refused before being sent."""


class ApiConfigError(ApiError):
    """DOCFORM_API_URL or DOCFORM_API_TOKEN is missing or unusable; nothing was sent."""

    def __init__(self, message: str):
        super().__init__(message, method="", path="")


def status_hint(status: int, method: str) -> str:
    """What the user can do about an error answer with ``status``."""
    if status == 429:
        hint = RATE_LIMIT_HINT
    elif status >= 500:
        hint = SERVER_HINT
    else:
        return HINTS.get(status, "")
    return f"{hint} {POST_HINT}" if method == "POST" else hint


def transport_hint(method: str) -> str:
    """What the user can do when no answer came back."""
    hint = "Check the network and that DOCFORM_API_URL points at the service's root."
    return f"{hint} {POST_HINT}" if method == "POST" else hint
