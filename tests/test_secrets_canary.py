"""The canary watch of tests/canary.py catches leaks: an inner pytest session, with this suite's
conftest, runs tests that leak the canary token through each watched channel, and each one fails
naming where it appeared; a test that leaks nothing passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

TESTS = Path(__file__).parent

LEAKS = """
import logging

from click.testing import CliRunner

from canary import CANARY_TOKEN
from docform.cli import cli


def test_leak_by_print():
    print("token:", CANARY_TOKEN)


def test_leak_by_debug_log():
    logging.getLogger("docform.api").debug("sending Authorization: %s", CANARY_TOKEN)


def test_leak_by_cli_output():
    CliRunner().invoke(cli, ["validate", "/no/such/dir-" + CANARY_TOKEN])


def test_leak_by_exception_text():
    raise RuntimeError("the token was " + CANARY_TOKEN)


def test_leak_into_a_file(tmp_path):
    (tmp_path / "plan.json").write_text('{"token": "%s"}' % CANARY_TOKEN)


def test_no_leak(tmp_path):
    print("nothing secret here")
    (tmp_path / "plan.json").write_text("{}")
"""


def test_deliberate_leaks_are_caught_on_every_channel(tmp_path: Path) -> None:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_leaks.py").write_text(textwrap.dedent(LEAKS))
    junit = tmp_path / "results.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist"]
    command += ["--basetemp", str(tmp_path / "inner"), f"--junitxml={junit}", "test_leaks.py"]
    # The helpers the conftest imports (canary.py, ...) and its plugins (the contract check,
    # the endpoint families' fixture) are found where the suite keeps them.
    folders = [TESTS, TESTS / "contract", TESTS / "api"]
    helpers = [*map(str, folders), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(helpers)}
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert junit.exists(), done.stdout + done.stderr
    problems = problems_by_test(junit)
    assert problems.pop("test_leak_by_print") == [
        "CanaryLeak: the canary API token appeared in: Captured stdout call"
    ], done.stdout
    assert problems.pop("test_leak_by_debug_log") == [
        "CanaryLeak: the canary API token appeared in: Captured log call"
    ]
    (cli_leak,) = problems.pop("test_leak_by_cli_output")
    assert "CanaryLeak: the canary API token appeared in the output and stderr " in cli_leak
    assert "of `docform validate /no/such/dir-<canary>`" in cli_leak
    (exception_leak,) = problems.pop("test_leak_by_exception_text")
    assert exception_leak.startswith("RuntimeError: the token was ")
    assert "appeared in: the failure's text" in done.stdout
    # The files are read when the session ends, so the error lands on the last test.
    (file_leak,) = problems.pop("test_no_leak")
    assert file_leak.startswith(
        'failed on teardown with "canary.CanaryLeak: the canary API token was written to: '
    )
    assert file_leak.count("plan.json") == 1
    assert "test_leak_into_a_file0/plan.json" in file_leak
    assert problems == {"test_leak_into_a_file": []}
    assert done.returncode == 1


def problems_by_test(junit: Path) -> dict[str, list[str]]:
    """Each test of a JUnit XML report with the messages of its failures and errors."""
    found = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        problems = [*case.iter("failure"), *case.iter("error")]
        found[case.get("name", "")] = [p.get("message", "") for p in problems]
    return found
