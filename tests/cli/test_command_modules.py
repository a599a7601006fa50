"""docform's own commands load with the module that defines them (`COMMAND_MODULES`): the table
names every command each module of `docform.cli` registers, under that module, and nothing
else, so no command is missing from ``docform --help`` or unknown to ``docform NAME``."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from importlib import import_module

import click
from click.testing import CliRunner

import docform.cli
from docform.cli import cli
from docform.cli.group import COMMAND_MODULES
from planning import FIXTURES


def registered_commands() -> dict[str, str]:
    """Every command registered on `cli` once all of `docform.cli` is imported, with the module
    that defines it."""
    for info in pkgutil.iter_modules(docform.cli.__path__):
        import_module(f"docform.cli.{info.name}")
    return {name: str(command.callback.__module__) for name, command in cli.commands.items()}


def test_the_table_names_each_command_under_the_module_that_defines_it():
    expected = {name: f"docform.cli.{module}" for name, module in COMMAND_MODULES.items()}
    assert registered_commands() == expected


def test_every_command_of_the_table_runs_and_is_listed():
    listed = CliRunner().invoke(cli, ["--help"]).output
    context = click.Context(cli)
    for name in COMMAND_MODULES:
        command = cli.get_command(context, name)
        assert command is not None and command.name == name
        assert f"\n  {name} " in listed
        shown = CliRunner().invoke(cli, [name, "--help"])
        assert shown.exit_code == 0 and shown.output.startswith(f"Usage: cli {name} "), name


def test_a_command_loads_no_other_commands_module():
    """``docform validate`` imports `docform.cli.plan`, which defines it, and no module of
    another command: a start loads only the machinery of the command it runs."""
    probe = (
        "import sys\n"
        "from docform.cli import main\n"
        f"sys.argv = ['docform', 'validate', {str(FIXTURES / 'basic')!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(name for name in sys.modules if name.startswith('docform.cli.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = {name.removeprefix("docform.cli.") for name in done.stdout.splitlines()[-1].split()}
    assert loaded & set(COMMAND_MODULES.values()) == {"plan"}
