"""Rate limiting against a served sandbox (``docform sandbox serve --rate-limit N``): plan and
apply finish, and once the service said where its limit is, docform stays under it (no retry
storm), as counted by the sandbox itself, window by window. Also the client's `RateBudget`
(api/retry.py) on its own, and the sandbox's per-window accounting (sandbox/app.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner, Result

from docform.api.retry import RateBudget
from docform.cli import cli
from test_sandbox_faults import TOKEN, served

REPO = Path(__file__).parent.parent
QUICKSTART = REPO / "examples" / "quickstart"
DEMO_SEED = REPO / "examples" / "sandbox-seed.yaml"
LIMIT = 5


def docform(args: list[Any], root: str) -> Result:
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


def test_plan_and_apply_keep_under_the_rate_limit_after_the_first_429s(tmp_path: Path) -> None:
    manifests = tmp_path / "quickstart"
    shutil.copytree(QUICKSTART, manifests)
    options = ("--rate-limit", str(LIMIT), "--seed", str(DEMO_SEED))
    with served(tmp_path / "served.sqlite", *options) as (root, _):
        planned = docform(["plan", manifests, "--detailed-exitcode"], root)
        applied = docform(["apply", manifests, "--yes"], root)
        admin = {"Authorization": f"Bearer {TOKEN}"}
        stats = httpx.get(f"{root}/_sandbox/stats", headers=admin).json()
    assert planned.exit_code == 2, planned.output
    assert applied.exit_code == 0, applied.output
    assert "Apply complete" in applied.output
    windows = [counts for _, counts in sorted(stats["rateLimit"]["bySecond"].items())]
    assert first_limited(windows) >= 0, windows
    after_first_429 = windows[first_limited(windows) + 1 :]
    assert len(after_first_429) >= 3, windows
    # The client's and the sandbox's one-second windows start at different instants, so one
    # request may land a window early; a retry storm shows as many more, and as more 429s.
    assert [w for w in after_first_429 if w["requests"] > LIMIT + 1] == [], windows
    assert sum(w["limited"] for w in after_first_429) <= 2, windows


def first_limited(windows: list[dict[str, int]]) -> int:
    """The index of the first window with a 429; -1 when none had one."""
    return next((i for i, w in enumerate(windows) if w["limited"]), -1)


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
