"""The root of docform's exceptions: each area raises its own subclass with an actionable message.

The CLI prints any `DocformError` as ``Error: <message>`` and exits 1; anything else is a bug.
"""


class DocformError(Exception):
    """A problem the user can act on; ``str()`` says what is wrong, where, and what to do."""


class ServiceCallError(DocformError):
    """A call to the service failed; ``status`` is the HTTP status, or None without an answer.

    `docform.api` raises its subclasses; the engine catches this class, so it reads and applies
    through any client without importing one.
    """

    status: int | None = None
    answer_lost: bool = False
    """No answer came back (a dropped connection, a timeout): the call may or may not have run."""
    denied: bool = False
    """The API itself answered that this token may not make this call (403 with its own error
    body; a proxy's sign-in page is no such answer), or refused its kind (`refused_kind`)."""
    refused_kind: bool = False
    """The API answered 401 to a call it takes from a user's token only: the token is of
    another kind (an integration's), and no call of that sort will be accepted from it."""
