"""The manifest sets of a directory, planned by one pipeline whatever their number.

A directory holds one set, or several (a subdirectory each, with its own ``organization:``).
Every command that plans a directory plans its sets here (`planned_sets`); one set is a list
of one, shown and reported as a single organization's plan (`single`), several are grouped by
organization with one total, the command exiting with the worst code (1 > 3 > 2 > 0).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from docform.cli.common import (
    apply_with_progress,
    confirm_apply,
    passed_by,
    rails_broken,
    rehearsal_failed,
    rehearse_plan,
    run_async,
    start_lock,
    use_color,
    write_output,
)
from docform.cli.output import output
from docform.errors import DocformError
from docform.untrusted.lookalikes import escape_for_terminal

if TYPE_CHECKING:  # the CLI imports what a command runs when it runs
    from docform.engine.plan import Plan
    from docform.manifest import ManifestSet
    from docform.manifest.discover import ManifestDir
    from docform.render.apply_events import ApplyEvents
    from docform.workflow.safety import RailOptions
    from docform.workflow.sets import SetOutcome

SAVED_PLAN_REFUSED = (
    "{option} takes one organization's plan, and {directory} holds {count} manifest sets; "
    "run the command on each set's directory instead, e.g. 'docform {command} {example} "
    "{option} ...'"
)


def manifest_sets(directory: Path) -> list[Any]:
    """The manifest sets of ``directory`` (one, unless it holds several organizations)."""
    from docform.manifest.discover import discover_manifest_sets

    return discover_manifest_sets(directory)


def refuse_single_plan_option(
    command: str, option: str, directory: Path, sets: Sequence[Any]
) -> None:
    """``--out`` and ``--checksum`` stand for one plan: refuse them for several sets."""
    message = SAVED_PLAN_REFUSED.format(
        option=option,
        directory=directory,
        count=len(sets),
        command=command,
        example=sets[0].directory,
    )
    raise click.UsageError(message)


def validate_several(outcomes: Sequence[SetOutcome], as_json: bool) -> int:
    """Show the validation of several loaded sets (`docform.workflow.sets.load_sets`)."""
    problems = [p for o in outcomes for p in o.problems]
    if as_json:
        click.echo(json.dumps([p.as_dict() for p in problems], indent=2))
    else:
        for problem in problems:
            click.echo(str(problem))
    for outcome in outcomes:
        if outcome.manifests is not None and not outcome.failed and not output().quiet:
            click.echo(f"Valid: {outcome.label()}: {outcome.manifests.summary()}.", err=as_json)
    if problems:
        failed = sum(1 for o in outcomes if o.failed)
        output().info(
            f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found in {failed} of "
            f"{len(outcomes)} manifest sets."
        )
        return 1
    return 0


def plan_several(
    outcomes: Sequence[SetOutcome],
    *,
    form: str,
    show_calls: bool,
    detailed_exitcode: bool,
    markdown: tuple[Path | None, int],
    verbose: bool,
) -> int:
    """Show the plans of several sets (`planned_sets`); ``form`` is ``text``, ``json`` or
    ``markdown``; ``markdown``: ``--markdown-out`` and ``--markdown-limit``."""
    from docform.render.limit import fit_sets_markdown
    from docform.render.sets import render_sets_json, render_sets_markdown, render_sets_text
    from docform.workflow.sets import worst_exit_code

    markdown_out, markdown_limit = markdown
    if markdown_out is not None:
        whole = render_sets_markdown(outcomes, show_calls=show_calls)
        write_output(markdown_out, whole, "the Markdown plan")
    if form == "markdown":
        fitted = fit_sets_markdown(
            outcomes,
            show_calls=show_calls,
            limit=markdown_limit,
            full_file=str(markdown_out) if markdown_out else None,
        )
        click.echo(fitted, nl=False)
    elif form == "json":
        click.echo(render_sets_json(outcomes))
    else:
        click.echo(render_sets_text(outcomes, color=use_color(), show_calls=show_calls), nl=False)
    report_failures(outcomes)
    if verbose:
        for outcome in outcomes:
            if outcome.stats is not None:
                click.echo(f"{outcome.label()}: {outcome.stats.summary()}", err=True)
    for outcome in outcomes:
        if outcome.plan is not None and outcome.plan.refused:
            broken = rails_broken(outcome.plan, outcome.label())
            click.echo(escape_for_terminal(f"Error: {broken}"), err=True)
        if outcome.plan is not None and _rehearsal_failed(outcome.plan):
            failed = rehearsal_failed(outcome.plan, outcome.label())
            click.echo(escape_for_terminal(f"Error: {failed}"), err=True)
    codes = [_plan_code(o, detailed_exitcode) for o in outcomes]
    return worst_exit_code(codes)


def apply_several(
    sets: Sequence[Any],
    *,
    yes: bool,
    parallelism: int | None,
    max_deletions: int | None,
    force: bool,
    lock_file: bool = True,
    allow: Sequence[str] = (),
    labels: Sequence[str] = (),
    rehearse: bool = True,
) -> int:
    """Plan all, show all, then apply them (`apply_planned`); nothing is applied when one
    could not be planned."""
    from docform.render.sets import render_sets_text

    rails: RailOptions = {
        "max_deletions": max_deletions,
        "force": force,
        "allow": allow,
        "labels": labels,
    }
    outcomes = planned_sets(sets, rails=rails)
    click.echo(render_sets_text(outcomes, color=use_color()), nl=False)
    failed = [o for o in outcomes if o.failed]
    if failed:
        report_failures(outcomes)
        raise DocformError(
            f"{len(failed)} of {len(outcomes)} manifest sets could not be planned, so nothing "
            "was applied; fix them and apply again"
        )
    planned = [Planned(o.label(), *o.planned()) for o in outcomes]
    return apply_planned(
        planned, rails, ask=not yes, parallelism=parallelism, lock_file=lock_file,
        rehearse=rehearse,
    )  # fmt: skip


class Planned(NamedTuple):
    """A manifest set and its plan, shown; ``label`` names its organization where there are
    several (empty for one alone)."""

    label: str
    manifests: ManifestSet
    plan: Plan

    def said(self, text: str) -> str:
        return f"{self.label}: {text}" if self.label else text


def apply_planned(
    planned: Sequence[Planned],
    rails: RailOptions,
    *,
    ask: bool,
    parallelism: int | None,
    lock_file: bool,
    rehearse: bool,
    events: ApplyEvents | None = None,
) -> int:
    """The apply of shown plans, one or several alike: every plan with changes passes its
    safety rails and its rehearsal on a twin first, docform.lock is started for those without,
    the question is asked once, then the plans are applied one after another, stopping at the
    first that fails."""
    to_apply = [p for p in planned if p.plan.has_changes]
    passed = [(p, _passed_rails(p, rails)) for p in to_apply]
    for each in to_apply:
        each.plan.release_review()  # shown and judged: the rehearsal plans beside what is left
    for each in to_apply if rehearse else ():
        _rehearse_first(each, parallelism, events)
    for each in planned if lock_file else ():
        if not each.plan.has_changes:
            start_lock(each.manifests, each.plan)
    if not to_apply:
        return 0
    if ask:
        count = len(to_apply)
        several = f" to {count} organization{'s' if count != 1 else ''}" if len(planned) > 1 else ""
        confirm_apply(f"Apply these changes{several}?")
    for each, rails_passed in passed:
        for rail in rails_passed:
            _warn(each.said(f"{passed_by(each.plan.rails, rail)} the safety rail {rail}"), events)
    for done, each in enumerate(to_apply):
        if len(planned) > 1:
            click.echo(f"== {each.label} ==", err=events is not None)
        json_lines = events is not None
        if not apply_with_progress(
            each.manifests, each.plan, parallelism, json_lines, lock_file=lock_file, events=events
        ):
            _not_applied(to_apply[done + 1 :])
            return 1
    return 0


def _passed_rails(each: Planned, rails: RailOptions) -> list[Any]:
    """The rails ``each`` passes by --allow or --force; a broken one stops everything."""
    from docform.workflow.safety import check_safety

    try:
        return list(check_safety(each.manifests, each.plan, **rails))
    except DocformError as exc:
        if not each.label:
            raise
        raise DocformError(f"{each.label}: {exc}; nothing was applied") from None


def _rehearse_first(each: Planned, parallelism: int | None, events: ApplyEvents | None) -> None:
    """Rehearse a plan on a twin before any live call; nothing is applied when it fails."""
    from docform.render.rehearsal import rehearsal_line

    rehearse_plan(each.manifests, each.plan, parallelism)
    if not each.plan.rehearsal.ok:
        raise DocformError(f"nothing was applied: {rehearsal_failed(each.plan, each.label)}")
    line = each.said(rehearsal_line(each.plan.rehearsal))
    if events is not None:
        events.note(line)
    else:
        click.echo(escape_for_terminal(line))


def _warn(warning: str, events: ApplyEvents | None) -> None:
    if events is not None:
        events.warning(warning)
    else:
        click.echo(escape_for_terminal(f"Warning: {warning}"), err=True)


def _not_applied(rest: Sequence[Planned]) -> None:
    if rest:
        names = ", ".join(p.label for p in rest)
        click.echo(f"Not applied, since an earlier organization did not finish: {names}", err=True)


def planned_sets(
    sets: Sequence[ManifestDir],
    narrow: Callable[[Plan], Plan] | None = None,
    rails: RailOptions | None = None,
    *,
    policies_on_live: bool = False,
) -> list[SetOutcome]:
    """Every set loaded and planned (concurrently); each outcome holds its plan or its error,
    and each plan its safety rails as ``assess_rails(**rails)`` evaluates them
    (``policies_on_live``: see `assess_rails`). One set shows its reads' progress on a
    terminal; several would draw over each other."""
    from docform.render.progress import ReadProgress
    from docform.workflow.safety import assess_rails
    from docform.workflow.sets import plan_sets

    if len(sets) == 1:
        with ReadProgress(output().console(stderr=True)) as progress:
            outcomes = run_async(plan_sets(sets, narrow, progress))
    else:
        outcomes = run_async(plan_sets(sets, narrow))
    for outcome in outcomes:
        if outcome.plan is not None:
            assess_rails(*outcome.planned(), **(rails or {}), policies_on_live=policies_on_live)
    return outcomes


def single(outcome: SetOutcome) -> SetOutcome:
    """The outcome of a directory's one set, with its plan; a set that failed is reported
    (its manifest problems on stderr) and its error raised, as it came."""
    if outcome.failed:
        for problem in outcome.problems:
            click.echo(str(problem), err=True)
        raise outcome.exception or DocformError(outcome.error or "not planned")
    return outcome


def audit_trails(outcomes: Sequence[Any], since: datetime) -> list[Any]:
    """The audit events of each organization since ``since``, read once per run; an
    organization whose audit log cannot be read is said so once, on stderr."""
    import asyncio

    from docform.workflow.audit import read_trails

    trails = asyncio.run(read_trails([(o.manifests, o.plan) for o in outcomes], since))
    for outcome, trail in zip(outcomes, trails, strict=True):
        if trail is not None and trail.unavailable:
            output().info(escape_for_terminal(f"Note: {outcome.label()}: {trail.unavailable}."))
    return trails


def report_failures(outcomes: Sequence[SetOutcome]) -> None:
    """Each set's manifest problems and error, on stderr."""
    for outcome in outcomes:
        for problem in outcome.problems:
            click.echo(str(problem), err=True)
        if outcome.failed:
            click.echo(escape_for_terminal(f"Error: {outcome.label()}: {outcome.error}"), err=True)


def _plan_code(outcome: SetOutcome, detailed_exitcode: bool) -> int:
    from docform.workflow.sets import detailed_exit_code

    if outcome.failed:
        return 1
    _, plan = outcome.planned()
    if plan.refused or _rehearsal_failed(plan):
        return 1
    return detailed_exit_code(plan) if detailed_exitcode else 0


def _rehearsal_failed(plan: Plan) -> bool:
    return plan.rehearsal is not None and not plan.rehearsal.ok
