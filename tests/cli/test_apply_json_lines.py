"""`apply --json` is for programs, like `terraform apply -json`: stdout holds JSON lines only,
one event per line, the first a `version`, the last always a `summary` (also with nothing to
change, and when the apply is refused or fails), whose exit code is the command's. Every line
of every scenario is parsed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from planning import run, seeded_sandbox

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"


@pytest.fixture
def acme(tmp_path: Path) -> tuple[Path, Path]:
    manifests = tmp_path / "manifests"
    shutil.copytree(EXAMPLE / "manifests", manifests)
    return manifests, seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")


def events(stdout: str) -> list[dict[str, Any]]:
    lines = stdout.splitlines()
    parsed = [json.loads(line) for line in lines]  # every line, or the test fails here
    assert all(isinstance(event, dict) and "type" in event for event in parsed)
    assert parsed[0] == {
        "type": "version",
        "format_version": "1.0",
        "docform": parsed[0]["docform"],
    }
    assert parsed[-1]["type"] == "summary"
    assert [e["type"] for e in parsed].count("summary") == 1
    return parsed


def test_an_apply_with_changes_tells_the_plan_each_call_and_the_summary(acme):
    manifests, sandbox = acme
    result = run(["apply", manifests, "--yes", "--json"], sandbox)
    assert result.exit_code == 0, result.stderr
    told = events(result.stdout)
    assert told[1]["type"] == "plan" and told[1]["plan"]["changes"]
    calls = [e for e in told if e["type"] == "call"]
    assert len(calls) == sum(len(c["calls"]) for c in told[1]["plan"]["changes"])
    assert all(call["ok"] for call in calls)
    summary = told[-1]
    assert (summary["ok"], summary["exit_code"], summary["error"]) == (True, 0, None)
    assert summary["made"] == summary["planned"] == len(told[1]["plan"]["changes"])
    assert "Apply complete" not in result.stdout


def test_an_apply_with_nothing_to_change_still_ends_with_a_summary(acme):
    manifests, sandbox = acme
    assert run(["apply", manifests, "--yes", "-q"], sandbox).exit_code == 0
    result = run(["apply", manifests, "--yes", "--json"], sandbox)
    assert result.exit_code == 0, result.stderr
    told = events(result.stdout)
    assert [e["type"] for e in told] == ["version", "plan", "summary"]
    assert told[-1]["planned"] == 0 and told[-1]["made"] == 0


def test_a_plan_a_safety_rail_refuses_ends_with_the_refusal(acme):
    manifests, sandbox = acme
    result = run(["apply", manifests, "--yes", "--json", "--max-deletions", "0"], sandbox)
    assert result.exit_code == 1
    told = events(result.stdout)
    summary = told[-1]
    assert (summary["ok"], summary["exit_code"], summary["made"]) == (False, 1, 0)
    assert "max-deletions" in summary["error"]
    assert not [e for e in told if e["type"] == "call"]


def test_a_call_that_fails_is_told_and_summed_up(acme, monkeypatch):
    manifests, sandbox = acme
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@PUT:/orgs/*/teams")
    result = run(["apply", manifests, "--yes", "--json"], sandbox)
    assert result.exit_code == 1
    told = events(result.stdout)
    failed = [e for e in told if e["type"] == "call" and not e["ok"]]
    assert failed and failed[0]["status"] == 500
    summary = told[-1]
    assert (summary["ok"], summary["exit_code"]) == (False, 1)
    assert summary["failed"] and summary["failed"][0]["change"].startswith("team.")


@pytest.mark.parametrize(
    "options",
    [[], ["--checksum", "0" * 64]],
    ids=["no-yes", "another-checksum"],
)
def test_a_refusal_before_planning_or_applying_ends_with_a_summary(acme, options):
    manifests, sandbox = acme
    result = run(["apply", manifests, "--json", *options], sandbox)
    assert result.exit_code == 1
    summary = events(result.stdout)[-1]
    assert (summary["ok"], summary["exit_code"]) == (False, 1)
    assert summary["error"]
    assert summary["error"] in result.stderr or summary["error"][:40] in result.stderr
