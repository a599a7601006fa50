"""Fault injection: the sandbox fails some API requests on purpose, for reliability tests.

A fault spec is a comma-separated list of rules ``KIND:PROBABILITY[@[METHOD:]PATH-GLOB][#COUNT]``,
for example ``500:0.07,429:0.04,lost:0.02@POST:/orgs/*/teams``.

KIND, and what the sandbox does instead of its normal answer:

- ``500``, ``502``, ``503``, ``504``: answers that status with the API's error body, before the
  request is processed (nothing is written);
- ``429``: answers 429 with ``Retry-After: 1`` (``retry_after`` seconds), before the request
  is processed;
- ``drop``: closes the connection before the request is processed (nothing is written);
- ``lost``: processes the request (a write is committed), then closes the connection without
  an answer;
- ``slow``: processes the request, then holds the answer back for ``slow_seconds`` (default
  35 s, longer than docform's 30 s client timeout), so the client gives up first.

PROBABILITY is a number from 0 to 1. The rules share one random draw per API request: rule
``i`` fires when the draw falls in its slice ``[p1 + ... + p(i-1), p1 + ... + pi)`` of the rules
that apply to the request, so ``500:0.07,429:0.04`` fails 7 % of the requests with 500 and 4 %
with 429. Probabilities that add up to more than 1 starve the later rules.

``@METHOD:PATH-GLOB`` limits a rule to one route. METHOD is an HTTP method or ``*`` (the default
when only ``@PATH-GLOB`` is given). PATH-GLOB is matched against the path after ``/v1``, without
the query, segment by segment: ``*`` is exactly one segment (``/orgs/*/teams`` matches
``/orgs/org_acme/teams``, not ``/orgs/org_acme/teams/t1``), ``**`` is any number of segments,
zero included (``/orgs/**`` matches ``/orgs`` and everything under it); inside a segment the
``fnmatch`` wildcards work (``team*``, ``?``, ``[...]``).

``#COUNT`` limits a rule to some of the requests it matches, counted from 1 since the faults
were set: ``#3`` only the 3rd, ``#2-4`` the 2nd to the 4th, ``#3-`` the 3rd and every later
one. With probability 1 this fails a chosen call deterministically: ``500:1@POST:/orgs/*/spaces#3``
fails the third space creation and no other request.

Reproducibility: the draws come from ``random.Random(seed)``, one per API request in the order
requests reach the sandbox (no seed: a random one). Concurrent requests can reach it in a
different order from run to run, so with concurrency a seed reproduces the sequence of faults,
not which call each one hits; ``#COUNT`` rules have the same caveat.

Faults never touch ``/_sandbox/*``, and the rules only see requests that name an API route.
Over HTTP, a closed connection is emulated by starting an answer and closing the connection
before its body (an HTTP client reports a protocol error, as for any connection cut mid-answer);
in-process, `docform_sandbox.transport.SandboxTransport` turns the same event into
``httpx.RemoteProtocolError``.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import random
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from docform.errors import DocformError
from docform_sandbox.http import ApiError

STATUS_KINDS = ("500", "502", "503", "504", "429")
FAULT_KINDS = (*STATUS_KINDS, "drop", "lost", "slow")
DEFAULT_SLOW_SECONDS = 35.0
RETRY_AFTER_SECONDS = 1
ENV_FAULTS = "DOCFORM_SANDBOX_FAULTS"
ENV_SEED = "DOCFORM_SANDBOX_FAULT_SEED"
ENV_SLOW = "DOCFORM_SANDBOX_SLOW_SECONDS"
ENV_RETRY_AFTER = "DOCFORM_SANDBOX_RETRY_AFTER"

MESSAGES = {
    "500": "Internal server error (fault injected by the sandbox)",
    "502": "Bad gateway (fault injected by the sandbox)",
    "503": "Service unavailable (fault injected by the sandbox)",
    "504": "Gateway timeout (fault injected by the sandbox)",
    "429": "API rate limit exceeded (fault injected by the sandbox)",
}
RULE = re.compile(
    r"^(?P<kind>[^:@#]+):(?P<probability>[^@#]+)(?:@(?P<route>[^#]+))?(?:#(?P<count>[^#]*))?$"
)
COUNT = re.compile(r"^(?P<first>[1-9][0-9]*)(?P<range>-(?P<last>[1-9][0-9]*)?)?$")
METHOD = re.compile(r"^(\*|[A-Z]+)$")


class FaultSpecError(DocformError, ValueError):
    """A fault spec that cannot be read; the message names the rule and what is wrong."""


class ConnectionHangup(Exception):
    """Raised by the app to close the connection without an answer (``drop`` and ``lost``)."""


@dataclass(frozen=True)
class FaultRule:
    """One ``KIND:PROBABILITY@METHOD:PATH-GLOB#COUNT`` rule."""

    kind: str
    probability: float
    method: str = "*"
    glob: str = "/**"
    first: int = 1
    last: int | None = None

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and path_matches(self.glob, path)

    def counts(self, nth: int) -> bool:
        """Whether the ``nth`` request this rule matches is one it may fail."""
        return nth >= self.first and (self.last is None or nth <= self.last)


@dataclass(frozen=True)
class FaultSettings:
    """What to inject: the spec as written, its rules, the seed, the delay of ``slow`` and the
    ``Retry-After`` of ``429`` (whole seconds, as the header takes; 0 for fast tests)."""

    spec: str = ""
    seed: int | None = None
    slow_seconds: float = DEFAULT_SLOW_SECONDS
    retry_after: int = RETRY_AFTER_SECONDS
    rules: tuple[FaultRule, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.slow_seconds < 0:
            raise FaultSpecError(f"slow seconds must be 0 or more, not {self.slow_seconds}")
        if self.retry_after < 0:
            raise FaultSpecError(f"retry after must be 0 or more seconds, not {self.retry_after}")
        object.__setattr__(self, "rules", parse_fault_spec(self.spec))

    def as_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "seed": self.seed,
            "slowSeconds": self.slow_seconds,
            "retryAfter": self.retry_after,
        }


def parse_fault_spec(spec: str) -> tuple[FaultRule, ...]:
    """The rules of ``spec`` (see the module docstring); raises `FaultSpecError`."""
    return tuple(_parse_rule(item.strip()) for item in spec.split(",") if item.strip())


def _parse_rule(text: str) -> FaultRule:
    found = RULE.match(text)
    if found is None:
        raise FaultSpecError(f"fault rule {text!r}: write KIND:PROBABILITY[@METHOD:PATH][#N]")
    kind = found["kind"].strip().lower()
    if kind not in FAULT_KINDS:
        raise FaultSpecError(
            f"fault rule {text!r}: unknown kind {kind!r}; use one of {', '.join(FAULT_KINDS)}"
        )
    method, glob = _parse_route(text, found["route"])
    first, last = _parse_count(text, found["count"])
    probability = _parse_probability(text, found["probability"])
    return FaultRule(kind, probability, method, glob, first, last)


def _parse_probability(text: str, value: str) -> float:
    try:
        probability = float(value)
    except ValueError:
        probability = -1.0
    if not 0.0 <= probability <= 1.0:
        raise FaultSpecError(f"fault rule {text!r}: the probability must be a number from 0 to 1")
    return probability


def _parse_route(text: str, route: str | None) -> tuple[str, str]:
    if route is None:
        return "*", "/**"
    route = route.strip()
    method, glob = route.split(":", 1) if ":" in route else ("*", route)
    method, glob = method.strip().upper(), glob.strip()
    if not METHOD.match(method) or not glob.startswith("/"):
        raise FaultSpecError(
            f"fault rule {text!r}: the route must be METHOD:/path/glob (or /path/glob), "
            "the path as after /v1"
        )
    return method, glob


def _parse_count(text: str, count: str | None) -> tuple[int, int | None]:
    if count is None:
        return 1, None
    found = COUNT.match(count.strip())
    if found is None:
        raise FaultSpecError(f"fault rule {text!r}: write the count as #N, #N-M or #N-")
    first = int(found["first"])
    if not found["range"]:
        return first, first
    last = int(found["last"]) if found["last"] else None
    if last is not None and last < first:
        raise FaultSpecError(f"fault rule {text!r}: the count range ends before it starts")
    return first, last


def path_matches(glob: str, path: str) -> bool:
    """Whether ``path`` matches ``glob``: ``*`` one segment, ``**`` any number of segments."""
    return _segments_match(_segments(glob), _segments(path))


def _segments(path: str) -> list[str]:
    return [part for part in path.split("?", 1)[0].split("/") if part]


def _segments_match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_segments_match(rest, parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], head) and _segments_match(rest, parts[1:])


class FaultInjector:
    """Decides, request by request, which fault (if any) the sandbox injects."""

    def __init__(self, settings: FaultSettings | None = None) -> None:
        self.settings = settings or FaultSettings()
        self._rng = random.Random(self.settings.seed)
        self._seen = [0] * len(self.settings.rules)
        # The served sandbox may answer from several threads; draws must not interleave.
        self._lock = threading.Lock()

    def decide(self, method: str, path: str) -> str | None:
        """The fault kind for ``METHOD path`` (the path after ``/v1``), or None."""
        if not self.settings.rules:
            return None
        with self._lock:
            draw = self._rng.random()
            floor, chosen = 0.0, None
            for i, rule in enumerate(self.settings.rules):
                if not rule.matches(method, path):
                    continue
                self._seen[i] += 1
                if not rule.counts(self._seen[i]):
                    continue
                if chosen is None and draw < floor + rule.probability:
                    chosen = rule.kind
                floor += rule.probability
            return chosen


def answer_instead(kind: str, retry_after: int = RETRY_AFTER_SECONDS) -> Response | None:
    """What a fault answers before the request is processed; None when it is processed."""
    if kind in STATUS_KINDS:
        status = int(kind)
        headers = {"Retry-After": str(retry_after)} if status == 429 else None
        return ApiError(status, MESSAGES[kind], headers).response()
    if kind == "drop":
        return Hangup()
    return None


def answer_after(kind: str | None, response: Response) -> Response:
    """What a fault makes of the answer of a processed request (``lost`` hangs up)."""
    return Hangup() if kind == "lost" else response


HANGUP = "the sandbox closed the connection (injected fault)"


class Hangup(Response):
    """Closes the connection without an answer.

    ASGI has no "close the socket" message, so this starts an answer whose body never comes
    and raises `ConnectionHangup`: the HTTP server then closes the connection mid-answer, and
    the in-process transport turns the exception into a connection error.
    """

    def __init__(self) -> None:
        super().__init__(status_code=200, headers={"content-length": "1"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        raise ConnectionHangup(HANGUP)


class HangupLogFilter(logging.Filter):
    """Keeps an HTTP server's error log free of the tracebacks of injected hangups."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionHangup)


def settings_from_env(environ: Mapping[str, str] | None = None) -> FaultSettings:
    """Fault settings of the in-process sandbox: ``DOCFORM_SANDBOX_FAULTS`` (a spec),
    ``DOCFORM_SANDBOX_FAULT_SEED`` (an integer), ``DOCFORM_SANDBOX_SLOW_SECONDS`` and
    ``DOCFORM_SANDBOX_RETRY_AFTER`` (whole seconds)."""
    env = os.environ if environ is None else environ
    spec = env.get(ENV_FAULTS, "")
    seed = _env_number(env, ENV_SEED, int)
    slow = _env_number(env, ENV_SLOW, float)
    retry_after = _env_number(env, ENV_RETRY_AFTER, int)
    try:
        return FaultSettings(
            spec,
            seed,
            DEFAULT_SLOW_SECONDS if slow is None else slow,
            RETRY_AFTER_SECONDS if retry_after is None else retry_after,
        )
    except FaultSpecError as exc:
        raise FaultSpecError(f"{ENV_FAULTS}: {exc}") from None


def settings_from_json(body: Any) -> FaultSettings:
    """The body of ``PUT /_sandbox/faults``, ``{"spec": "...", "seed": N, "slowSeconds": S,
    "retryAfter": R}`` (all optional), as fault settings; raises a 400 `ApiError`, or
    ValueError or TypeError for a ``slowSeconds`` that is no number."""
    if not isinstance(body, dict):
        raise ApiError(400, 'body: give {"spec": "KIND:PROBABILITY,...", "seed": N}')
    spec, seed = body.get("spec") or "", body.get("seed")
    if not isinstance(spec, str):
        raise ApiError(400, "body: spec must be a string")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ApiError(400, "body: seed must be an integer")
    slow = float(body.get("slowSeconds", DEFAULT_SLOW_SECONDS))
    retry_after = body.get("retryAfter", RETRY_AFTER_SECONDS)
    if not isinstance(retry_after, int) or isinstance(retry_after, bool):
        raise ApiError(400, "body: retryAfter must be a whole number of seconds")
    try:
        return FaultSettings(spec, seed, slow, retry_after)
    except FaultSpecError as exc:
        raise ApiError(400, f"body: spec: {exc}") from None


def _env_number(env: Mapping[str, str], name: str, kind: type[Any]) -> Any:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        return kind(value)
    except ValueError:
        raise FaultSpecError(f"{name} must be a number, not {value!r}") from None
