"""``docform validate`` (cli.py over manifest/loader.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_manifest_corpus import CORPUS

from docform.cli import cli

MINIMAL = CORPUS / "valid" / "minimal"
UNKNOWN_KEY = CORPUS / "invalid" / "unknown-key"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_valid_manifests_exit_0_with_a_summary() -> None:
    code, out, _ = run("validate", str(MINIMAL))
    assert (code, out) == (0, "Valid: 1 organization in 1 file.\n")


def test_problems_exit_1_one_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(UNKNOWN_KEY)
    code, out, err = run("validate", ".")
    assert code == 1
    assert out == (UNKNOWN_KEY / "expected.txt").read_text()
    assert err == "1 problem found.\n"


def test_problems_name_files_relative_to_the_working_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(UNKNOWN_KEY.parent)
    code, out, _ = run("validate", "unknown-key")
    assert (code, out) == (
        1,
        "unknown-key/manifest.yaml:4:5: teams.platform.titel: unknown key 'titel' "
        "(did you mean 'title'?)\n",
    )


def test_problems_of_plan_name_files_relative_to_the_working_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(UNKNOWN_KEY.parent)
    result = CliRunner().invoke(cli, ["plan", "unknown-key"], env={"DOCFORM_API_URL": None})
    assert result.exit_code == 1
    assert result.stderr == (
        "unknown-key/manifest.yaml:4:5: teams.platform.titel: unknown key 'titel' "
        "(did you mean 'title'?)\n"
        "Error: 1 problem in the manifests; run 'docform validate unknown-key' for details\n"
    )


def test_json_lists_problems_as_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(UNKNOWN_KEY.parent)
    code, out, _ = run("validate", "--json", "unknown-key")
    assert code == 1
    assert json.loads(out) == [
        {
            "file": "unknown-key/manifest.yaml",
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


def test_directory_without_manifests_is_named_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("validate", "empty")
    assert (code, out) == (1, "empty: no manifest files (*.yaml, *.yml)\n")
