"""Rate limiting against a served sandbox (the sandbox app with a rate limit, behind uvicorn):
plan and apply of a few changes finish, and once the service said where its limit is, docform
stays under it (no retry storm), as counted by the sandbox itself, window by window. The
service's windows and the client's waits run on one clock ten times faster than the real one
(`fast_clock`). Also the client's `RateBudget` (api/retry.py) on its own, and the sandbox's
per-window accounting (sandbox/app.py)."""

from __future__ import annotations

import inspect
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docform.api import ApiClient
from docform.api.retry import RateBudget
from docform.cli import cli
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from fast_clock import FastClock
from planning import SERVE_TOKEN, served_app, write_manifests

DEMO_SEED = Path(__file__).parents[2] / "examples" / "sandbox-seed.yaml"
LIMIT = 2
# A change of each of four kinds to the demo's organization: apply writes as well as reads.
# Every request after the first burst has the test wait half a window, so a few changes do.
CHANGES = """\
organization: {id: org_demo, title: Demo Corporation}
members:
  ada@demo.test: admin
  ed@demo.test: admin
teams:
  platform: {title: Platform, members: {ada@demo.test: owner, ed@demo.test: member}}
  support: {title: Support}
"""
IN_FLIGHT = inspect.signature(ApiClient).parameters["max_in_flight"].default


def docform(args: list[Any], root: str) -> Result:
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": SERVE_TOKEN, "NO_COLOR": "1"}
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def test_plan_and_apply_keep_under_the_rate_limit_after_the_first_429s(
    tmp_path: Path, fast_clock: FastClock
) -> None:
    manifests = write_manifests(tmp_path / "m", CHANGES)
    store = Store(tmp_path / "served.sqlite")
    apply_seed(store, load_seed_file(DEMO_SEED))
    config = SandboxConfig(admin_tokens=(SERVE_TOKEN,), rate_limit=LIMIT)
    app = create_app(store, config)
    try:
        with served_app(app) as root:
            planned = docform(["plan", manifests, "--detailed-exitcode"], root)
            applied = docform(["apply", manifests, "--yes"], root)
    finally:
        store.close()
    assert planned.exit_code == 2, planned.output
    assert applied.exit_code == 0, applied.output
    assert "Apply complete" in applied.output
    stats = app.state.sandbox.limiter.as_json()
    windows = [counts for _, counts in sorted(stats["bySecond"].items())]
    assert first_limited(windows) >= 0, windows
    after_first_429 = windows[end_of_first_burst(windows) :]
    assert len(after_first_429) >= 10, windows
    # Once told the limit, docform stays strictly under it: no window gets a 429 again.
    assert [w for w in after_first_429 if w["requests"] > LIMIT] == [], windows
    assert sum(w["limited"] for w in after_first_429) == 0, windows


def first_limited(windows: list[dict[str, int]]) -> int:
    """The index of the first window with a 429; -1 when none had one."""
    return next((i for i, w in enumerate(windows) if w["limited"]), -1)


def end_of_first_burst(windows: list[dict[str, int]]) -> int:
    """The index of the first window after the calls sent before any answer came back: they
    are answered in the first window with a 429, or in the next one when they were still in
    flight as it ended (a window lasts a tenth of a real second on the test's clock)."""
    first = first_limited(windows)
    burst = windows[: first + 2]
    at_once = sum(w["requests"] for w in burst) <= IN_FLIGHT
    return first + 2 if len(burst) == first + 2 and burst[-1]["limited"] and at_once else first + 1


# -- the budget --------------------------------------------------------------------------------


def headers(limit: int, remaining: int, reset: float) -> dict[str, str]:
    return {
        "x-ratelimit-limit": str(limit),
        "x-ratelimit-remaining": str(remaining),
        "x-ratelimit-reset": str(int(reset)),
    }


NOW = 2_000_000_000.0


def test_a_budget_lets_calls_go_until_the_window_is_spent() -> None:
    budget = RateBudget()
    budget.observe(headers(5, 2, NOW + 1), now=NOW)
    assert [budget.claim(now=NOW + 0.1) for _ in range(2)] == [0.0, 0.0]
    assert round(budget.claim(now=NOW + 0.1), 3) == 0.9


def test_a_budget_starts_full_when_the_window_ends() -> None:
    budget = RateBudget()
    budget.observe(headers(3, 0, NOW + 1), now=NOW)
    waits = [budget.claim(now=NOW + 1.0) for _ in range(4)]
    assert waits[:3] == [0.0, 0.0, 0.0]
    assert waits[3] > 0


def test_answers_of_a_window_already_over_never_stop_the_budget_for_good() -> None:
    """A window counted alone, spent, whose answers all come back once it is over: the
    budget knows nothing of the window it is in, and lets calls go again."""
    budget = RateBudget()
    budget.observe(headers(2, 0, NOW + 1), now=NOW)
    assert [budget.claim(now=NOW + 1.0) for _ in range(2)] == [0.0, 0.0]
    assert budget.claim(now=NOW + 1.0) > 0
    for _ in range(2):
        budget.observe(headers(2, 0, NOW + 2), now=NOW + 2.1)
    assert budget.claim(now=NOW + 2.1) == 0.0


def test_a_client_clock_ahead_of_the_service_still_sends() -> None:
    """Every answer's window looks over to a clock a few seconds ahead: calls still go
    (the service's 429 and its Retry-After pace them then)."""
    budget = RateBudget()
    budget.observe(headers(5, 4, NOW + 1), now=NOW + 3)
    assert budget.claim(now=NOW + 3) == 0.0


def test_a_budget_keeps_calls_sent_since_an_older_answer_taken_off() -> None:
    budget = RateBudget()
    budget.observe(headers(5, 4, NOW + 1), now=NOW)
    for _ in range(4):
        budget.claim(now=NOW)
    budget.observe(headers(5, 3, NOW + 1), now=NOW + 0.2)
    assert budget.claim(now=NOW + 0.2) > 0


def test_no_call_starts_just_before_the_window_ends() -> None:
    budget = RateBudget()
    budget.observe(headers(5, 5, NOW + 1), now=NOW)
    assert round(budget.claim(now=NOW + 0.98), 3) == 0.02


def test_an_answer_without_rate_limit_headers_forgets_the_budget() -> None:
    budget = RateBudget()
    budget.observe(headers(1, 0, NOW + 1), now=NOW)
    budget.observe({}, now=NOW)
    assert budget.claim(now=NOW) == 0.0


def test_calls_in_flight_when_a_window_ends_are_taken_off_the_next_one() -> None:
    budget = RateBudget()
    budget.observe(headers(2, 2, NOW + 1), now=NOW)
    assert budget.claim(now=NOW + 0.9) == 0.0  # sent late: it may reach the next window
    waits = [budget.claim(now=NOW + 1.0) for _ in range(2)]
    assert waits[0] == 0.0
    assert waits[1] > 0


def test_an_early_answer_of_a_new_window_does_not_give_back_calls_still_in_flight() -> None:
    budget = RateBudget()
    budget.observe(headers(2, 0, NOW + 1), now=NOW)
    assert [budget.claim(now=NOW + 1.0) for _ in range(2)] == [0.0, 0.0]
    # The first of the two reached the service alone: it says one call is left.
    budget.observe(headers(2, 1, NOW + 2), now=NOW + 1.05)
    assert budget.claim(now=NOW + 1.06) > 0


def test_a_call_that_got_no_answer_leaves_the_budget() -> None:
    budget = RateBudget()
    budget.observe(headers(2, 2, NOW + 1), now=NOW)
    assert budget.claim(now=NOW + 0.1) == 0.0
    budget.abandon()
    assert budget.in_flight == 0


# -- what a call and a command may cost in all -------------------------------------------------


def always_429(tmp_path: Path, env: dict[str, str]) -> tuple[Result, float]:
    """``docform plan`` against a sandbox that answers every call 429 with Retry-After: 1."""
    from planning import run, seeded_sandbox, write_manifests

    sandbox = seeded_sandbox(tmp_path)
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme}\n")
    faults = {"DOCFORM_SANDBOX_FAULTS": "429:1", "DOCFORM_SANDBOX_RETRY_AFTER": "1"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**faults, **env}.items():
            patch.setenv(name, value)
        started = time.monotonic()
        result = run(["plan", manifests], sandbox)
    return result, time.monotonic() - started


# The client's waits are noted, not spent (instant_backoff): a call's budget and the command's
# deadline count the waits decided, so they stop the retries as they would in real time.
@pytest.mark.usefixtures("instant_backoff")
def test_one_call_stops_retrying_at_its_budget(tmp_path: Path) -> None:
    result, took = always_429(tmp_path, {"DOCFORM_API_CALL_SECONDS": "1.5"})
    assert result.exit_code == 1, result.output
    assert "Its retries would take it past 1.5 s, the most one call may take" in result.stderr
    assert took < 10


@pytest.mark.usefixtures("instant_backoff")
def test_a_command_stops_at_its_deadline_naming_the_call_not_made(tmp_path: Path) -> None:
    result, took = always_429(tmp_path, {"DOCFORM_DEADLINE": "0.5"})
    assert result.exit_code == 1, result.output
    assert (
        "was not made: the command reached its deadline of 0.5 s (DOCFORM_DEADLINE)"
    ) in result.stderr
    assert "Traceback" not in result.output
    assert took < 10
