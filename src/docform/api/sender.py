"""`Sender`: sends one API call until it has an answer to hand back, retrying on the way.

Before each attempt it waits out a 429 pause (every call of the client waits until the service
said to come back) and the rate-limit budget the service announced (`docform.api.retry`). When
to retry, and how long to wait, is `docform.api.retry`'s policy; this module applies it.

Retries are logged at INFO on ``docform.api``: quiet by default (Python shows only warnings
when nothing configured logging), shown by ``docform plan --verbose``. Each answer is logged at
DEBUG.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from docform.api.limits import AnswerLimits
from docform.api.retry import RETRY_STATUSES, RateBudget, RetryPolicy
from docform.api.stats import CallStats
from docform.api.urls import request_url
from docform.untrusted.redact import HiddenValues

log = logging.getLogger("docform.api")
log.addFilter(HiddenValues())

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class Call:
    """One API call and its attempts so far."""

    method: str
    path: str
    params: Mapping[str, Any] | None
    json: Any
    retryable: bool
    attempts: int = 0
    failures: int = 0
    rate_limits: int = 0
    note: str = ""
    started: float = 0.0
    waited: float = 0.0
    """Seconds of the waits decided so far (slept, or left to the pause after a 429)."""

    def spent(self) -> float:
        """Seconds this call has cost so far, its waits included."""
        return max(time.monotonic() - self.started, self.waited)

    @property
    def lead(self) -> str:
        after = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"{self.method} {self.path} failed{after}"


class Sender:
    """Sends calls through ``http``, within ``budget``, retrying as ``policy`` allows."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        policy: RetryPolicy,
        stats: CallStats,
        budget: RateBudget,
        sleep: Sleep,
        limits: AnswerLimits | None = None,
    ) -> None:
        self.http = http
        self.limits = limits or AnswerLimits()
        self.policy = policy
        self.stats = stats
        self.budget = budget
        self._sleep = sleep
        self._resume_at = 0.0
        self._base = str(http.base_url)

    async def send(self, call: Call) -> httpx.Response:
        """The answer to return or to report (an error status no retry may fix).

        Raises the last `httpx.TransportError` when no answer came back and retries are over,
        and `AnswerLimitExceeded` at once for an answer too large or too slow to complete.
        """
        call.started = time.monotonic()
        while True:
            self._check_command_time(call, self._resume_at - time.monotonic())
            await self._wait_for_pause()
            await self._wait_for_budget()
            self._check_command_time(call, 0.0)
            call.attempts += 1
            self.stats.record_sent(call.method, call.path)
            started = time.monotonic()
            try:
                url = request_url(self._base, call.path, call.params)
                request = self.http.build_request(call.method, url, json=call.json)
                try:
                    response = await self.limits.receive(self.http, request)
                except BaseException:
                    self.budget.abandon()
                    raise
            except httpx.TransportError as exc:
                wait = self._failure_wait(call)
                if wait is None:
                    raise
                reason = type(exc).__name__
            else:
                if log.isEnabledFor(logging.DEBUG):
                    elapsed_ms = (time.monotonic() - started) * 1000
                    log.debug(
                        "%s %s -> %d (%.0f ms)",
                        call.method,
                        call.path,
                        response.status_code,
                        elapsed_ms,
                    )
                self.budget.observe(response.headers)
                if response.status_code not in RETRY_STATUSES:
                    return response
                wait = self._status_wait(call, response)
                if wait is None:
                    return response
                reason = str(response.status_code)
            self._check_command_time(call, wait)
            self.stats.record_retry(reason)
            attempt = call.attempts + 1
            log.info("%s %s: %s; retrying (attempt %d)", call.method, call.path, reason, attempt)
            if wait:
                await self._sleep(wait)

    async def _wait_for_budget(self) -> None:
        """Keeps to the rate limit the service announced (`docform.api.retry.RateBudget`)."""
        while (wait := self.budget.claim()) > 0:
            await self._sleep(wait + self.policy.jitter())

    async def _wait_for_pause(self) -> None:
        """After a 429 every call waits until the service said to come back."""
        delay = self._resume_at - time.monotonic()
        if delay > 0:
            await self._sleep(delay + self.policy.jitter())

    def _check_command_time(self, call: Call, wait: float) -> None:
        """Raises when the command's deadline comes before ``wait`` seconds from now are over."""
        if self.limits.command_left() < max(wait, 0.0) or self.limits.command_left() <= 0:
            raise self.limits.past_deadline(f"{call.method} {call.path}")

    def _over_budget(self, call: Call, wait: float) -> bool:
        """Whether waiting ``wait`` more seconds takes ``call`` past its budget (saying so)."""
        if call.spent() + wait <= self.limits.call_seconds:
            call.waited += wait
            return False
        call.note = (
            f"Its retries would take it past {self.limits.call_seconds:g} s, the most one call "
            f"may take (DOCFORM_API_CALL_SECONDS)"
        )
        return True

    def _failure_wait(self, call: Call) -> float | None:
        """The wait before retrying a call that got no answer; None to give up."""
        if not call.retryable or call.failures >= self.policy.max_retries:
            return None
        wait = self.policy.backoff(call.failures)
        if self._over_budget(call, wait):
            return None
        call.failures += 1
        return wait

    def _status_wait(self, call: Call, response: httpx.Response) -> float | None:
        """The wait before retrying after ``response`` (429 or 5xx); None to give up."""
        status = response.status_code
        policy = self.policy
        if status == 429:
            self.stats.record_rate_limited()
            asked = policy.server_wait(response.headers, status, call.rate_limits)
            if asked <= policy.max_wait:
                self._resume_at = max(self._resume_at, time.monotonic() + asked)
            limit, count = policy.max_rate_limit_retries, call.rate_limits
        else:
            asked = policy.server_wait(response.headers, status, call.failures)
            limit, count = policy.max_retries, call.failures
        # A 429 was turned away before any work, so even a call that is never repeated after a
        # failure (a POST) is sent again.
        if (not call.retryable and status != 429) or count >= limit:
            return None
        if asked > policy.max_wait:
            call.note = (
                f"The service asked to wait {asked:.0f} s, longer than docform waits "
                f"({policy.max_wait:.0f} s)"
            )
            return None
        if self._over_budget(call, asked):
            return None
        if status == 429:
            call.rate_limits += 1
            return 0.0  # the pause before the next attempt is the wait
        call.failures += 1
        return asked
