"""What one attempt of a call may cost: the size of its answer and the time it takes in all.

httpx's timeout bounds each network operation (a connect, one read), so a server that sends a
byte a second never trips it, and it holds a whole answer in memory however large it is
declared. So every attempt also has:

- a deadline: connecting, sending and reading the complete answer take at most
  ``deadline`` seconds (``DOCFORM_API_DEADLINE``, default 120);
- a size cap: an answer larger than ``max_answer_bytes`` (``DOCFORM_API_MAX_ANSWER_MB``,
  default 64 MiB) is refused as soon as it says so (its Content-Length) or grows past it,
  counted after decompression, so a small compressed answer cannot unpack into gigabytes.

Neither is retried: the same server sends the same answer again.

And what a call and a command may cost in all, retries and the waits before them included
(`docform.api.sender` keeps to both): a service that answers 429 with ``Retry-After: 2`` to
every call would otherwise hold one call for a minute and a command for an hour.

- a budget per call: its attempts and waits take at most ``call_seconds``
  (``DOCFORM_API_CALL_SECONDS``, default 300); past it the call fails with its last answer;
- a deadline per command: no call is started or waited for past ``command_seconds`` after the
  command started (``DOCFORM_DEADLINE``, default 3600; `docform.runtime`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from docform import runtime
from docform.api.errors import ApiConfigError
from docform.errors import DocformError

DEADLINE_VARIABLE = "DOCFORM_API_DEADLINE"
MAX_ANSWER_VARIABLE = "DOCFORM_API_MAX_ANSWER_MB"
CALL_SECONDS_VARIABLE = "DOCFORM_API_CALL_SECONDS"
COMMAND_DEADLINE_VARIABLE = "DOCFORM_DEADLINE"
MIB = 1024 * 1024


class AnswerLimitExceeded(Exception):
    """An attempt's answer broke a limit; ``what`` completes "the answer ..."."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class CommandDeadlineExceeded(DocformError):
    """The command ran out of its time (``DOCFORM_DEADLINE``); no further call is made."""


@dataclass(frozen=True)
class AnswerLimits:
    deadline: float = 120.0
    max_answer_bytes: int = 64 * MIB
    call_seconds: float = 300.0
    command_seconds: float = 3600.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AnswerLimits:
        """The limits ``DOCFORM_API_DEADLINE``, ``DOCFORM_API_MAX_ANSWER_MB``,
        ``DOCFORM_API_CALL_SECONDS`` and ``DOCFORM_DEADLINE`` set."""
        limits = cls()

        def seconds(variable: str, default: float, example: str) -> float:
            value = env.get(variable, "")
            return (
                _positive(variable, value, f"seconds (like {example})")
                if value.strip()
                else default
            )

        megabytes = env.get(MAX_ANSWER_VARIABLE, "")
        return cls(
            seconds(DEADLINE_VARIABLE, limits.deadline, "120"),
            int(_positive(MAX_ANSWER_VARIABLE, megabytes, "MiB (like 64)") * MIB)
            if megabytes.strip()
            else limits.max_answer_bytes,
            seconds(CALL_SECONDS_VARIABLE, limits.call_seconds, "300"),
            seconds(COMMAND_DEADLINE_VARIABLE, limits.command_seconds, "3600"),
        )

    def command_left(self) -> float:
        """Seconds the running command may still spend."""
        return self.command_seconds - runtime.command_elapsed()

    def past_deadline(self, what: str) -> CommandDeadlineExceeded:
        """The error of a call not made (or not waited for) because the command's time is up;
        ``what`` says which call."""
        return CommandDeadlineExceeded(
            f"{what} was not made: the command reached its deadline of "
            f"{self.command_seconds:g} s ({COMMAND_DEADLINE_VARIABLE}); the service is too slow "
            "or keeps asking docform to wait. Run the command again later (an apply goes on "
            f"from where it stopped), or raise {COMMAND_DEADLINE_VARIABLE}."
        )

    async def receive(self, http: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        """The complete answer to ``request``, within the deadline and the size cap, and
        within what is left of the command's deadline."""
        left = max(self.command_left(), 0.0)
        try:
            async with asyncio.timeout(min(self.deadline, left)):
                return await self._read_capped(http, request)
        except TimeoutError:
            if left < self.deadline:
                raise AnswerLimitExceeded(
                    f"was not complete when the command reached its deadline of "
                    f"{self.command_seconds:g} s ({COMMAND_DEADLINE_VARIABLE}); the service or "
                    "the network is too slow, or the connection trickles"
                ) from None
            raise AnswerLimitExceeded(
                f"was not complete within {self.deadline:g} s (the deadline of one attempt, "
                f"{DEADLINE_VARIABLE}); the service or the network is too slow, or the "
                "connection trickles"
            ) from None

    async def _read_capped(self, http: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        response = await http.send(request, stream=True)
        try:
            declared = response.headers.get("content-length", "").strip()
            if declared.isdigit() and int(declared) > self.max_answer_bytes:
                raise self._too_large(f"declares {int(declared)} bytes")
            if declared.isdigit() and not _framed_otherwise(response.headers):
                # Read as declared, within the cap: HTTP/1.1 ends such a body at its length
                # (an in-process transport that sends more is caught below). The answer needs
                # no copy without its encoding (a sixth of the client's CPU per call).
                if len(await response.aread()) > self.max_answer_bytes:
                    raise self._too_large("grew past that")
                return response
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > self.max_answer_bytes:
                    raise self._too_large("grew past that")
        finally:
            await response.aclose()
            _unbind(response)
        return _complete(response, bytes(body))

    def _too_large(self, detail: str) -> AnswerLimitExceeded:
        cap = self.max_answer_bytes / MIB
        return AnswerLimitExceeded(
            f"is larger than {cap:g} MiB ({detail}), the most docform reads "
            f"({MAX_ANSWER_VARIABLE} raises it)"
        )


def _unbind(response: httpx.Response) -> None:
    """Give a closed answer its body as its stream. The stream httpx reads it through refers
    back to the answer, a cycle that only the garbage collector frees, and after a plan the
    collector walks its oldest objects rarely: every body read would wait there, whole."""
    try:
        body = response.content
    except httpx.ResponseNotRead:
        body = b""
    response.stream = httpx.ByteStream(body)


def _framed_otherwise(headers: httpx.Headers) -> bool:
    """Whether an answer's body may be longer than its Content-Length says: one sent in chunks
    is read to its last chunk, one compressed unpacks to more."""
    return "transfer-encoding" in headers or "content-encoding" in headers


def _complete(streamed: httpx.Response, body: bytes) -> httpx.Response:
    """A read answer with ``body``, already decoded: its content-encoding is dropped."""
    headers = [
        (name, value)
        for name, value in streamed.headers.multi_items()
        if name.lower() not in ("content-encoding", "content-length")
    ]
    return httpx.Response(
        streamed.status_code,
        headers=headers,
        content=body,
        request=streamed.request,
        extensions=streamed.extensions,
    )


def _positive(name: str, value: str, unit: str) -> float:
    try:
        number = float(value.strip())
    except ValueError:
        number = 0.0
    if not 0 < number < float("inf"):
        raise ApiConfigError(f"{name} must be a positive number of {unit}, not {value!r}")
    return number
