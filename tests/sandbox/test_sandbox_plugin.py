"""The sandbox plugs into docform through entry points (`docform_sandbox.plugin`,
`docform_sandbox.cli`): docform runs without the sandbox's web server, and a ``SCHEME:FILE`` URL
that nothing serves, or a sandbox whose packages are missing, is an error saying what to
install. Each docform here is a fresh interpreter where Starlette and uvicorn cannot be
imported, as after ``pip install docform`` without the ``sandbox`` extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from docform_sandbox.http import API_BASE
from docform_sandbox.plugin import SANDBOX

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WITHOUT_SERVER = (
    "import sys\n"
    "sys.modules['starlette'] = sys.modules['uvicorn'] = None\n"
    "from docform.cli import main\n"
    "sys.argv[0] = 'docform'\n"
    "main()\n"
)


def docform_without_server(*arguments: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DOCFORM_API_URL": url,
        "DOCFORM_API_TOKEN": "tok_plan_0123456789",
        "DOCFORM_API_TIMEOUT": "1",
        "DOCFORM_API_CALL_SECONDS": "0.2",
        "NO_COLOR": "1",
    }
    command = [sys.executable, "-c", WITHOUT_SERVER, *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_a_plan_against_an_https_service_needs_no_web_server() -> None:
    """Nothing listens at the URL: the plan gets as far as its first call."""
    result = docform_without_server("plan", str(FIXTURES / "basic"), url="https://127.0.0.1:9")
    assert result.returncode == 1
    assert "no answer from https://127.0.0.1:9" in result.stderr
    assert "starlette" not in result.stderr


def test_a_sandbox_url_without_the_web_server_says_what_to_install(sandbox: Path) -> None:
    result = docform_without_server("plan", str(FIXTURES / "basic"), url=f"sandbox:{sandbox}")
    assert result.returncode == 1
    assert result.stderr == (
        "Error: the sandbox needs starlette, which is not installed: install docform with its "
        "sandbox (pip install 'docform[sandbox]').\n"
    )


def test_serving_without_the_web_server_says_what_to_install(tmp_path: Path) -> None:
    result = docform_without_server(
        "sandbox", "serve", "--data", str(tmp_path / "s.sqlite"), url="https://unused.test"
    )
    assert result.returncode == 1
    assert result.stderr == (
        "Error: the sandbox needs starlette and uvicorn, which are not installed: install "
        "docform with its sandbox (pip install 'docform[sandbox]').\n"
    )


def test_a_scheme_no_package_serves_names_what_to_install() -> None:
    result = docform_without_server("plan", str(FIXTURES / "basic"), url="mock:state.db")
    assert result.returncode == 1
    assert result.stderr == (
        "Error: DOCFORM_API_URL 'mock:state.db' names the scheme 'mock:', which no installed "
        "package serves (a package serves one by registering it in the entry point group "
        "'docform.transports'): install the package that serves 'mock:' URLs into docform's "
        "environment, or give the service's root URL (https://api.example.com).\n"
    )


def test_the_sandbox_listed_among_the_commands() -> None:
    result = docform_without_server("--help", url="https://unused.test")
    assert result.returncode == 0, result.stderr
    assert "  sandbox " in result.stdout


def test_the_plugins_root_is_the_one_the_sandbox_writes_into_its_answers() -> None:
    assert SANDBOX.root_url + "/v1" == API_BASE
