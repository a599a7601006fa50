"""`docform pin`: record in docform.lock which live object each entry manages, without applying."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from docform.cli.group import cli
from docform.cli.multi import manifest_sets, planned_sets, report_failures, single
from docform.cli.output import output_options

if TYPE_CHECKING:  # the CLI imports what a command runs when it runs
    from docform.engine.plan import Plan
    from docform.manifest import ManifestSet


@cli.command()
@click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), default="."
)
@output_options("Also print each retried call.")
def pin(directory: Path) -> int:
    """Write DIRECTORY/docform.lock from the live organization, changing nothing live.

    Each manifest entry that matches a live object (by `id`, docform.lock, natural key or
    `formerly`) is recorded with that object's id, so later renames and moves of the entry
    keep the object. Entries with no live object yet are listed; apply records them when it
    creates them. Commit docform.lock with the manifests. Exits 0, or 1 on any error.
    """
    outcomes = planned_sets(manifest_sets(directory))
    if len(outcomes) == 1:
        _pin_one(*single(outcomes[0]).planned(), "")
        return 0
    report_failures(outcomes)
    for outcome in outcomes:
        if not outcome.failed:
            _pin_one(*outcome.planned(), f"{outcome.label()}: ")
    return 1 if any(o.failed for o in outcomes) else 0


def _pin_one(manifests: ManifestSet, plan: Plan, label: str) -> None:
    from docform.cli.common import start_lock

    start_lock(manifests, plan)
    path = manifests.directory / "docform.lock"
    count = len(plan.identities)
    click.echo(f"{label}pinned {count} entr{'y' if count == 1 else 'ies'} in {path}")
    missing = [c.address for c in plan.changes if c.action == "create"]
    if missing:
        click.echo(f"{label}not live yet (apply creates and records them): {', '.join(missing)}")
    for note in plan.notes:
        click.echo(f"{label}note: {note}", err=True)
