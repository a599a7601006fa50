"""When a failed call is tried again, and how long docform waits before it does.

Retried: answers 500, 502, 503 and 504, and failures to get any answer (`httpx.TransportError`:
refused or dropped connections, timeouts), for GET, PUT, PATCH and DELETE. Not retried after
those: POST, and a call its caller marks ``retry=False`` (a PUT that creates: the kind says so
on its call, `docform.engine.plan.Call.retry`), because the service may have done the work
before the answer was lost; the applier decides what to do then (re-read, then maybe repeat), so
no object is created twice. A 429 is retried for every method, POST included: a rate-limited
request is turned away before the service does anything with it.

Waits: the service's ``Retry-After`` (seconds or an HTTP date) when it sends one; else, on 429,
until ``X-RateLimit-Reset`` (UTC epoch seconds, docs/service.md); else exponential backoff with
jitter (half of ``base * 2**n`` capped at ``cap``, plus a random part up to the other half).
Failures and rate-limit answers are counted separately, because being asked to slow down is not a
fault: ``max_retries`` bounds the first, ``max_rate_limit_retries`` the second.

Rate limit: `RateBudget` keeps every call within the limit the service announces in its
``X-RateLimit-*`` headers, so that after the first 429s docform stays under the limit rather
than hitting it again at the start of every window.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRIED_METHODS = frozenset({"GET", "PUT", "PATCH", "DELETE"})
# Epoch seconds are above this; a smaller X-RateLimit-Reset can only be a number of seconds.
EPOCH_FLOOR = 1_000_000_000


def is_retryable_call(method: str) -> bool:
    """Whether a call of ``method`` can be repeated without risk of doing the work twice, unless
    its caller says otherwise (a PUT that creates is not: the caller passes ``retry=False``)."""
    return method in RETRIED_METHODS


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
        ceiling = min(self.backoff_cap, self.backoff_base * 2.0**retry)
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


# -- keeping to the service's rate limit -------------------------------------------------------

# Seconds before a window ends in which no call starts: one sent then could arrive in the next
# window, on top of the full budget docform assumes there.
WINDOW_MARGIN = 0.05
# How long to wait when the budget is spent and the end of the window is not known yet.
UNKNOWN_WINDOW_WAIT = 0.1


@dataclass
class RateBudget:
    """The calls the service still allows in its current rate-limit window.

    Learnt from the ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset`` headers of every answer
    (docs/service.md), and spent by each call as it is sent, so that concurrent calls keep to the
    limit instead of finding it with 429s and all coming back together when the window ends (a retry
    storm). An answer without these headers means the service does not limit: the budget is
    forgotten.

    Calls sent but not answered yet (``in_flight``) may reach the service in the next window,
    and the service's ``Remaining`` does not count those that have not reached it: both are
    taken off, so that docform stays strictly under the limit rather than one call over it.
    """

    limit: int | None = None
    remaining: int = 0
    reset_at: float | None = None  # epoch seconds; None: a new window whose end is not known
    in_flight: int = 0
    counting_alone: bool = False  # a new window began; no answer of it has come back yet
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def observe(self, headers: Mapping[str, str], now: float | None = None) -> None:
        """Learn from the answer of a call this budget let go (`claim`)."""
        now = time.time() if now is None else now
        limit = _header_int(headers, "x-ratelimit-limit")
        remaining = _header_int(headers, "x-ratelimit-remaining")
        wait = reset_seconds(headers.get("x-ratelimit-reset"), now)
        with self.lock:
            self.in_flight = max(0, self.in_flight - 1)
            if limit is None or remaining is None or wait is None:
                self.limit, self.reset_at, self.counting_alone = None, None, False
                return
            self.limit = limit
            if wait <= 0:
                # An answer of a window already over says nothing of this one, except, when
                # the budget does not know where this one ends, that the calls it counted
                # belong to a window gone: only those still in flight may land in this one.
                # Waiting instead for an answer of this window would wait forever when none
                # is in flight (a clock ahead of the service's, answers slower than a window).
                if self.reset_at is None:
                    self.remaining = limit - self.in_flight
                    self.counting_alone = True
                return
            reset_at = now + wait
            # Calls still in flight may not have reached the service when it counted.
            estimate = max(0, remaining - self.in_flight)
            if self.reset_at is None and self.counting_alone:
                # The window started while docform counted its calls on its own.
                self.remaining, self.reset_at = min(self.remaining, estimate), reset_at
                self.counting_alone = False
            elif self.reset_at is None or reset_at > self.reset_at + WINDOW_MARGIN:
                self.remaining, self.reset_at = estimate, reset_at
            elif reset_at >= self.reset_at - WINDOW_MARGIN:
                # Calls sent since this one was answered are already taken off.
                self.remaining = min(self.remaining, estimate)

    def abandon(self) -> None:
        """A call this budget let go got no answer: it is no longer in flight."""
        with self.lock:
            self.in_flight = max(0, self.in_flight - 1)

    def claim(self, now: float | None = None) -> float:
        """Takes one call from the budget and returns 0, or returns how long to wait first."""
        now = time.time() if now is None else now
        with self.lock:
            if self.limit is None:
                self.in_flight += 1
                return 0.0
            if self.reset_at is not None and now >= self.reset_at:
                # Calls of the last window still in flight may land in this one.
                self.remaining, self.reset_at = self.limit - self.in_flight, None
                self.counting_alone = True
            if self.reset_at is not None and self.reset_at - now < WINDOW_MARGIN:
                return self.reset_at - now
            if self.remaining <= 0:
                return UNKNOWN_WINDOW_WAIT if self.reset_at is None else self.reset_at - now
            self.remaining -= 1
            self.in_flight += 1
            return 0.0


_BUDGETS: dict[str, RateBudget] = {}
_BUDGETS_LOCK = threading.Lock()


def shared_budget(base_url: str, token: str) -> RateBudget:
    """The one budget of every client of this process calling ``base_url`` with ``token``: a
    plan's client and the apply's that follows share the service's limit."""
    key = f"{base_url} {hashlib.sha256(token.encode()).hexdigest()}"
    with _BUDGETS_LOCK:
        return _BUDGETS.setdefault(key, RateBudget())


def _header_int(headers: Mapping[str, str], name: str) -> int | None:
    try:
        return int(headers.get(name, "").strip())
    except ValueError:
        return None
