"""`docform apply`: make the live organization match the manifests or a saved plan."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from docform.cli.common import (
    allow_option,
    label_option,
    load_manifests,
    run_async,
    use_color,
)
from docform.cli.group import cli
from docform.cli.multi import (
    Planned,
    apply_planned,
    apply_several,
    manifest_sets,
    planned_sets,
    refuse_single_plan_option,
    single,
)
from docform.cli.output import output, output_options
from docform.errors import DocformError

if TYPE_CHECKING:  # the CLI imports what a command runs when it runs
    from docform.engine.plan import Plan
    from docform.manifest.discover import ManifestDir
    from docform.render.apply_events import ApplyEvents
    from docform.workflow.safety import RailOptions


@cli.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("-y", "--yes", is_flag=True, help="Apply without asking for confirmation.")
@click.option(
    "--checksum",
    metavar="SHA",
    help="Apply only if the new plan has this checksum (from 'plan'; with a saved plan, its own).",
)
@click.option(
    "--reviewed",
    "reviewed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --checksum: the reviewed plan ('plan --out' of the review); when the new plan "
    "is not it, each difference is named.",
)
@click.option(
    "--manifests",
    "manifest_directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="With a saved plan: the manifest directory to plan again (default: the one it names, "
    "in the repository holding the plan file or the working directory).",
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
    help="Bypass the deletion limits and the kinds' rails (last admin, team owner, "
    "replacement...; never protect), listing each bypassed rail.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON lines only, one event per line (the plan, each call, notes, and a final "
    "summary, always); needs --yes, --checksum or a saved plan. See docs/json-formats.md.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="ADDRESS",
    help="With a directory: apply only this address and what it needs (repeatable), as "
    "'plan --target'.",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="ADDRESS",
    help="With a directory: leave out this address and what depends on it (repeatable).",
)
@click.option(
    "--no-lock-file",
    "no_lock_file",
    is_flag=True,
    help="Do not write docform.lock (for a read-only checkout); renames then need `formerly`.",
)
@click.option(
    "--no-rehearse",
    "no_rehearse",
    is_flag=True,
    help="Do not rehearse the plan on an in-memory twin of the organization before the first "
    "live call (apply rehearses by default, and applies nothing when the rehearsal fails; "
    "docs/rehearsal.md).",
)
@allow_option
@label_option
@output_options("Also print the planning's API requests' count and each retried call.")
def apply(
    source: Path,
    yes: bool,
    checksum: str | None,
    reviewed: Path | None,
    manifest_directory: Path | None,
    parallelism: int | None,
    max_deletions: int | None,
    force: bool,
    as_json: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    no_lock_file: bool,
    no_rehearse: bool,
    allow: tuple[str, ...],
    labels: tuple[str, ...],
) -> int:
    """Make the live organization match SOURCE: a manifest directory or a saved plan file.

    With a directory, docform plans, shows the plan and asks before it changes anything
    (--yes skips the question; --checksum applies only the plan a reviewer approved). A saved
    plan (from 'plan --out') is a receipt, never a script: the manifests are planned again and
    that plan is applied only when it is exactly the saved one (the same changes and calls, the
    live objects and secrets unchanged), which is its approval; any difference is refused and
    named. The rails it accepts (its --allow list) count only when repeated here or covered
    by --checksum. Safety rails are checked before the first call.

    With --json, stdout holds JSON lines only, one event per line, ending with a summary
    event whatever happens (docs/json-formats.md).

    apply records in docform.lock, beside the manifests, the live object each entry manages
    (commit it): a later rename or move of an entry then keeps its object.

    Before its first live call, apply rehearses the plan on an in-memory twin of what planning
    read (docform's sandbox): when a call is refused there, or the twin does not end up
    matching the manifests, nothing is applied (--no-rehearse skips it; docs/rehearsal.md).
    """
    given = (source, yes, checksum, reviewed, manifest_directory, parallelism, max_deletions,
             force, targets, excludes, no_lock_file, no_rehearse, allow, labels)  # fmt: skip
    if not as_json:
        return _apply(*given)
    from docform.render.apply_events import ApplyEvents

    events = ApplyEvents()
    events.start()
    try:
        if not (yes or checksum or not source.is_dir()):
            raise click.UsageError(
                "apply --json asks nothing: give --yes, --checksum SHA or a saved plan"
            )
        code = _apply(*given, events)
    except click.ClickException as exc:
        events.summary(1, exc.format_message())  # every refusal exits 1 (cli.group)
        raise
    except DocformError as exc:
        events.summary(1, str(exc))
        raise
    events.summary(code)
    return code


def _apply(
    source: Path,
    yes: bool,
    checksum: str | None,
    reviewed: Path | None,
    manifest_directory: Path | None,
    parallelism: int | None,
    max_deletions: int | None,
    force: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    no_lock_file: bool,
    no_rehearse: bool,
    allow: tuple[str, ...],
    labels: tuple[str, ...],
    events: ApplyEvents | None = None,
) -> int:
    """The apply of the command, its options as given; with ``events``, as JSON lines."""
    from docform.render import render_text
    from docform.workflow.safety import assess_rails

    sets = manifest_sets(source) if source.is_dir() else []
    if len(sets) > 1:
        if checksum:
            refuse_single_plan_option("apply", "--checksum", source, sets)
        if targets or excludes:
            refuse_single_plan_option("apply", "--target", source, sets)
        if events is not None:
            raise click.UsageError(
                f"apply --json applies one manifest set, and {source} holds {len(sets)}: give "
                "the directory of one"
            )
        return apply_several(
            sets,
            yes=yes,
            parallelism=parallelism,
            max_deletions=max_deletions,
            force=force,
            allow=allow,
            lock_file=not no_lock_file,
            labels=labels,
            rehearse=not no_rehearse,
        )
    if reviewed is not None and not (checksum and source.is_dir()):
        raise click.UsageError("--reviewed goes with --checksum and a manifest directory")
    rails: RailOptions = {
        "max_deletions": max_deletions,
        "force": force,
        "allow": allow,
        "labels": labels,
    }
    if source.is_dir():
        if manifest_directory is not None:
            raise click.UsageError("--manifests goes with a saved plan; SOURCE is a directory")
        manifests, the_plan = _planned_directory(sets, targets, excludes, rails)
        _refuse_partial(the_plan)
    else:
        manifests, the_plan = _plan_to_apply(source, manifest_directory, targets, excludes)
        _refuse_partial(the_plan)
        if the_plan.rails is not None:  # what its reviewer accepted stays accepted
            rails["allow"] = _saved_allowances(source, the_plan.rails.allowed, allow, checksum)
        assess_rails(manifests, the_plan, **rails)
    if events is not None:
        events.plan(the_plan)
    else:
        click.echo(render_text(the_plan, color=use_color()), nl=False)
    if checksum and checksum != the_plan.checksum():
        from docform.workflow.saved import secret_resolver
        from docform.workflow.unreviewed import refusal

        raise DocformError(refusal(the_plan, checksum, reviewed, secret_resolver(manifests)))
    return apply_planned(
        [Planned("", manifests, the_plan)],
        rails,
        ask=not (yes or checksum or not source.is_dir()),
        parallelism=parallelism,
        lock_file=not no_lock_file,
        rehearse=not no_rehearse,
        events=events,
    )


def _saved_allowances(
    source: Path, saved: Sequence[str], given: Sequence[str], checksum: str | None
) -> tuple[str, ...]:
    """The --allow items of a saved plan, honoured only when vouched for: repeated on this
    command line, or covered by the checksum a reviewer approved (--checksum, which covers
    them and is compared with the plan's). The file cannot vouch for them itself: whoever
    can edit it can recompute its checksum."""
    unvouched = [item for item in saved if item not in given]
    if unvouched and not checksum:
        repeated = " ".join(f"--allow {item}" for item in saved)
        raise DocformError(
            f"nothing was applied: {source} accepts safety rails that only its own file "
            f"vouches for ({', '.join(unvouched)}); a saved plan's --allow list is honoured "
            f"when it is repeated ('docform apply {source} {repeated}') or when --checksum "
            "gives the checksum of the plan that was reviewed with it"
        )
    return (*saved, *given)


def _refuse_partial(the_plan: Plan) -> None:
    if the_plan.not_planned:
        raise DocformError(
            "nothing was applied: the token may not read everything the manifests manage, or "
            "make every change they need ("
            + "; ".join(the_plan.not_planned.values())
            + "), so the plan is partial; apply with a token that may (an organization "
            "admin's, and a user's where the service takes no other kind)"
        )


def _planned_directory(
    sets: Sequence[ManifestDir],
    targets: Sequence[str],
    excludes: Sequence[str],
    rails: RailOptions,
) -> tuple[Any, Any]:
    """The manifests of a directory's one set and their plan made now, narrowed by the
    targets, its rails assessed (`planned_sets`, the pipeline of any number of sets)."""
    from docform.engine.targets import narrow_plan

    def narrow(plan: Plan) -> Plan:
        return narrow_plan(plan, targets, excludes)

    outcome = single(planned_sets(sets, narrow, rails)[0])
    if output().verbose and outcome.stats is not None:
        click.echo(outcome.stats.summary(), err=True)
    return outcome.planned()


def _plan_to_apply(
    source: Path,
    manifest_directory: Path | None,
    targets: Sequence[str],
    excludes: Sequence[str],
) -> tuple[Any, Any]:
    """The manifests and the plan to apply in place of a saved plan, planned now: it must
    match the saved one."""
    if targets or excludes:
        raise click.UsageError(
            "--target goes with a directory; a saved plan applies as it was reviewed"
        )
    return _saved_plan_to_apply(source, manifest_directory)


def _saved_plan_to_apply(source: Path, manifest_directory: Path | None) -> tuple[Any, Any]:
    """The manifests the saved plan ``source`` names (or ``manifest_directory``) and their
    plan made now, which is applied only when it is the saved one: else `DocformError`
    naming every difference."""
    from docform.engine.rails import RailReport
    from docform.engine.targets import narrow_plan
    from docform.workflow.receipt import differences
    from docform.workflow.run import plan_manifests
    from docform.workflow.saved import read_saved, saved_manifest_directory, secret_resolver

    saved = read_saved(source)
    directory = manifest_directory or saved_manifest_directory(source, saved)
    manifests = load_manifests(directory)
    fresh, _ = run_async(plan_manifests(manifests))
    targeting = saved.get("targeting") or {}
    fresh = narrow_plan(fresh, targeting.get("targets", ()), targeting.get("excludes", ()))
    if saved.get("rails"):
        # The --allow items it holds: covered by its checksum, compared just below.
        fresh.rails = RailReport.from_json(saved["rails"])
    found = differences(saved, fresh, secret_resolver(manifests))
    if found:
        raise DocformError(
            f"{source} is not the plan the manifests make now, so nothing was applied: "
            + "; ".join(found)
            + f". Make a new plan of {directory} with 'docform plan --out' and review it"
        )
    return manifests, fresh
