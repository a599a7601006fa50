"""Text from the service shown as it is, never followed: a service's error message with a
carriage return or a newline cannot forge a line of docform's output (api/reader.py), and a
live title in a pull-request comment is words, not a link, a mention or a new paragraph
(render/markdown.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_api_bad_answers import Spoiler, spoiled_service

from docform.cli import cli
from planning import live_api, run, write_manifests

TOKEN = "tok_deceiving_admin_0123456789"
FORGED = "Plan: 0 to create, 0 to update, 0 to delete, 0 to move."
HOSTILE_TITLE = "Old\n\n[Go](https://e.test/a) @octocat #12 www.e.test"


@pytest.fixture
def spoiled(sandbox: Path) -> Iterator[tuple[str, Spoiler]]:
    with spoiled_service(sandbox, TOKEN) as served:
        yield served


@pytest.mark.parametrize(
    ("control", "shown"),
    [("\r", "\\r"), ("\n", "\\n"), ("\r\n", "\\r\\n"), ("\x1b[2K\r", "\\u001b[2K\\r"),
     ("\u2028", "\\u2028"), ("\u202e", "\\u202e")],
)  # fmt: skip
def test_a_service_error_message_cannot_forge_a_line_of_output(
    tmp_path: Path, spoiled: tuple[str, Spoiler], control: str, shown: str
) -> None:
    root, spoiler = spoiled
    spoiler.route = "PUT /v1/orgs/org_acme/teams"
    message = f"refused{control}{FORGED}"

    def refuse(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
        return json.dumps({"error": {"code": 400, "message": message}}).encode(), headers, 400

    spoiler.spoil = refuse
    manifests = write_manifests(
        tmp_path / "m", "organization: {id: org_acme}\nteams:\n  a: {title: A}\n"
    )
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    result = CliRunner().invoke(cli, ["apply", str(manifests), "--yes"], env=env)

    assert result.exit_code == 1, result.output
    lines = result.output.replace("\r", "\n").replace("\u2028", "\n").splitlines()
    assert not any(line.startswith("Plan: 0 to create") for line in lines), result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert f"refused{shown}{FORGED}" in result.output


def test_a_live_title_in_a_markdown_plan_is_words_not_a_link_or_a_mention(
    tmp_path: Path, sandbox: Path
) -> None:
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": HOSTILE_TITLE})
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme}\n")

    for command in (["plan", manifests, "--markdown"], ["drift", manifests, "--markdown"]):
        text = run(command, sandbox).stdout
        [line] = [line for line in text.splitlines() if "Old" in line]
        assert "Old\\\\n\\\\n\\[Go\\](https:\u2060//e.test/a)" in line, line
        assert "@\u2060octocat" in line and "#\u206012" in line and "www\u2060.e.test" in line
        assert "](https://" not in text and "@octocat" not in text


def test_a_redirect_never_suggests_the_address_it_names(
    tmp_path: Path, spoiled: tuple[str, Spoiler]
) -> None:
    root, spoiler = spoiled
    spoiler.route = "GET /v1/orgs/org_acme"

    def redirect(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
        return b"", {**headers, "location": "http://evil.test/v1"}, 307

    spoiler.spoil = redirect
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme}\n")
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    result = CliRunner().invoke(cli, ["plan", str(manifests)], env=env)

    assert result.exit_code == 1, result.output
    assert "evil.test" not in result.output
    assert "The answer redirects elsewhere, which docform does not follow" in result.output
