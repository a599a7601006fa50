"""Ids in the answers of creates (engine/apply.py): every id a create answers is checked before
anything uses it. A server in front of the sandbox answers one create with ``"id": null`` (or
another unusable id) and `docform apply` reports that call failed, naming it, and sends no
path or body holding the bad value (``PATCH /collections/None``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_api_bad_answers import Spoiler, edit_json, spoiled_service

from docform.cli import cli
from planning import write_manifests

TOKEN = "tok_create_answers_admin_0123"
MANIFESTS = """\
organization: {id: org_acme}
collections:
  engineering: {title: Engineering}
  runbooks: {title: Runbooks, parent: engineering}
"""


@pytest.fixture
def spoiled(sandbox: Path) -> Iterator[tuple[str, Spoiler]]:
    with spoiled_service(sandbox, TOKEN) as served:
        yield served


@pytest.mark.parametrize("bad_id", [None, "", "..", 42, "a/b"], ids=repr)
def test_a_create_answered_without_a_usable_id_fails_and_nothing_uses_it(
    tmp_path: Path, spoiled: tuple[str, Spoiler], bad_id: Any
) -> None:
    root, spoiler = spoiled
    spoiler.route = "POST /v1/orgs/org_acme/collections"

    def set_id(answer: dict[str, Any]) -> None:
        answer["id"] = bad_id

    spoiler.spoil = edit_json(set_id)
    directory = write_manifests(tmp_path / "m", MANIFESTS)
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    result = CliRunner().invoke(cli, ["apply", str(directory), "--yes"], env=env)

    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "Apply complete" not in result.output
    assert (
        "POST /orgs/org_acme/collections failed: the answer holds an id docform cannot use: id is"
        in result.output
    )
    sent = [route for route in spoiler.seen if route.split(" ")[0] != "GET"]
    assert sent == ["POST /v1/orgs/org_acme/collections"], sent
