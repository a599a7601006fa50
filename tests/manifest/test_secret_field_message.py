"""A reference (``${env:...}``, ``{file: PATH}``) outside a secret field is refused naming the
secret fields of its own section only: the list a user reads stays short however many kinds
hold secrets elsewhere, and names the place they most likely meant."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from docform.cli import cli
from docform.manifest.values import SECRET_FIELDS

SECTIONS_WITH_SECRETS = sorted({str(path[0]) for path in SECRET_FIELDS})


def _validate(tmp_path: Path, text: str) -> str:
    (tmp_path / "manifest.yaml").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 1, result.output
    return result.output


@pytest.mark.parametrize("section", SECTIONS_WITH_SECRETS)
def test_the_message_lists_the_secret_fields_of_its_section_only(
    tmp_path: Path, section: str
) -> None:
    text = _validate(
        tmp_path,
        f"organization: {{id: org_acme}}\n{section}:\n  example:\n    nonsecret: ${{env:X}}\n",
    )
    own = [".".join(map(str, path[2:])) for path in SECRET_FIELDS if path[0] == section]
    others = [".".join(map(str, path[2:])) for path in SECRET_FIELDS if path[0] != section]
    assert f"{section}.example.nonsecret: ${{env:...}} is only allowed in secret fields" in text
    assert f"(in `{section}:`: {', '.join(own)})" in text
    assert not [name for name in others if name not in own and name in text]


def test_a_section_without_secret_fields_says_so_and_what_to_write(tmp_path: Path) -> None:
    text = _validate(tmp_path, "organization: {id: org_acme}\nteams:\n  t:\n    title: ${env:X}\n")
    assert "`teams:` has none: write the value itself" in text
