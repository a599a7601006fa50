"""Unusable API settings end in one clear error, never a traceback and never retries: a
malformed URL, a file that is not a sandbox, a token with whitespace, plain http named by where
it was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from canary import CANARY_TOKEN
from docform.cli import cli
from planning import write_manifests

MANIFEST = "organization: {id: org_acme}\n"


def plan(directory: Path, url: str | None, token: str = CANARY_TOKEN) -> Result:
    env = {"DOCFORM_API_URL": url, "DOCFORM_API_TOKEN": token, "NO_COLOR": "1"}
    return CliRunner().invoke(cli, ["plan", str(directory)], env=env)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://[::1", "Invalid IPv6 URL"),
        ("https://example.com:abc", "Port could not be cast to integer value as 'abc'"),
    ],
)
def test_a_malformed_api_url_is_an_error_naming_it(tmp_path, url, problem):
    result = plan(write_manifests(tmp_path / "m", MANIFEST), url)
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr == (
        f"Error: DOCFORM_API_URL {url!r} is not a valid URL ({problem}): give the service's "
        "root URL, like https://api.example.com or https://api.example.com:8443.\n"
    )


def test_a_malformed_api_url_never_shows_its_credentials(tmp_path):
    result = plan(write_manifests(tmp_path / "m", MANIFEST), "https://user:pw-123@[::1")
    assert result.exit_code == 1
    assert "pw-123" not in result.output
    assert "'https://***@[::1' is not a valid URL" in result.stderr


def test_a_sandbox_file_that_is_not_a_database_is_an_error_naming_it(tmp_path):
    not_sqlite = tmp_path / "notes.sqlite"
    not_sqlite.write_text("these are notes, not a database\n")
    result = plan(write_manifests(tmp_path / "m", MANIFEST), f"sandbox:{not_sqlite}")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: the sandbox file {not_sqlite} is not a sandbox database (file is not a "
        "database): give a file made by 'docform sandbox seed --data FILE SEED.yaml', or a "
        "new path\n"
    )


def test_sandbox_serve_refuses_a_file_that_is_not_a_database(tmp_path):
    not_sqlite = tmp_path / "notes.sqlite"
    not_sqlite.write_bytes(b"\x00\x01 random bytes, not SQLite" * 10)
    result = CliRunner().invoke(cli, ["sandbox", "serve", "--data", str(not_sqlite)])
    assert result.exit_code == 1
    assert "is not a sandbox database (file is not a database)" in result.stderr


@pytest.mark.parametrize(
    ("around", "after"), [("", "\n"), ("  ", ""), ("", "\t")], ids=["newline", "spaces", "tab"]
)
def test_a_token_with_surrounding_whitespace_is_refused_before_any_call(
    sandbox, tmp_path, around, after
):
    token = f"{around}{CANARY_TOKEN}{after}"
    result = plan(write_manifests(tmp_path / "m", MANIFEST), f"sandbox:{sandbox}", token)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: DOCFORM_API_TOKEN starts or ends with whitespace or a line break (often a "
        "newline copied with it, or from a file read with `$(cat ...)`): set it to the token "
        "alone.\n"
    )


def test_a_token_with_a_line_break_inside_is_refused_against_a_real_url(tmp_path):
    result = plan(
        write_manifests(tmp_path / "m", MANIFEST),
        "https://api.example.test",
        "tok_part_one\ntok_part_two",
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: DOCFORM_API_TOKEN holds a space, a line break, a control or a non-ASCII "
        "character, which no API token does: set it to the token alone.\n"
    )


def test_plain_http_from_the_manifests_names_the_setting_and_its_line(tmp_path):
    manifests = write_manifests(
        tmp_path / "m", 'docform:\n  api: "http://api.example.test"\n' + MANIFEST
    )
    result = plan(manifests, None)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: the `docform: api` URL at main.yaml:2:3 'http://api.example.test' is plain "
        "http: docform sends the API token over https only (plain http is accepted for "
        "loopback addresses); use https://.\n"
    )


def test_plain_http_from_the_environment_names_the_variable(tmp_path):
    manifests = write_manifests(
        tmp_path / "m", 'docform:\n  api: "https://api.example.test"\n' + MANIFEST
    )
    result = plan(manifests, "http://api.example.test")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: DOCFORM_API_URL 'http://api.example.test' is plain http:"
    )
