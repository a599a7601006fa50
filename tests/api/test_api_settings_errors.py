"""Unusable API settings end in one clear error, never a traceback and never retries: a
malformed URL, a file that is not a sandbox, a token with whitespace, plain http named by where
it was written."""

from __future__ import annotations

import socketserver
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from canary import CANARY_TOKEN
from docform.cli import cli
from loopback import serving
from planning import write_manifests

MANIFEST = "organization: {id: org_acme}\n"


def plan(directory: Path, url: str | None, token: str = CANARY_TOKEN) -> Result:
    env = {"DOCFORM_API_URL": url, "DOCFORM_API_TOKEN": token, "NO_COLOR": "1", "CI": None}
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


# -- where the token goes ------------------------------------------------------------------------


@contextmanager
def listener() -> Iterator[tuple[str, list[bytes]]]:
    """A loopback server that records what each connection sent and answers 401."""
    received: list[bytes] = []

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            head = b""
            while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                head += line
            received.append(head)
            body = b'{"error": {"code": 401, "message": "no"}}'
            self.wfile.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))  # fmt: skip

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with serving(server) as root:
        yield root, received


def test_an_empty_api_url_variable_is_an_error_not_the_manifests_url(tmp_path):
    with listener() as (root, received):
        manifests = write_manifests(tmp_path / "m", f"docform: {{api: '{root}'}}\n" + MANIFEST)
        result = plan(manifests, "")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: DOCFORM_API_URL is set but empty (what a CI variable that is not defined "
        "gives): set it to the service's root URL (https://api.example.com) or "
        "sandbox:FILE, or unset it to use `docform: {api: ...}` in the manifests\n"
    )
    assert received == []


@pytest.mark.parametrize(
    ("ci", "hosts", "sent"),
    [
        ({"CI": "true"}, None, False),
        ({"GITHUB_ACTIONS": "true"}, "api.example.test", False),
        ({"GITLAB_CI": "true"}, "api.example.test, 127.0.0.1", True),
        ({"CI": "false"}, None, True),
    ],
    ids=["ci", "github-other-host", "gitlab-allowed", "not-ci"],
)
def test_in_ci_a_host_only_the_manifests_name_gets_no_token(tmp_path, ci, hosts, sent):
    """A pull request may change `docform: {api: ...}`; in CI the token goes only to a host
    the environment names (DOCFORM_API_HOSTS), so no connection is made to another."""
    quiet = dict.fromkeys(("CI", "GITHUB_ACTIONS", "GITLAB_CI"))
    env = {**quiet, **ci, "DOCFORM_API_HOSTS": hosts, "DOCFORM_API_URL": None}
    with listener() as (root, received):
        manifests = write_manifests(tmp_path / "m", f"docform: {{api: '{root}'}}\n" + MANIFEST)
        result = CliRunner().invoke(
            cli, ["plan", str(manifests)], env={**env, "DOCFORM_API_TOKEN": CANARY_TOKEN}
        )
    assert result.exit_code == 1
    assert CANARY_TOKEN not in result.output
    if sent:
        assert received and f"Bearer {CANARY_TOKEN}".encode() in received[0]
        return
    assert received == []
    variable = next(iter(ci))
    assert result.stderr == (
        f"Error: the `docform: api` URL at main.yaml:1:11 names the host '127.0.0.1', and this "
        f"runs in CI ({variable} is set): the API token goes only to a host the environment "
        "names, so that a pull request cannot choose where it goes. Set DOCFORM_API_URL in the "
        "job, or list the host in DOCFORM_API_HOSTS.\n"
    )
