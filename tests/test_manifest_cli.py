"""``docform validate`` (cli.py over manifest/loader.py)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from docform.cli import cli
from test_manifest_corpus import CORPUS

MINIMAL = CORPUS / "valid" / "minimal"
UNKNOWN_KEY = CORPUS / "invalid" / "unknown-key"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_valid_manifests_exit_0_with_a_summary() -> None:
    code, out, _ = run("validate", str(MINIMAL))
    assert (code, out) == (0, "Valid: 1 organization in 1 file.\n")


def test_problems_exit_1_one_per_line() -> None:
    code, out, err = run("validate", str(UNKNOWN_KEY))
    assert code == 1
    assert out == (UNKNOWN_KEY / "expected.txt").read_text()
    assert err == "1 problem found.\n"


def test_json_lists_problems_as_objects() -> None:
    code, out, _ = run("validate", "--json", str(UNKNOWN_KEY))
    assert code == 1
    assert json.loads(out) == [
        {
            "file": "manifest.yaml",
            "line": 4,
            "column": 5,
            "path": "teams.platform.titel",
            "message": "unknown key 'titel' (did you mean 'title'?)",
        }
    ]


def test_json_of_valid_manifests_is_an_empty_list() -> None:
    code, out, err = run("validate", "--json", str(MINIMAL))
    assert (code, json.loads(out), err) == (0, [], "Valid: 1 organization in 1 file.\n")


def test_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path / "nope"))
    assert code == 1
    assert "does not exist" in err
