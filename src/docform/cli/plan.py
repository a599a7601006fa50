"""`docform validate`, `plan` and `schema`: read-only commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from docform.cli.common import (
    allow_option,
    label_option,
    markdown_options,
    refuse_if_rails_broken,
    refuse_if_rehearsal_failed,
    rehearse_plan,
    use_color,
    write_output,
)
from docform.cli.group import cli
from docform.cli.multi import (
    manifest_sets,
    plan_several,
    planned_sets,
    refuse_single_plan_option,
    single,
    validate_several,
)
from docform.cli.output import output, output_options
from docform.untrusted.lookalikes import escape_for_terminal

if TYPE_CHECKING:  # the CLI imports what a command runs when it runs
    from collections.abc import Sequence

    from docform.api.stats import CallStats
    from docform.engine.plan import Plan
    from docform.manifest import ManifestSet
    from docform.manifest.discover import ManifestDir
    from docform.workflow.safety import RailOptions
    from docform.workflow.sets import SetOutcome


@cli.command()
@click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), default="."
)
@click.option("--json", "as_json", is_flag=True, help="Print problems as a JSON list of objects.")
@output_options("Also list the files read.")
def validate(directory: Path, as_json: bool) -> int:
    """Check the manifests in DIRECTORY (no network): format, limits, references.

    Prints every problem as FILE:LINE:COL: path.to.field: message (FILE relative to the
    working directory, like DIRECTORY) and exits 1; valid manifests exit 0 with a summary of
    what they hold.
    """
    from docform.workflow.sets import load_sets

    outcomes = load_sets(manifest_sets(directory))
    if len(outcomes) > 1:
        return validate_several(outcomes, as_json)
    (outcome,) = outcomes
    if outcome.manifests is None:
        if as_json:
            click.echo(json.dumps([problem.as_dict() for problem in outcome.problems], indent=2))
        else:
            for problem in outcome.problems:
                click.echo(str(problem))
        count = len(outcome.problems)
        output().info(f"{count} problem{'s' if count != 1 else ''} found.")
        return 1
    manifests = outcome.manifests
    if as_json:
        click.echo("[]")
    for note in manifests.lock.notes:
        click.echo(escape_for_terminal(f"Note: {note}"), err=True)
    if output().verbose:
        for file in manifests.files:
            click.echo(f"Read {Path(directory, file)}", err=True)
    if not output().quiet:
        click.echo(f"Valid: {manifests.summary()}.", err=as_json)
    return 0


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the plan as versioned JSON.")
@click.option("--markdown", is_flag=True, help="Print the plan as Markdown for a pull request.")
@click.option(
    "--compact",
    is_flag=True,
    help="Text and Markdown without the API calls: each change with its fields only.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also save the plan (JSON, no secrets) for 'docform apply FILE'.",
)
@click.option(
    "--detailed-exitcode",
    is_flag=True,
    help="Exit 0 when there are no changes, 2 when there are, 3 when the plan is partial (the "
    "token may not read some kinds), 1 on error.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="ADDRESS",
    help="Plan only this address and what it needs (repeatable; site.docs includes its parts).",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="ADDRESS",
    help="Leave out this address and what depends on it (repeatable).",
)
@click.option(
    "--max-deletions",
    type=click.IntRange(0),
    help="Most deletions the plan may make (default: limits.maxDeletions, else 10), as apply.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Plan as 'apply --force' would: bypass the deletion limits and the kinds' rails "
    "(never protect), listing each bypassed rail.",
)
@click.option(
    "--explain-token",
    is_flag=True,
    help="Also say what the token needs for this plan: its role, and the OAuth scopes of the "
    "calls (JSON: a `token` key).",
)
@click.option(
    "--rehearse",
    is_flag=True,
    help="Also run the plan's calls on an in-memory twin of what planning read (docform's "
    "sandbox, no live call), then plan again there: says whether every call is accepted and "
    "the result converges, and exits 1 when not (docs/rehearsal.md).",
)
@allow_option
@label_option
@markdown_options
@output_options("Also print the API requests' count and each retried call.")
def plan(
    directory: Path,
    as_json: bool,
    markdown: bool,
    compact: bool,
    out: Path | None,
    detailed_exitcode: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    max_deletions: int | None,
    force: bool,
    allow: tuple[str, ...],
    labels: tuple[str, ...],
    markdown_out: Path | None,
    markdown_limit: int,
    explain_token: bool = False,
    rehearse: bool = False,
) -> int:
    """Show the API calls that would make the live organization match DIRECTORY.

    Reads the live organization (read-only: planning can never change it), matches every
    manifest entry to a live object, and prints the changes in the order apply would make
    them. Every safety rail is checked as apply checks it: a plan that breaks one is shown
    with the rails it breaks and exits 1 (unless --force bypasses them). The API comes from
    DOCFORM_API_URL, else from `docform: api` in the manifests; the token from
    DOCFORM_API_TOKEN.
    """
    from docform.workflow.repository import head_commit
    from docform.workflow.saved import save_plan
    from docform.workflow.sets import detailed_exit_code

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    verbose = output().verbose
    form = "json" if as_json else "markdown" if markdown else "text"
    sets = manifest_sets(directory)
    if len(sets) > 1 and out is not None:
        refuse_single_plan_option("plan", "--out", directory, sets)
    if len(sets) > 1 and explain_token:
        refuse_single_plan_option("plan", "--explain-token", directory, sets)
    rails: RailOptions = {
        "max_deletions": max_deletions,
        "force": force,
        "allow": allow,
        "labels": labels,
    }
    outcomes = _planned_and_narrowed(sets, targets, excludes, rails)
    if rehearse:
        for outcome in outcomes:
            if outcome.plan is not None:
                rehearse_plan(*outcome.planned())
    if len(outcomes) > 1:
        return plan_several(
            outcomes,
            form=form,
            show_calls=not compact,
            detailed_exitcode=detailed_exitcode,
            markdown=(markdown_out, markdown_limit),
            verbose=verbose,
        )
    manifests, the_plan = outcomes[0].planned()
    stats = outcomes[0].stats
    assert stats is not None, "a planned set has its call counts"
    the_plan.commit = head_commit(directory)
    if explain_token:
        the_plan.token = _token_needs(the_plan, stats)
    _print_plan(the_plan, manifests, form, not compact, (markdown_out, markdown_limit))
    if explain_token and form != "json":
        click.echo("\n".join(the_plan.token.lines()))
    if out is not None:
        save_plan(the_plan, manifests, out)
        output().info(f"Saved the plan to {out}; apply it with 'docform apply {out}'.")
    if verbose:
        click.echo(stats.summary(), err=True)
    refuse_if_rails_broken(the_plan)
    refuse_if_rehearsal_failed(the_plan)
    return detailed_exit_code(the_plan) if detailed_exitcode else 0


def _planned_and_narrowed(
    sets: Sequence[ManifestDir],
    targets: Sequence[str],
    excludes: Sequence[str],
    rails: RailOptions,
) -> list[SetOutcome]:
    """Every set planned (`planned_sets`) and narrowed by the targets; a target need match in
    one set only, each set narrowed by what matches in it. One set that failed raises its
    error first (`single`), before a target is judged against no plan."""
    from docform.engine.targets import check_patterns, narrow_plan

    def narrow(plan: Plan) -> Plan:
        return narrow_plan(plan, targets, excludes, check=False)

    outcomes = planned_sets(sets, narrow, rails)
    if len(outcomes) == 1:
        single(outcomes[0])
    check_patterns([o.plan for o in outcomes if o.plan is not None], targets, excludes)
    return outcomes


def _token_needs(the_plan: Plan, stats: CallStats) -> Any:
    """What the plan's reads (as the client counted them) and calls need of the token."""
    from docform.api.scopes import token_needs
    from docform.api.stats import route_of

    reads = [route for route in stats.by_route if route.startswith("GET ")]
    writes = [
        f"{c.method} {route_of(c.path, stats.list_names)}"
        for change in the_plan.changes
        for c in change.calls
    ]
    return token_needs(reads, writes)


def _print_plan(
    the_plan: Plan, manifests: ManifestSet, form: str, show_calls: bool, markdown: tuple[Any, int]
) -> None:
    """Print the plan as ``form`` (text, json, markdown); ``markdown``: ``--markdown-out``
    (written whole whatever the output) and ``--markdown-limit``."""
    from docform.render import render_json, render_markdown, render_text

    markdown_out, limit = markdown
    diagram = None
    if form == "markdown" or markdown_out is not None:
        from docform.render.mermaid import plan_diagram

        diagram = plan_diagram(manifests, the_plan)
    if markdown_out is not None:
        whole = render_markdown(the_plan, diagram=diagram, show_calls=show_calls)
        write_output(markdown_out, whole + "\n", "the Markdown plan")
    if form == "json":
        click.echo(render_json(the_plan))
    elif form == "markdown":
        from docform.render.limit import fit_plan_markdown

        full_file = str(markdown_out) if markdown_out else None
        click.echo(
            fit_plan_markdown(
                the_plan, diagram, show_calls=show_calls, limit=limit, full_file=full_file
            )
        )
    else:
        click.echo(render_text(the_plan, color=use_color(), show_calls=show_calls), nl=False)


@cli.command()
@click.option(
    "--write",
    "target",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Write the schema to PATH instead of printing it; a directory, or a name without an "
    "extension, gets PATH/docform.schema.json.",
)
@output_options("No more detail: the schema is all there is.")
def schema(target: Path | None) -> int:
    """Print the JSON Schema of the manifest format (as committed in schemas/).

    Editors check and complete manifests against it: keep a copy in the manifest repository
    (--write schemas/) and start each manifest with
    '# yaml-language-server: $schema=../schemas/docform.schema.json' (the path from the file).
    """
    from docform.manifest import schema_text
    from docform.manifest.schema import write_schema

    if target is None:
        click.echo(schema_text(), nl=False)
        return 0
    written = write_schema(target)
    output().info(f"Wrote the JSON Schema of the manifests to {written}.")
    return 0
