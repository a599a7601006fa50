"""`docform state list` / `docform state show`: which live object each manifest entry manages."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

import click

from docform.cli.group import cli
from docform.cli.multi import manifest_sets, planned_sets, single
from docform.cli.output import output_options
from docform.errors import DocformError

if TYPE_CHECKING:  # the CLI imports what a command runs when it runs
    from docform.engine.plan import Plan

_DIRECTORY = click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), default="."
)


@cli.group()
def state() -> None:
    """What docform manages, read from the live organization (changing nothing).

    'docform state list DIR' lists every manifest entry's address with the id of the live
    object it manages; 'docform state show DIR ADDRESS' shows one of them: its manifest
    file:line, live id, whether apply would change it, and its live fields (secrets as
    (sensitive)). The addresses are those that plan, --target, policies and docform.lock use.
    """


@state.command("list")
@_DIRECTORY
@click.option(
    "--json", "as_json", is_flag=True, help="Print the list as JSON (docs/json-formats.md)."
)
@output_options("Also print each retried call.")
def state_list(directory: Path, as_json: bool) -> int:
    """List every address DIRECTORY's manifests manage, each with its live id.

    An entry with no live object yet reads "(not live yet)": apply creates it. Each address
    can be given to 'docform state show', 'plan --target' and 'apply --target'.
    Exits 0, or 1 on any error.
    """
    from docform.render.state import state_entries, state_json, state_list_text

    plan = _plan_of(directory)
    entries = state_entries(plan)
    if as_json:
        click.echo(state_json(plan.organization, entries, with_fields=False))
    else:
        click.echo(state_list_text(entries), nl=False)
    return 0


@state.command("show")
@_DIRECTORY
@click.argument("address")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the object as JSON (docs/json-formats.md)."
)
@output_options("Also print each retried call.")
def state_show(directory: Path, address: str, as_json: bool) -> int:
    """Show the entry at ADDRESS (as 'docform state list' names it) and its live object.

    Prints the manifest file:line that declares it, its kind and live id, what apply would do
    to it, and the live object's fields as docform compares them; secrets read (sensitive).
    Exits 0, or 1 when ADDRESS is not managed (with the closest addresses) or on any error.
    """
    from docform.render.state import state_entries, state_json, state_show_text

    plan = _plan_of(directory)
    entries = {entry.address: entry for entry in state_entries(plan)}
    if address not in entries:
        raise DocformError(_unknown(address, sorted(entries), directory))
    if as_json:
        click.echo(state_json(plan.organization, [entries[address]], with_fields=True))
    else:
        click.echo(state_show_text(entries[address]), nl=False)
    return 0


def _plan_of(directory: Path) -> Plan:
    sets = manifest_sets(directory)
    if len(sets) != 1:
        raise DocformError(
            f"{directory} holds {len(sets)} manifest sets; run docform state on one set's "
            "directory at a time"
        )
    _manifests, plan = single(planned_sets(sets)[0]).planned()
    return plan


def _unknown(address: str, known: list[str], directory: Path) -> str:
    close = difflib.get_close_matches(address, known, n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    return (
        f"no managed address '{address}' in {directory}{hint}; "
        f"list them with `docform state list {directory}`"
    )
