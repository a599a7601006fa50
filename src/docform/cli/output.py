"""The output flags every command that prints takes: ``-v/--verbose``, ``-q/--quiet`` and
``--no-color``, the same meaning everywhere.

- ``--verbose``: what happens underneath, on stderr: the API requests made and each retry
  (commands that call the API), the files read (validate); for sandbox serve, a line per
  request it answers (uvicorn's access log, on stdout).
- ``--quiet``: only the result (a plan, a report, problems), errors and what asks the user to
  act: no progress display, no line per call, no summaries or hints.
- ``--no-color``: no colour, as the ``NO_COLOR`` environment variable also asks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])
_KEY = "docform.output"


@dataclass
class Output:
    verbose: bool = False
    quiet: bool = False
    no_color: bool = False

    def color(self, stream: Any = None) -> bool:
        """Colour on ``stream`` (stdout by default): a terminal, and nobody said no."""
        stream = stream or sys.stdout
        return stream.isatty() and not (self.no_color or os.environ.get("NO_COLOR"))

    def console(self, *, stderr: bool = False) -> Console:
        """A rich console for progress displays, silent with --quiet."""
        from rich.console import Console  # rich only for the commands that show progress

        no_color = self.no_color or bool(os.environ.get("NO_COLOR"))
        return Console(stderr=stderr, no_color=no_color, quiet=self.quiet)

    def info(self, text: str) -> None:
        """A note for the user on stderr (not the command's result): left out with --quiet."""
        if not self.quiet:
            click.echo(text, err=True)


def output() -> Output:
    """The output flags of the running command (the defaults outside a command)."""
    context = click.get_current_context(silent=True)
    if context is None:
        return Output()
    flags: Output = context.find_root().meta.setdefault(_KEY, Output())
    return flags


def _setter(name: str) -> Callable[[click.Context, click.Parameter, bool], None]:
    def remember(context: click.Context, _: click.Parameter, value: bool) -> None:
        if value:
            setattr(context.find_root().meta.setdefault(_KEY, Output()), name, True)
        if value and name == "verbose":
            from docform.cli.verbose import api_retries_shown

            context.with_resource(api_retries_shown())

    return remember


def output_options(verbose_help: str) -> Callable[[F], F]:
    """Add ``-v``, ``-q`` and ``--no-color`` to a command; ``verbose_help`` says what -v adds
    for it. Read them with `output()`."""

    def decorate(command: F) -> F:
        options = [
            click.option(
                "--no-color",
                is_flag=True,
                expose_value=False,
                callback=_setter("no_color"),
                help="No colour in the output (as NO_COLOR=1 does).",
            ),
            click.option(
                "-q",
                "--quiet",
                is_flag=True,
                expose_value=False,
                callback=_setter("quiet"),
                help="Print only the result and errors: no progress, summaries or hints.",
            ),
            click.option(
                "-v",
                "--verbose",
                is_flag=True,
                expose_value=False,
                callback=_setter("verbose"),
                is_eager=True,
                help=verbose_help,
            ),
        ]
        for option in options:
            command = option(command)
        return command

    return decorate
