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
            click.echo(str(problem.seen_from(directory)), err=True)
        raise DocformError(invalid_manifests(len(exc.problems), directory)) from None


def plan_with_progress(manifests: Any) -> tuple[Any, Any]:
    """The plan of ``manifests`` and the API call counts, with read progress on a terminal."""
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.render.progress import ReadProgress

    with ReadProgress() as progress:
        return asyncio.run(plan_manifests(manifests, progress=progress))


def apply_with_progress(manifests: Any, plan: Any, parallelism: int | None, as_json: bool) -> bool:
    """Make the calls of ``plan``, showing progress, then print the report; True when every
    change was made."""
    import asyncio

    from docform.engine.run import apply_changes
    from docform.render.apply import ApplyProgress, render_report

    workers = parallelism or manifests.settings.limits.parallelism
    calls = sum(len(c.calls) for c in plan.changes)
    with ApplyProgress(calls, as_json=as_json) as progress:
        report = asyncio.run(apply_changes(manifests, plan, parallelism=workers, on_event=progress))
    click.echo(render_report(report), err=not report.ok)
    return bool(report.ok)


def use_color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")
