"""The contract check as the suite runs it (contract_plugin.py), in a pytest of its own: a
test whose sandbox exchange departs from the definition fails with the operation, status and
JSON path; a test marked as sending such requests on purpose passes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CONTRACT = Path(__file__).parent

TESTS = """
import asyncio

import httpx
import pytest

from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store


def call(tmp_path, method, path):
    app = create_app(Store(tmp_path / "sandbox.sqlite"), SandboxConfig())

    async def send():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.test") as c:
            return await c.request(method, path, json={})

    return asyncio.run(send())


def test_a_path_the_service_lacks(tmp_path):
    assert call(tmp_path, "POST", "/v1/orgs/o1/nothing").status_code == 404


@pytest.mark.contract_exempt("sends a path the service lacks on purpose")
def test_a_path_the_service_lacks_on_purpose(tmp_path):
    assert call(tmp_path, "POST", "/v1/orgs/o1/nothing").status_code == 404
"""


def test_an_exchange_outside_the_definition_fails_its_test_unless_exempt(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(TESTS, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(CONTRACT), os.environ.get("PYTHONPATH", "")]),
        "DOCFORM_CONTRACT": "enforce",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "contract_plugin"]
    done = subprocess.run(
        [*command, "-p", "no:cacheprovider", "test_inner.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert (
        "the sandbox exchanges of this test do not fit the service's definition "
        "(@gitbook/api, openapi.json):\n"
        "  POST /orgs/o1/nothing -> 404: request $: the definition has no such operation\n"
    ) in done.stdout
    assert "FAILED test_inner.py::test_a_path_the_service_lacks - " in done.stdout
    assert "contract: 2 exchanges checked against" in done.stdout


def run_without_definition(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A pytest of the plugin where the definition is missing and npm is not on PATH."""
    (tmp_path / "test_inner.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(CONTRACT), os.environ.get("PYTHONPATH", "")]),
        "PATH": str(Path(sys.executable).parent),
        "DOCFORM_CONTRACT_DEFINITION": str(tmp_path / "missing" / "openapi.json"),
    }
    environment.pop("DOCFORM_REQUIRE_NODE_TOOLS", None)
    environment.update(env)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "contract_plugin"]
    return subprocess.run(
        [*command, "-p", "no:cacheprovider", "test_inner.py"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_without_npm_a_missing_definition_turns_the_check_off_and_says_so(tmp_path: Path) -> None:
    done = run_without_definition(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no contract check: npm is not installed and the service's definition is missing (" in (
        done.stdout
    )


def test_where_node_tools_are_required_a_missing_definition_stops_the_run(tmp_path: Path) -> None:
    done = run_without_definition(tmp_path, DOCFORM_REQUIRE_NODE_TOOLS="1")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "the service's definition is missing (" in done.stderr
    assert "run `make node-tools` (npm ci in .ci/node-tools)" in done.stderr
