"""The root command group and its exit-code discipline."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any

import click

from docform import __version__, runtime
from docform.errors import DocformError
from docform.untrusted.lookalikes import escape_for_terminal

if TYPE_CHECKING:
    from importlib.metadata import EntryPoints

COMMAND_GROUP = "docform.commands"
"""The entry point group through which installed packages add commands (the sandbox's
``docform sandbox``): each entry point names a click command, under the entry point's name."""

COMMAND_MODULES = {
    "adopt": "adopt",
    "apply": "apply",
    "drift": "drift",
    "export": "export",
    "graph": "graph",
    "pin": "pin",
    "plan": "plan",
    "schema": "plan",
    "show": "show",
    "state": "state",
    "validate": "plan",
}
"""docform's own commands, by the module of `docform.cli` that defines each (and registers it
on `cli` as it is imported). A command's module is imported when the command runs, so a start
loads only the machinery of the command it runs; all are imported when the commands are
listed."""


class DocformGroup(click.Group):
    """A group whose every failure exits 1, so exit code 2 always means "changes", and whose
    commands include those of installed packages (`COMMAND_GROUP`), looked up only when a
    command is not docform's own or all are listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        plugged = {point.name for point in _plugged_commands()}
        return sorted(set(COMMAND_MODULES) | set(super().list_commands(ctx)) | plugged)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMAND_MODULES:
            import_module(f"docform.cli.{COMMAND_MODULES[cmd_name]}")
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        for point in _plugged_commands(cmd_name):
            plugged: click.Command = point.load()
            return plugged
        return None

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        runtime.start_command()
        runtime.enable()  # this process is the docform command's own
        try:
            # Not standalone, whatever the caller asks: the exit codes are decided below.
            code = super().main(
                args,
                prog_name,
                complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except click.exceptions.Exit as exc:
            sys.exit(1 if exc.exit_code == 2 else exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(1)
        except click.Abort as exc:
            # click turns Ctrl-C into Abort; apply handles it itself while it makes changes.
            interrupted = isinstance(exc.__cause__, KeyboardInterrupt)
            click.echo("Interrupted." if interrupted else "Aborted.", err=True)
            sys.exit(1)
        except DocformError as exc:
            click.echo(escape_for_terminal(f"Error: {exc}"), err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


def _plugged_commands(name: str | None = None) -> EntryPoints:
    """The entry points of `COMMAND_GROUP` (named ``name``, when given). `importlib.metadata`
    is imported here, not with the module: a start that runs one of docform's own commands
    (`--version` among them) never looks plug-ins up."""
    from importlib.metadata import entry_points

    if name is None:
        return entry_points(group=COMMAND_GROUP)
    return entry_points(group=COMMAND_GROUP, name=name)


@click.group(cls=DocformGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="docform")
def cli() -> None:
    """Keep a documentation service organization as YAML manifests in Git.

    docform reads the live organization through the API, diffs it against the manifests and
    plans the ordered API calls that make the two match. The API is set with DOCFORM_API_URL
    (an https URL, or sandbox:FILE.sqlite for the built-in emulator) and DOCFORM_API_TOKEN.
    """
