"""The flags every printing command shares (cli/output.py): -v/--verbose, -q/--quiet and
--no-color, drift's --json/--markdown (its --format kept as a deprecated alias), and
`docform schema --write`."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import click
import pytest

from docform.cli import cli
from docform.cli.group import COMMAND_MODULES
from docform.manifest import schema_text
from planning import FIXTURES, run, write_manifests
from terminal import on_a_terminal

COLOUR = re.compile(r"\x1b\[(\d+;)*(3[0-7]|9[0-7]|38;[0-9;]+)m")


def printing_commands() -> list[tuple[str, click.Command]]:
    found = []
    context = click.Context(cli)
    for name in sorted(COMMAND_MODULES):
        command = cli.get_command(context, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in sorted(command.commands.items())]
        else:
            found.append((name, command))
    return found


@pytest.mark.parametrize(("name", "command"), printing_commands(), ids=lambda v: str(v))
def test_every_command_takes_verbose_quiet_and_no_color(name: str, command: click.Command):
    flags = {flag for param in command.params for flag in param.opts}
    assert {"-v", "--verbose", "-q", "--quiet", "--no-color"} <= flags, name


# -- --quiet and --verbose ---------------------------------------------------------------------


def test_quiet_validate_prints_problems_only(tmp_path: Path, sandbox: Path):
    write_manifests(tmp_path / "m", "organization: {id: org_acme, titel: Acme}\n")
    result = run(["validate", tmp_path / "m", "--quiet"], sandbox)
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        f"{tmp_path}/m/main.yaml:1:30: organization.titel: unknown key 'titel' (did you mean "
        "'title'?)\n"
    )
    valid = run(["validate", FIXTURES / "basic", "-q"], sandbox)
    assert (valid.exit_code, valid.output) == (0, "")


def test_verbose_validate_lists_the_files_read(sandbox: Path):
    result = run(["validate", FIXTURES / "basic", "-v"], sandbox)
    assert result.exit_code == 0
    files = sorted(p.name for p in (FIXTURES / "basic").glob("*.yaml"))
    assert result.stderr == "".join(f"Read {FIXTURES / 'basic' / f}\n" for f in files)


def test_quiet_plan_saves_without_saying_so(basic: Path, sandbox: Path, tmp_path: Path):
    result = run(["plan", basic, "--out", tmp_path / "p.json", "-q"], sandbox)
    assert result.exit_code == 0
    assert result.stderr == ""
    assert "Plan: 13 to create, 1 to update, 0 to delete, 0 to move." in result.stdout
    assert (tmp_path / "p.json").is_file()


def test_quiet_apply_prints_no_line_per_call(basic: Path, sandbox: Path):
    result = run(["apply", basic, "--yes", "--quiet"], sandbox)
    assert result.exit_code == 0
    assert not [line for line in result.stdout.splitlines() if line.startswith("ok ")]
    assert result.stdout.endswith("Apply complete: 14 changes made.\n")


def test_verbose_apply_and_drift_count_the_api_requests(basic: Path, sandbox: Path):
    applied = run(["apply", basic, "--yes", "-v"], sandbox)
    assert applied.exit_code == 0
    assert re.search(r"^\d+ API requests \(GET \d+\)$", applied.stderr, re.M), applied.stderr
    drifted = run(["drift", basic, "-v"], sandbox)
    assert drifted.exit_code == 2  # the seed has objects no entry manages
    assert re.fullmatch(r"org_acme: \d+ API requests \(GET \d+\)\n", drifted.stderr)


def test_quiet_sandbox_seed_prints_nothing(tmp_path: Path):
    result = run(
        ["sandbox", "seed", "--data", tmp_path / "s.sqlite", FIXTURES / "seed.yaml", "-q"],
        tmp_path / "s.sqlite",
    )
    assert (result.exit_code, result.output) == (0, "")


# -- --no-color --------------------------------------------------------------------------------


def test_no_color_leaves_colour_out_of_a_plan_on_a_terminal(basic: Path, sandbox: Path):
    env = {**os.environ, "DOCFORM_API_URL": f"sandbox:{sandbox}"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "docform", "plan", str(basic)]
    assert COLOUR.search(on_a_terminal(command, env, raw=True))
    plain = on_a_terminal([*command, "--no-color"], env, raw=True)
    assert "Plan: 13 to create, 1 to update, 0 to delete, 0 to move." in plain
    assert not COLOUR.search(plain), plain


# -- drift --json / --markdown -----------------------------------------------------------------


def test_drift_json_and_markdown_print_like_plan_does(basic: Path, sandbox: Path):
    as_json = run(["drift", basic, "--json"], sandbox)
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["status"] == "drift"
    as_markdown = run(["drift", basic, "--markdown"], sandbox)
    assert as_markdown.exit_code == 2
    assert as_markdown.stdout.startswith("#")
    both = run(["drift", basic, "--json", "--markdown"], sandbox)
    assert both.exit_code == 1
    assert "choose one of --json and --markdown" in both.stderr


def test_drift_report_format_follows_the_file_name(basic: Path, sandbox: Path, tmp_path: Path):
    result = run(["drift", basic, "--report", tmp_path / "drift.json"], sandbox)
    assert result.exit_code == 2
    assert json.loads((tmp_path / "drift.json").read_text(encoding="utf-8"))["status"] == "drift"
    assert result.stderr == f"Wrote the drift report to {tmp_path / 'drift.json'}.\n"
    run(["drift", basic, "--report", tmp_path / "drift.md"], sandbox)
    assert (tmp_path / "drift.md").read_text(encoding="utf-8").startswith("#")


def test_drift_format_still_works_and_says_it_is_deprecated(basic: Path, sandbox: Path, tmp_path):
    old = run(["drift", basic, "--report", tmp_path / "old.md", "--format", "json"], sandbox)
    assert old.exit_code == 2
    assert json.loads((tmp_path / "old.md").read_text(encoding="utf-8"))["status"] == "drift"
    assert not old.stdout.startswith("{")
    assert old.stderr.startswith(
        "Warning: --format is deprecated: use --json or --markdown for what is printed, and "
        "--report FILE (FILE.json for JSON) for the report file.\n"
    )
    printed = run(["drift", basic, "--format", "json"], sandbox)
    assert json.loads(printed.stdout)["status"] == "drift"


# -- schema --write ----------------------------------------------------------------------------


def test_schema_write_into_a_directory_writes_docform_schema_json(tmp_path: Path):
    (tmp_path / "schemas").mkdir()
    result = run(["schema", "--write", tmp_path / "schemas"], tmp_path / "unused.sqlite")
    written = tmp_path / "schemas" / "docform.schema.json"
    assert result.exit_code == 0
    assert result.stderr == f"Wrote the JSON Schema of the manifests to {written}.\n"
    assert written.read_text(encoding="utf-8") == schema_text()


def test_schema_write_to_a_name_without_extension_makes_it_a_directory(tmp_path: Path):
    result = run(["schema", "--write", tmp_path / "repo" / "schemas"], tmp_path / "unused.sqlite")
    assert result.exit_code == 0
    written = tmp_path / "repo" / "schemas" / "docform.schema.json"
    assert written.read_text(encoding="utf-8") == schema_text()


def test_schema_write_to_a_new_file_creates_its_folders(tmp_path: Path):
    target = tmp_path / "editor" / "manifests.schema.json"
    result = run(["schema", "--write", target, "-q"], tmp_path / "unused.sqlite")
    assert (result.exit_code, result.output) == (0, "")
    assert target.read_text(encoding="utf-8") == schema_text()


def test_schema_write_to_an_unwritable_place_says_so(tmp_path: Path):
    (tmp_path / "file").write_text("", encoding="utf-8")
    result = run(["schema", "--write", tmp_path / "file" / "x.json"], tmp_path / "unused.sqlite")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: cannot write the schema to {tmp_path / 'file' / 'x.json'}: "
        f"{tmp_path / 'file'} is a file, not a directory; choose another --write path\n"
    )
