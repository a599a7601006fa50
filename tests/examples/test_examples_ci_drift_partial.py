"""The scheduled drift jobs with the plan token, a reader's, which may not read the SAML
providers: drift exits 3 (no drift in what it may read), and the jobs close the open drift
issue saying what they could not check, never "in sync" outright. Run in bash as the
platforms run them, with docform checking the example's sandbox and stand-ins for `gh` and
GitLab's API that keep what they are asked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from remembered_docform import docform_calls, remembered_docform
from test_examples_ci_publishing import gitlab_job
from test_examples_ci_tools import BIN, EXAMPLE, READER_TOKEN, bash_step, reader_sandbox, step

from planning import copy_sandbox, run

PIPELINE_URL = "https://gitlab.example/acme/docs/-/pipelines/5"
RUN_URL = "https://github.example/acme/docs/actions/runs/42"
DRIFT_LINE = "drift manifests --report drift.md --markdown-out drift-full.md"

# gh: one drift issue is open (#12); what the step asks is kept in $CALLS.
FAKE_GH = """#!/bin/bash
echo "gh $*" >> "$CALLS"
if [ "$1 $2" = "issue list" ]; then echo 12; fi
"""

# GitLab's API: one drift issue is open for this organization (iid 12), another for another
# one; each call is kept in $CALLS.
GITLAB_STANDINS = """
api() {
  echo "$*" >> "$CALLS"
  if [ "$1" = GET ]; then
    echo '[{"iid": 11, "title": "docform: the live organization of globex drifted from main"},
      {"iid": 12, "title": "docform: the live organization of manifests drifted from main"}]'
  fi
}
"""


@pytest.fixture(scope="module")
def applied_organization(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's sandbox with the reader's token, the example applied whole by an admin:
    arranged once, copied for each test."""
    sandbox = reader_sandbox(tmp_path_factory.mktemp("applied"))
    applied = run(
        ["apply", EXAMPLE / "manifests", "--yes", "--no-lock-file", "--no-rehearse", "-q"], sandbox
    )
    assert applied.exit_code == 0, applied.output
    return sandbox


@pytest.fixture(scope="module")
def drifts_remembered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What remembered_docform keeps for the tests here: GitHub's drift step and GitLab's
    drift job run the same docform line, word for word, on a copy of one organization with
    the same token, so the second gets back what the real docform gave the first; their
    claim is what each does with its exit code."""
    return tmp_path_factory.mktemp("drifts-remembered")


@pytest.fixture
def ci_env(tmp_path: Path, applied_organization: Path, drifts_remembered: Path) -> dict[str, str]:
    """A checkout of the example applied whole by an admin, and what the drift jobs get: the
    reader's token (a user's token acts as that user, in-process too)."""
    checkout = tmp_path / "acme"
    shutil.copytree(EXAMPLE, checkout)
    sandbox = copy_sandbox(applied_organization, tmp_path)
    standins = tmp_path / "standins"
    standins.mkdir()
    (standins / "gh").write_text(FAKE_GH, encoding="utf-8")
    (standins / "gh").chmod(0o755)
    env = {
        "CHECKOUT": str(checkout),
        "PATH": os.pathsep.join([str(standins), str(BIN), os.environ["PATH"]]),
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_API_TOKEN": READER_TOKEN,
        "NO_COLOR": "1",
        "CALLS": str(tmp_path / "calls"),
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/docs",
        "GITHUB_RUN_ID": "42",
        "ISSUE_LABEL": "docform-drift",
        "MANIFESTS": "manifests",
        "CI_DEFAULT_BRANCH": "main",
        "DRIFT_LABEL": "docform-drift",
        "CI_PIPELINE_URL": PIPELINE_URL,
        "CI_JOB_URL": "https://gitlab.example/acme/docs/-/jobs/7",
    }
    return remembered_docform(env, tmp_path, drifts_remembered)


def read(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8")


def test_github_closes_the_drift_issue_saying_what_was_not_checked(ci_env):
    checkout = Path(ci_env["CHECKOUT"])
    detected = bash_step(
        step("docform-drift.yml", "Detect drift", "drift")["run"], checkout, ci_env
    )
    assert detected.returncode == 0, detected.stderr
    assert read(ci_env["GITHUB_OUTPUT"]) == "status=3\n"
    assert "> - SAML providers: the token may not read them" in read(ci_env["GITHUB_STEP_SUMMARY"])
    close = step("docform-drift.yml", "Close the drift issue", "drift")
    assert "steps.drift.outputs.status == '3'" in close["if"]
    closed = bash_step(close["run"], checkout, ci_env | {"STATUS": "3"})
    assert closed.returncode == 0, closed.stderr
    assert read(ci_env["CALLS"]).splitlines()[-1] == (
        "gh issue close 12 --comment No drift left in what the token may read; what it may not "
        f"read was not checked (listed in the job summary of {RUN_URL})."
    )
    assert docform_calls(ci_env) == [DRIFT_LINE]


def test_gitlab_closes_the_drift_issue_saying_what_was_not_checked(ci_env):
    done = bash_step(gitlab_job("drift", GITLAB_STANDINS), Path(ci_env["CHECKOUT"]), ci_env)
    assert done.returncode == 0, done.stderr
    assert read(ci_env["CALLS"]).splitlines() == [
        "GET /issues?state=opened&labels=docform-drift&per_page=100",
        "POST /issues/12/notes --data-urlencode body=No drift left in what the token may read; "
        f"what it may not read was not checked: {PIPELINE_URL}",
        "PUT /issues/12 --data state_event=close",
    ]
    assert docform_calls(ci_env) == [DRIFT_LINE]
