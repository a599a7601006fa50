"""`docform apply`: make the live organization match the manifests or a saved plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from docform.cli.common import (
    apply_with_progress,
    confirm_apply,
    load_manifests,
    plan_with_progress,
    start_lock,
    use_color,
)
from docform.cli.group import cli
from docform.cli.multi import apply_several, manifest_sets, refuse_single_plan_option
from docform.cli.output import output, output_options
from docform.errors import DocformError


@cli.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("-y", "--yes", is_flag=True, help="Apply without asking for confirmation.")
@click.option(
    "--checksum",
    metavar="SHA",
    help="With a directory: apply only if the new plan has this checksum (from 'plan').",
)
@click.option(
    "--parallelism",
    type=click.IntRange(1, 64),
    help="Calls to run at once (default: limits.parallelism of the manifests, else 8).",
)
@click.option(
    "--max-deletions",
    type=click.IntRange(0),
    help="Most deletions this apply may make (default: limits.maxDeletions, else 10).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Bypass the deletion limits and the last-admin and team-owner rails (never protect).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line per finished call.")
@click.option(
    "--no-lock-file",
    "no_lock_file",
    is_flag=True,
    help="Do not write docform.lock (for a read-only checkout); renames then need `formerly`.",
)
@output_options("Also print the planning's API requests' count and each retried call.")
def apply(
    source: Path,
    yes: bool,
    checksum: str | None,
    parallelism: int | None,
    max_deletions: int | None,
    force: bool,
    as_json: bool,
    no_lock_file: bool,
) -> int:
    """Make the live organization match SOURCE: a manifest directory or a saved plan file.

    With a directory, docform plans, shows the plan and asks before it changes anything
    (--yes skips the question; --checksum applies only the plan a reviewer approved). A saved
    plan (from 'plan --out') is its own approval; it is refused when an object it changes was
    modified since it was planned. Safety rails are checked before the first call.

    apply records in docform.lock, beside the manifests, the live object each entry manages
    (commit it): a later rename or move of an entry then keeps its object.
    """
    from docform.engine.run import check_safety

    sets = manifest_sets(source) if source.is_dir() else []
    if len(sets) > 1:
        if checksum:
            refuse_single_plan_option("apply", "--checksum", source, sets)
        return apply_several(
            sets,
            yes=yes,
            parallelism=parallelism,
            max_deletions=max_deletions,
            force=force,
            as_json=as_json,
            lock_file=not no_lock_file,
        )
    if source.is_dir():
        manifests = load_manifests(source)
        the_plan = _plan_to_apply(manifests, checksum, yes)
    else:
        if checksum:
            raise click.UsageError("--checksum goes with a directory; a saved plan checks itself")
        manifests, the_plan = _saved_plan_to_apply(source)
    if not the_plan.has_changes:
        if not no_lock_file:
            start_lock(manifests, the_plan)
        return 0
    for rail in check_safety(manifests, the_plan, max_deletions=max_deletions, force=force):
        click.echo(f"Warning: --force bypassed the safety rail {rail}", err=True)
    applied = apply_with_progress(
        manifests, the_plan, parallelism, as_json, lock_file=not no_lock_file
    )
    return 0 if applied else 1


def _plan_to_apply(manifests: Any, checksum: str | None, yes: bool) -> Any:

    from docform.render import render_text

    the_plan, stats = plan_with_progress(manifests)
    click.echo(render_text(the_plan, color=use_color()), nl=False)
    if output().verbose:
        click.echo(stats.summary(), err=True)
    if checksum and checksum != the_plan.checksum():
        raise DocformError(
            f"the plan's checksum is {the_plan.checksum()}, not the approved {checksum}: the "
            "manifests or the live organization changed since; review the new plan"
        )
    if not (yes or checksum or not the_plan.has_changes):
        confirm_apply("Apply these changes?")
    return the_plan


def _saved_plan_to_apply(source: Path) -> tuple[Any, Any]:
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.engine.saved import load_plan, stale_objects

    the_plan, saved = load_plan(source)
    manifests = load_manifests(Path(saved["manifest_directory"]))
    fresh, _ = asyncio.run(plan_manifests(manifests))
    stale = stale_objects(the_plan, fresh)
    if stale:
        raise DocformError(
            f"{source} is stale: these objects changed since it was planned: "
            + ", ".join(stale)
            + "; make a new plan with 'docform plan --out'"
        )
    the_plan.violations, the_plan.live_counts = fresh.violations, fresh.live_counts
    return manifests, the_plan
