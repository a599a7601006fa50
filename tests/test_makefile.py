"""What the Makefile's targets install into a fresh machine's environment (``make -n``: the
commands, none run): the demo docform and its sandbox only, the checks everything."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def installed_by(target: str, tmp_path: Path) -> list[str]:
    """The extras of docform each ``pip install`` of ``make TARGET`` names, on a machine
    without the environment."""
    venv = tmp_path / "absent-venv"
    command = ["make", "-n", target, f"VENV={venv}"]
    shown = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return re.findall(r"pip install .*-e '\.\[([^\]]*)\]'", shown)


def test_the_demo_installs_docform_and_its_sandbox_only(tmp_path: Path) -> None:
    assert installed_by("demo", tmp_path) == ["sandbox"]


def test_the_checks_install_the_development_tools_too(tmp_path: Path) -> None:
    assert installed_by("lint", tmp_path) == ["sandbox,dev"]


def test_the_sandbox_extra_holds_its_web_server_and_nothing_of_the_checks() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[<>=\[; ]", requirement)[0] for requirement in project["dependencies"]}
    extras = project["optional-dependencies"]
    sandbox = {re.split(r"[<>=\[; ]", requirement)[0] for requirement in extras["sandbox"]}
    assert sandbox == {"starlette", "uvicorn"}
    assert names & {"starlette", "uvicorn", "pytest", "mypy", "ruff", "hypothesis"} == set()
