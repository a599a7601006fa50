"""What several commands share: loading manifests with problems printed, applying a plan with
progress, colour."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from docform.errors import DocformError


def load_manifests(directory: Path) -> Any:
    """The manifest set, or every problem printed and exit 1."""
    from docform.engine.sets import invalid_manifests
    from docform.manifest import ManifestError, load_manifest_set

    try:
        return load_manifest_set(directory)
    except ManifestError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        raise DocformError(invalid_manifests(len(exc.problems), directory)) from None


def plan_with_progress(manifests: Any) -> tuple[Any, Any]:
    """The plan of ``manifests`` and the API call counts, with read progress on a terminal."""
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.render.progress import ReadProgress

    with ReadProgress() as progress:
        return asyncio.run(plan_manifests(manifests, progress=progress))


def apply_with_progress(
    manifests: Any, plan: Any, parallelism: int | None, as_json: bool, *, lock_file: bool = True
) -> bool:
    """Make the calls of ``plan``, showing progress, then print the report; True when every
    change was made. ``lock_file``: keep docform.lock in step (`docform.identity`)."""
    import asyncio

    from docform.engine.run import apply_changes
    from docform.render.apply import ApplyProgress, render_report

    recorder = start_lock(manifests, plan) if lock_file else None
    workers = parallelism or manifests.settings.limits.parallelism
    calls = sum(len(c.calls) for c in plan.changes)
    created = recorder.created if recorder else None
    with ApplyProgress(calls, as_json=as_json) as progress:
        report = asyncio.run(
            apply_changes(
                manifests, plan, parallelism=workers, on_event=progress, on_created=created
            )
        )
    click.echo(render_report(report), err=not report.ok)
    if recorder and recorder.warning:
        click.echo(f"Warning: {recorder.warning}", err=True)
    return bool(report.ok)


def start_lock(manifests: Any, plan: Any) -> Any:
    """Write docform.lock with the entries ``plan`` matched; the recorder of what follows."""
    from docform.identity import LockRecorder

    recorder = LockRecorder(manifests, plan)
    recorder.start()
    return recorder


def use_color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def refuse_if_rails_broken(plan: Any, label: str = "") -> None:
    """After the plan is shown: exit 1 when a safety rail would make apply refuse it."""
    if plan.refused:
        raise DocformError(rails_broken(plan, label))


def rails_broken(plan: Any, label: str = "") -> str:
    """Why a shown plan fails: the rails it breaks, and what to do."""
    blocking = plan.rails.blocking
    count = len(blocking)
    where = f"{label}: " if label else ""
    hint = (
        "fix the manifests, or plan and apply with --force to bypass "
        + ", ".join(sorted({v.rail for v in blocking if v.forceable}))
        if any(v.forceable for v in blocking)
        else "fix the manifests: --force does not bypass these"
    )
    return (
        f"{where}the plan breaks {count} safety rail{'s' if count != 1 else ''} "
        f"({', '.join(v.rail for v in blocking)}), so apply would refuse it; {hint}"
    )


def markdown_options(command: Any) -> Any:
    """``--markdown-out FILE`` and ``--markdown-limit CHARS``, for commands printing Markdown
    that a workflow posts as a comment or an issue."""
    from docform.render.limit import DEFAULT_LIMIT

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
