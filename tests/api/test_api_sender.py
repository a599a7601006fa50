"""`Sender` (api/sender.py) on its own: which answers it sends a call again for, how many times,
and what it counts, against the in-process sandbox injecting faults (sandbox/faults.py)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from conftest import ADMIN_TOKEN, ORG, SANDBOX_ADMIN_TOKEN
from docform.api.retry import RateBudget, RetryPolicy
from docform.api.sender import Call, Sender
from docform.api.stats import CallStats
from docform_sandbox.app import SandboxConfig
from docform_sandbox.faults import FaultSettings
from docform_sandbox.transport import SandboxTransport
from planning import seeded_sandbox

pytestmark = pytest.mark.anyio
ROOT = "https://api.sandbox.test"


async def no_wait(seconds: float) -> None:
    """The sender's sleep: these tests check what is sent, not how long it waited."""


@asynccontextmanager
async def sender_with_faults(tmp_path: Path, spec: str) -> AsyncIterator[Sender]:
    """A `Sender` of a client of a seeded in-process sandbox that injects ``spec``."""
    faults = FaultSettings(spec, seed=1, slow_seconds=0.0, retry_after=0)
    config = SandboxConfig((SANDBOX_ADMIN_TOKEN,), faults=faults)
    transport = SandboxTransport(seeded_sandbox(tmp_path), config)
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx.AsyncClient(
        transport=transport, base_url=f"{ROOT}/v1/", headers=headers
    ) as http:
        policy = RetryPolicy(max_retries=2, backoff_base=0.0, rng=random.Random(0))
        yield Sender(http, policy, CallStats(), RateBudget(), no_wait)


def call(method: str, path: str, retryable: bool, body: object = None) -> Call:
    return Call(method, path, None, body, retryable)


async def test_a_retryable_call_is_sent_again_after_a_5xx(tmp_path: Path) -> None:
    async with sender_with_faults(tmp_path, "503:1@GET:/orgs/*#1") as sender:
        get = call("GET", f"/orgs/{ORG}", retryable=True)
        answer = await sender.send(get)
    assert answer.status_code == 200
    assert (get.attempts, get.failures) == (2, 1)
    assert (sender.stats.requests, dict(sender.stats.retries_by_reason)) == (2, {"503": 1})


async def test_a_call_that_may_not_be_repeated_hands_back_its_5xx(tmp_path: Path) -> None:
    async with sender_with_faults(tmp_path, "500:1@POST:/orgs/*/spaces#1") as sender:
        post = call("POST", f"/orgs/{ORG}/spaces", retryable=False, body={"title": "Notes"})
        answer = await sender.send(post)
    assert answer.status_code == 500
    assert post.attempts == 1
    assert sender.stats.retries == 0


async def test_a_429_is_sent_again_even_for_a_call_that_may_not_be_repeated(
    tmp_path: Path,
) -> None:
    async with sender_with_faults(tmp_path, "429:1@POST:/orgs/*/spaces#1") as sender:
        post = call("POST", f"/orgs/{ORG}/spaces", retryable=False, body={"title": "Notes"})
        answer = await sender.send(post)
    assert answer.status_code == 201
    assert (post.attempts, post.rate_limits, post.failures) == (2, 1, 0)
    assert (sender.stats.rate_limited, sender.stats.retries) == (1, 1)


async def test_a_lost_answer_to_a_call_that_may_not_be_repeated_is_raised(
    tmp_path: Path,
) -> None:
    async with sender_with_faults(tmp_path, "lost:1@POST:/orgs/*/spaces#1") as sender:
        post = call("POST", f"/orgs/{ORG}/spaces", retryable=False, body={"title": "Notes"})
        with pytest.raises(httpx.TransportError):
            await sender.send(post)
    assert post.attempts == 1


async def test_retries_after_failures_stop_at_the_policy_bound(tmp_path: Path) -> None:
    async with sender_with_faults(tmp_path, "502:1@GET:/orgs/*") as sender:
        get = call("GET", f"/orgs/{ORG}", retryable=True)
        answer = await sender.send(get)
    assert answer.status_code == 502
    assert (get.attempts, get.failures) == (3, 2)
    assert get.lead == f"GET /orgs/{ORG} failed after 3 attempts"
