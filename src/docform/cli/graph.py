"""`docform graph`: the structure of the manifests as a Mermaid flowchart."""

from __future__ import annotations

from pathlib import Path

import click

from docform.cli.common import load_manifests, plan_with_progress
from docform.cli.group import cli
from docform.cli.output import output, output_options


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--plan",
    "with_plan",
    is_flag=True,
    help="Plan against the live organization (read-only) and mark what it adds, changes, "
    "moves and removes.",
)
@click.option(
    "--markdown",
    is_flag=True,
    help="Wrap the diagram in a ```mermaid fence, ready for a pull request or a wiki page.",
)
@click.option(
    "--links/--no-links",
    default=True,
    show_default=True,
    help="Draw a dotted arrow from each site space to the space it publishes.",
)
@output_options("With --plan, also print the API requests' count and each retried call.")
def graph(directory: Path, with_plan: bool, markdown: bool, links: bool) -> int:
    """Draw the organization in DIRECTORY as a Mermaid flowchart: collections and their
    spaces, each site with its section groups, sections and site spaces.

    Without --plan no network is used: the picture is what the manifests describe. With
    --plan, docform reads the live organization like 'docform plan' and marks each node the
    plan adds (+), changes (~), moves (>) or removes (-).
    """
    from docform.render.mermaid import LEGEND, render_mermaid
    from docform.render.structure import structure_of

    manifests = load_manifests(directory)
    the_plan = None
    if with_plan:
        the_plan, stats = plan_with_progress(manifests)
        if output().verbose:
            click.echo(stats.summary(), err=True)
    diagram = render_mermaid(structure_of(manifests, the_plan), links=links)
    if markdown:
        click.echo(f"```mermaid\n{diagram}```")
        if the_plan is not None:
            click.echo(f"\n{LEGEND}")
    else:
        click.echo(diagram, nl=False)
    return 0
