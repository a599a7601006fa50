"""What several commands share: loading manifests with problems printed, applying a plan with
progress, colour."""

from __future__ import annotations

import sys
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from docform.cli.output import output
from docform.errors import DocformError
from docform.untrusted.lookalikes import escape_for_terminal

if TYPE_CHECKING:
    from docform.engine.plan import Plan
    from docform.engine.rails import RailReport, Violation
    from docform.manifest import ManifestSet

T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)``, without formatting its result: Python 3.11's `asyncio.run`
    formats its main task, result included, when it puts the Ctrl-C handler back, and the
    full text of a manifest set and its plan takes longer than the plan took to make."""
    import asyncio

    results: list[T] = []

    async def main() -> None:
        results.append(await coroutine)

    asyncio.run(main())
    return results[0]


def load_manifests(directory: Path) -> Any:
    """The manifest set, or every problem printed and exit 1."""
    from docform.manifest import ManifestError, load_manifest_set
    from docform.workflow.sets import invalid_manifests

    try:
        return load_manifest_set(directory)
    except ManifestError as exc:
        for problem in exc.problems:
            click.echo(str(problem.seen_from(directory)), err=True)
        raise DocformError(invalid_manifests(len(exc.problems), directory)) from None


def plan_with_progress(manifests: ManifestSet) -> tuple[Any, Any]:
    """The plan of ``manifests`` and the API call counts, with read progress on a terminal."""

    from docform.render.progress import ReadProgress
    from docform.workflow.run import plan_manifests

    with ReadProgress(output().console(stderr=True)) as progress:
        return run_async(plan_manifests(manifests, progress=progress))


def apply_with_progress(
    manifests: ManifestSet,
    plan: Plan,
    parallelism: int | None,
    as_json: bool,
    *,
    lock_file: bool = True,
    events: Any = None,
) -> bool:
    """Make the calls of ``plan``, showing progress, then print the report; True when every
    change was made. ``lock_file``: keep docform.lock in step (`docform.workflow.identity`). Ctrl-C
    stops it cleanly (`stop_on_ctrl_c`). ``events`` (`docform.render.apply_events.ApplyEvents`,
    ``apply --json``): the report and notes go there as events, never as text."""

    from docform.engine.stop import ApplyStop
    from docform.render.apply import ApplyProgress, render_report
    from docform.workflow.run import apply_changes

    recorder = start_lock(manifests, plan) if lock_file else None
    workers = parallelism or manifests.settings.limits.parallelism
    created = recorder.created if recorder else None
    stop = ApplyStop()

    async def apply() -> Any:
        with stop_on_ctrl_c(stop, progress):
            return await apply_changes(
                manifests,
                plan,
                parallelism=workers,
                on_event=progress,
                on_created=created,
                on_start=progress.started,
                stop=stop,
            )

    shown = output()
    with ApplyProgress(
        plan.changes, as_json=as_json, console=shown.console(), show_calls=not shown.quiet
    ) as progress:
        report = run_async(apply())
    if recorder:
        recorder.finish(report.done, [change for change, _ in report.failed])
    if events is not None:
        events.report = report
        for note in report.notes:
            events.note(note)
        if recorder and recorder.warning:
            events.warning(recorder.warning)
        return bool(report.ok)
    click.echo(render_report(report), err=not report.ok)
    for note in report.notes:
        click.echo(escape_for_terminal(f"Note: {note}"), err=True)
    if recorder and recorder.warning:
        click.echo(escape_for_terminal(f"Warning: {recorder.warning}"), err=True)
    return bool(report.ok)


def start_lock(manifests: ManifestSet, plan: Plan) -> Any:
    """Write docform.lock with the entries ``plan`` matched; the recorder of what follows."""
    from docform.workflow.identity import LockRecorder

    recorder = LockRecorder(manifests, plan)
    recorder.start()
    return recorder


@contextmanager
def stop_on_ctrl_c(stop: Any, progress: Any) -> Iterator[None]:
    """While inside (in a running event loop), Ctrl-C (or SIGTERM) asks ``stop`` to stop the
    apply and says what happens next, instead of tearing the loop down mid-call. Where signals
    cannot be caught this way (not the main thread, Windows), Python's behaviour stays."""
    import asyncio
    import signal

    def asked() -> None:
        stop.ask()
        in_flight = len(progress.in_flight)
        if stop.asked == 1 and not in_flight:
            progress.notice("Stopping: no new change starts.")
        elif stop.asked == 1:
            progress.notice(
                f"Stopping: no new change starts; waiting for the {in_flight} in flight to "
                "finish. Press Ctrl-C again to abandon them."
            )
        elif stop.asked == 2 and in_flight:
            progress.notice("Abandoning the changes in flight.")

    # SIGTERM too: CI stops a cancelled or timed-out job with it (GitHub after a SIGINT).
    signals = (signal.SIGINT, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    try:
        for signal_number in signals:
            loop.add_signal_handler(signal_number, asked)
    except (NotImplementedError, RuntimeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        for signal_number in signals:
            loop.remove_signal_handler(signal_number)


def confirm_apply(question: str) -> None:
    """Ask ``question`` on the terminal; stop with nothing applied unless the answer is yes.
    Without a terminal to answer on (CI, a pipe), say that --yes is what is missing."""
    try:
        confirmed = click.confirm(question, default=False)
    except click.Abort:
        if sys.stdin.isatty():
            raise
        raise DocformError(
            "apply asks before it changes anything, and standard input is not a terminal, so "
            "nobody can answer; nothing was applied. Review the plan above, then run the same "
            "command with --yes (or apply a reviewed plan: 'docform apply PLANFILE', "
            "or --checksum SHA)"
        ) from None
    if not confirmed:
        raise DocformError("not confirmed: nothing was applied")


def use_color() -> bool:
    """Colour on stdout: a terminal, and neither --no-color nor NO_COLOR."""
    return output().color()


def refuse_if_rails_broken(plan: Plan, label: str = "") -> None:
    """After the plan is shown: exit 1 when a safety rail would make apply refuse it."""
    if plan.refused:
        raise DocformError(rails_broken(plan, label))


def rehearse_plan(manifests: ManifestSet, plan: Plan, parallelism: int | None = None) -> Any:
    """Rehearse ``plan`` on a twin (`docform.workflow.rehearsal`), with the concurrency
    apply would use; the rehearsal is kept in ``plan.rehearsal`` for the renderings."""
    from docform.workflow.rehearsal import rehearse

    workers = parallelism or manifests.settings.limits.parallelism
    return run_async(rehearse(manifests, plan, parallelism=workers))


def refuse_if_rehearsal_failed(plan: Plan, label: str = "") -> None:
    """After the plan is shown: exit 1 when its rehearsal on a twin failed."""
    if plan.rehearsal is not None and not plan.rehearsal.ok:
        raise DocformError(rehearsal_failed(plan, label))


def rehearsal_failed(plan: Plan, label: str = "") -> str:
    """Why a rehearsed plan fails, and what to do."""
    from docform.render.rehearsal import rehearsal_line

    where = f"{label}: " if label else ""
    return (
        f"{where}{rehearsal_line(plan.rehearsal)}. The live organization would refuse or not "
        "match it the same way: fix the manifests (or, where the twin is wrong, see "
        "docs/rehearsal.md and apply with --no-rehearse)"
    )


def passed_by(report: RailReport, violation: Violation) -> str:
    """``--allow accepted`` or ``--force bypassed``: how a rail that apply let through was."""
    return "--allow accepted" if violation in report.accepted else "--force bypassed"


def rails_broken(plan: Plan, label: str = "") -> str:
    """Why a shown plan fails: the rails it breaks, and what to do."""
    blocking = plan.rails.blocking
    count = len(blocking)
    where = f"{label}: " if label else ""
    hint = (
        "fix the manifests, accept one with --allow RAIL:ADDRESS, or plan and apply with "
        "--force to bypass " + ", ".join(sorted({v.rail for v in blocking if v.forceable}))
        if any(v.forceable for v in blocking)
        else "fix the manifests: --force does not bypass these"
    )
    return (
        f"{where}the plan breaks {count} safety rail{'s' if count != 1 else ''} "
        f"({', '.join(v.rail for v in blocking)}), so apply would refuse it; {hint}"
    )


def allow_option(command: Any) -> Any:
    """``--allow RAIL:ADDRESS`` (repeatable): accept one safety rail for one object."""

    def check(_context: Any, _param: Any, items: tuple[str, ...]) -> tuple[str, ...]:
        from docform.engine.rails import AllowError, parse_allow

        try:
            return tuple(parse_allow(item) for item in items)
        except AllowError as error:
            raise click.BadParameter(str(error)) from None

    return click.option(
        "--allow",
        "allow",
        multiple=True,
        metavar="RAIL:ADDRESS",
        callback=check,
        help="Accept one safety rail for one object, as the plan names them "
        "(cascade:collection.~c_1; repeatable): every other rail stays on.",
    )(command)


def label_option(command: Any) -> Any:
    """``--label NAME``: the pull request's labels, which policies may read (``plan.labels``)."""
    return click.option(
        "--label",
        "labels",
        multiple=True,
        metavar="NAME",
        envvar="DOCFORM_LABELS",
        help="A label of the pull request this plan is for (repeatable; DOCFORM_LABELS holds "
        "them separated by spaces): policies read them as plan.labels, e.g. to allow a mass "
        "deletion.",
    )(command)


def markdown_options(command: Any) -> Any:
    """``--markdown-out FILE`` and ``--markdown-limit CHARS``, for commands printing Markdown
    that a workflow posts as a comment or an issue."""
    from docform.render.post_size import DEFAULT_LIMIT

    command = click.option(
        "--markdown-limit",
        type=click.IntRange(2_000),
        default=DEFAULT_LIMIT,
        show_default=True,
        metavar="CHARS",
        help="Longest Markdown to print; a longer one is summarised (every deletion and "
        "safety rail kept) and points to --markdown-out.",
    )(command)
    return click.option(
        "--markdown-out",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="Also write the whole Markdown, never summarised, to FILE (for a workflow to "
        "publish as an artifact or job summary).",
    )(command)


def write_output(path: Path, text: str, what: str) -> None:
    """Write ``text`` to ``path``; an unwritable path is an error naming it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DocformError(
            f"cannot write {what} to {path}: {exc.strerror}; choose a writable path"
        ) from None
