"""When a failed call is tried again, and how long docform waits before it does.

Retried: answers 429, 502, 503 and 504, and failures to get any answer (`httpx.TransportError`:
refused or dropped connections, timeouts), for GET, PUT, PATCH and DELETE. Never retried: POST,
and the one PUT that creates (``PUT /orgs/{id}/teams``), because the service may have done the
work before the answer was lost; the applier decides what to do then (re-read, then maybe
repeat), so no object is created twice.

Waits: the service's ``Retry-After`` (seconds or an HTTP date) when it sends one; else, on 429,
until ``X-RateLimit-Reset`` (UTC epoch seconds, gaps.md); else exponential backoff with jitter
(half of ``base * 2**n`` capped at ``cap``, plus a random part up to the other half). Failures and
rate-limit answers are counted separately, because being asked to slow down is not a fault:
``max_retries`` bounds the first, ``max_rate_limit_retries`` the second.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429, 502, 503, 504})
RETRIED_METHODS = frozenset({"GET", "PUT", "PATCH", "DELETE"})
CREATES_BY_PUT = (re.compile(r"^/orgs/[^/]+/teams/?$"),)
# Epoch seconds are above this; a smaller X-RateLimit-Reset can only be a number of seconds.
EPOCH_FLOOR = 1_000_000_000


def is_retryable_call(method: str, path: str) -> bool:
    """Whether ``method path`` can be repeated without risk of doing the work twice."""
    if method not in RETRIED_METHODS:
        return False
    return not (method == "PUT" and any(p.match(path) for p in CREATES_BY_PUT))


@dataclass
class RetryPolicy:
    """The bounds and waits of retries; ``rng`` is seeded in tests that check the jitter."""

    max_retries: int = 5
    max_rate_limit_retries: int = 30
    backoff_base: float = 0.2
    backoff_cap: float = 10.0
    max_wait: float = 120.0
    rng: random.Random = field(default_factory=random.Random)

    def backoff(self, retry: int) -> float:
        """The wait before retry number ``retry`` (0-based) of a failure."""
        ceiling = min(self.backoff_cap, self.backoff_base * 2**retry)
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)

    def jitter(self) -> float:
        return self.rng.uniform(0, self.backoff_base)

    def server_wait(self, headers: Mapping[str, str], status: int, retry: int) -> float:
        """How long the service asks to wait; the backoff when it does not say."""
        asked = asked_wait(headers, status)
        return self.backoff(retry) if asked is None else asked


def asked_wait(headers: Mapping[str, str], status: int) -> float | None:
    """The seconds an answer asks the client to wait, when it says."""
    asked = retry_after_seconds(headers.get("retry-after"))
    if asked is None and status == 429:
        asked = reset_seconds(headers.get("x-ratelimit-reset"))
    return asked


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds from now: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def reset_seconds(value: str | None, now: float | None = None) -> float | None:
    """``X-RateLimit-Reset`` (epoch seconds) as seconds from now."""
    if not value:
        return None
    try:
        reset = float(value.strip())
    except ValueError:
        return None
    if reset < EPOCH_FLOOR:
        return max(0.0, reset)
    return max(0.0, reset - (time.time() if now is None else now))
