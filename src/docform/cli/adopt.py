"""`docform adopt`: keep what was changed behind the manifests' back by writing it into them."""

from __future__ import annotations

from pathlib import Path

import click

from docform.cli.group import cli
from docform.cli.multi import manifest_sets, planned_sets, report_failures
from docform.cli.output import output_options


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="ADDRESS",
    help="Adopt only this address (repeatable; team.* and site.docs with its parts work).",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="ADDRESS",
    help="Leave this address as drift (repeatable).",
)
@output_options("Also print the API requests' count.")
def adopt(directory: Path, targets: tuple[str, ...], excludes: tuple[str, ...]) -> int:
    """Write the live organization's drift into the manifests in DIRECTORY, in place.

    The live values of drifted fields replace what the entries say, live objects no entry
    manages get an entry (pinned by id, in the file holding their section) and entries whose
    object is gone are removed; comments, order, anchors and quoting stay as written. To undo
    the drift instead, run 'docform apply'. Exits 0 when done, 1 on error.
    """
    return adopt_sets(directory, targets, excludes)


def adopt_sets(directory: Path, targets: tuple[str, ...], excludes: tuple[str, ...]) -> int:
    """Plan every manifest set of ``directory``, adopt its drift, print what was written."""
    from docform.engine.targets import check_patterns
    from docform.render.adopt import render_adopted
    from docform.workflow.adopt import adopt_plan

    outcomes = planned_sets(manifest_sets(directory))
    report_failures(outcomes)
    planned = [o for o in outcomes if o.plan is not None]
    check_patterns([o.plan for o in planned], targets, excludes)
    results = [adopt_plan(o.manifests, o.plan, targets, excludes, check=False) for o in planned]
    click.echo(render_adopted(results), nl=False)
    return 1 if len(planned) != len(outcomes) else 0
