"""A log of every API exchange the sandbox answers, for the test suite's contract check.

When ``DOCFORM_SANDBOX_EXCHANGE_LOG`` names a file, each app `create_app` builds (and each
in-process transport, for the requests it hands to an endpoint itself) appends one JSON line
per ``/v1`` request it answered: the method, path, query, request body, status and
answer body. The test suite sets it for every process it starts (a subprocess inherits it), and
checks each exchange against the service's published definition (tests/contract/). Unset, the
app is built without it. The control routes (``/_sandbox/*``) are not the service's: not logged.
A request whose body the sandbox answered without reading (a fault, the rate limit) is logged
with ``"request": null``: what it sent is unknown.

The line is written before the answer's last byte is sent, so a client holding an answer finds
its exchange in the log. Headers are never logged (the bearer token is one), but for the
``User-Agent``: it tells docform's own requests from those a test sends directly.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOG_VARIABLE = "DOCFORM_SANDBOX_EXCHANGE_LOG"
API_PREFIX = "/v1/"


def exchange_log() -> Path | None:
    """The file named by ``DOCFORM_SANDBOX_EXCHANGE_LOG``, or None when it is unset."""
    named = os.environ.get(LOG_VARIABLE, "")
    return Path(named) if named else None


class ExchangeLog:
    """ASGI middleware appending each ``/v1`` exchange to ``path`` as one JSON line."""

    def __init__(self, app: ASGIApp, path: Path) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope["path"]).startswith(API_PREFIX):
            await self.app(scope, receive, send)
            return
        request: list[bytes] = []
        answer: list[bytes] = []
        status: list[int] = []
        read_whole: list[bool] = []

        async def receiving() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                request.append(message.get("body", b""))
                if not message.get("more_body", False):
                    read_whole.append(True)
            return message

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            elif message["type"] == "http.response.body":
                answer.append(message.get("body", b""))
                if not message.get("more_body", False):
                    body = b"".join(request) if read_whole else None
                    log_exchange(self.path, scope, body, status[0], b"".join(answer))
            await send(message)

        await self.app(scope, receiving, sending)


# One lock per process: the apps of served sandboxes in threads and in-process ones share the
# file, and a line must never interleave with another (O_APPEND keeps processes apart).
_lock = threading.Lock()


def log_exchange(
    path: Path, scope: Scope, request: bytes | None, status: int, answer: bytes
) -> None:
    """Appends one exchange to the log at ``path``: ``request`` is the body the sandbox read
    whole, or None; ``scope`` is the request's ASGI scope."""
    line = {
        "method": scope["method"],
        "path": scope["path"],
        "query": bytes(scope.get("query_string", b"")).decode("latin-1"),
        "request": None if request is None else request.decode("utf-8", "replace"),
        "status": status,
        "answer": answer.decode("utf-8", "replace"),
        "client": _user_agent(scope),
    }
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    with _lock:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            while data:
                data = data[os.write(descriptor, data) :]
        finally:
            os.close(descriptor)


def _user_agent(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"user-agent":
            return bytes(value).decode("latin-1")
    return ""
