"""`docform show`: print a saved plan as it was reviewed, with no network."""

from __future__ import annotations

from pathlib import Path

import click

from docform.cli.common import markdown_options, use_color, write_output
from docform.cli.group import cli
from docform.cli.output import output_options


@cli.command()
@click.argument("planfile", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the saved plan JSON.")
@click.option("--markdown", is_flag=True, help="Print the plan as Markdown for a pull request.")
@click.option("--compact", is_flag=True, help="Text and Markdown without the API calls.")
@markdown_options
@output_options("No more detail: show reads PLANFILE only, with no network.")
def show(
    planfile: Path,
    as_json: bool,
    markdown: bool,
    compact: bool,
    markdown_out: Path | None,
    markdown_limit: int,
) -> int:
    """Print PLANFILE, a plan saved with 'docform plan --out', without reading the service.

    The plan reads as when it was made: its changes, the safety rails as then evaluated,
    targeting, unmanaged and ignored objects. A plan edited after it was saved is refused.
    """
    from docform.render import render_markdown, render_text
    from docform.render.limit import fit_plan_markdown
    from docform.workflow.saved import load_plan

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    plan, saved = load_plan(planfile)
    if markdown_out is not None:
        whole = render_markdown(plan, show_calls=not compact)
        write_output(markdown_out, whole + "\n", "the Markdown plan")
    if as_json:
        from docform.engine.fingerprints import json_text

        click.echo(json_text(saved))
    elif markdown:
        full_file = str(markdown_out) if markdown_out else None
        fitted = fit_plan_markdown(
            plan, show_calls=not compact, limit=markdown_limit, full_file=full_file
        )
        click.echo(fitted)
    else:
        click.echo(render_text(plan, color=use_color(), show_calls=not compact), nl=False)
    return 0
