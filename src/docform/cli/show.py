"""`docform show`: print a saved plan as it was reviewed, with no network."""

from __future__ import annotations

import json
from pathlib import Path

import click

from docform.cli.common import use_color
from docform.cli.group import cli


@cli.command()
@click.argument("planfile", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the saved plan JSON.")
@click.option("--markdown", is_flag=True, help="Print the plan as Markdown for a pull request.")
@click.option("--compact", is_flag=True, help="Text and Markdown without the API calls.")
def show(planfile: Path, as_json: bool, markdown: bool, compact: bool) -> int:
    """Print PLANFILE, a plan saved with 'docform plan --out', without reading the service.

    The plan reads as when it was made: its changes, the safety rails as then evaluated,
    targeting, unmanaged and ignored objects. A plan edited after it was saved is refused.
    """
    from docform.engine.saved import load_plan
    from docform.render import render_markdown, render_text

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    plan, saved = load_plan(planfile)
    if as_json:
        click.echo(json.dumps(saved, indent=2, ensure_ascii=False))
    elif markdown:
        click.echo(render_markdown(plan, show_calls=not compact))
    else:
        click.echo(render_text(plan, color=use_color(), show_calls=not compact), nl=False)
    return 0
