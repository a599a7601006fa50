"""docform has one version, said alike by pyproject.toml, ``docform.__version__``, ``docform
--version`` and the newest entry of CHANGELOG.md."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from click.testing import CliRunner

import docform
from docform.cli import cli

ROOT = Path(__file__).parents[2]


def test_the_version_is_the_same_everywhere():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\d+\.\d+\.\d+)( \(\d{4}-\d{2}-\d{2}\))?$", changelog, re.MULTILINE)
    assert newest, "CHANGELOG.md has no '## X.Y.Z' entry"
    shown = CliRunner().invoke(cli, ["--version"]).output
    assert project["version"] == docform.__version__ == newest.group(1)
    assert docform.__version__ in shown
