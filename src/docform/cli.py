"""The ``docform`` command line: parse, call, render, exit code. No logic lives here.

Exit codes are the same for every command: 0 success (for ``--detailed-exitcode``: no changes),
1 any error, usage errors included, and 2 only for "there are changes" or "drift found".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from docform import __version__
from docform.errors import DocformError


class DocformGroup(click.Group):
    """A group whose every failure exits 1, so exit code 2 always means "changes"."""

    def main(self, args: Any = None, prog_name: str | None = None, **extra: Any) -> Any:
        extra["standalone_mode"] = False
        try:
            code = super().main(args, prog_name, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(1 if exc.exit_code == 2 else exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(1)
        except click.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        except DocformError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=DocformGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="docform")
def cli() -> None:
    """Keep a documentation service organization as YAML manifests in Git.

    docform reads the live organization through the API, diffs it against the manifests and
    plans the ordered API calls that make the two match. The API is set with DOCFORM_API_URL
    (an https URL, or sandbox:FILE.sqlite for the built-in emulator) and DOCFORM_API_TOKEN.
    """


@cli.group()
def sandbox() -> None:
    """The built-in emulator of the documentation service API."""


@sandbox.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--data",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file holding the sandbox state; created when missing, kept across restarts.",
)
@click.option(
    "--token",
    "tokens",
    multiple=True,
    help="A bearer token with admin rights on every organization (repeatable).",
)
@click.option(
    "--seed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML file of organizations, users, sites and tokens to create (see README).",
)
@click.option("--latency-ms", default=0.0, type=click.FloatRange(0), help="Delay every answer.")
@click.option(
    "--rate-limit",
    type=click.FloatRange(min=1),
    help="Requests per second to allow; beyond it the sandbox answers 429 with Retry-After.",
)
@click.option(
    "--faults",
    "fault_spec",
    default="",
    metavar="SPEC",
    help="Fail some requests on purpose: KIND:PROBABILITY[@METHOD:PATH][#N],... with KIND one "
    "of 500 502 503 504 429 drop lost slow (e.g. 500:0.05,lost:1@POST:/orgs/*/teams#2).",
)
@click.option("--fault-seed", type=int, help="Seed of the fault draws (default: random).")
@click.option(
    "--slow-seconds",
    default=35.0,
    show_default=True,
    type=click.FloatRange(0),
    help="How long a 'slow' fault holds an answer back.",
)
def sandbox_serve(
    host: str,
    port: int,
    data: Path,
    tokens: tuple[str, ...],
    seed: Path | None,
    latency_ms: float,
    rate_limit: float | None,
    fault_spec: str,
    fault_seed: int | None,
    slow_seconds: float,
) -> int:
    """Serve the sandbox API over HTTP at http://HOST:PORT/v1 until interrupted.

    GET|PUT /_sandbox/faults reads or replaces the faults while it runs.
    """
    from docform.sandbox.faults import FaultSettings, FaultSpecError
    from docform.sandbox.serve import serve

    try:
        faults = FaultSettings(fault_spec, fault_seed, slow_seconds)
    except FaultSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="'--faults'") from None
    serve(
        host=host,
        port=port,
        data=data,
        admin_tokens=tokens,
        seed=seed,
        latency_ms=latency_ms,
        rate_limit=rate_limit,
        faults=faults,
    )
    return 0


@sandbox.command("seed")
@click.option(
    "--data",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file holding the sandbox state; created when missing.",
)
@click.argument("seed_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def sandbox_seed(data: Path, seed_file: Path) -> int:
    """Load SEED_FILE into the sandbox at --data (objects that already exist are kept)."""
    from docform.sandbox.seed import apply_seed, load_seed_file
    from docform.sandbox.store import Store

    store = Store(data)
    try:
        apply_seed(store, load_seed_file(seed_file))
    finally:
        store.close()
    click.echo(f"Seeded {data} from {seed_file}.")
    return 0


@cli.command()
@click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), default="."
)
@click.option("--json", "as_json", is_flag=True, help="Print problems as a JSON list of objects.")
def validate(directory: Path, as_json: bool) -> int:
    """Check the manifests in DIRECTORY (no network): format, limits, references.

    Prints every problem as FILE:LINE:COL: path.to.field: message (FILE relative to DIRECTORY)
    and exits 1; valid manifests exit 0 with a summary of what they hold.
    """
    from docform.manifest import ManifestError, load_manifest_set

    try:
        manifests = load_manifest_set(directory)
    except ManifestError as exc:
        if as_json:
            click.echo(json.dumps([problem.as_dict() for problem in exc.problems], indent=2))
        else:
            for problem in exc.problems:
                click.echo(str(problem))
        count = len(exc.problems)
        click.echo(f"{count} problem{'s' if count != 1 else ''} found.", err=True)
        return 1
    if as_json:
        click.echo("[]")
    click.echo(f"Valid: {manifests.summary()}.", err=as_json)
    return 0


def _load(directory: Path) -> Any:
    """The manifest set, or every problem printed and exit 1."""
    from docform.manifest import ManifestError, load_manifest_set

    try:
        return load_manifest_set(directory)
    except ManifestError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        count = len(exc.problems)
        raise DocformError(
            f"{count} problem{'s' if count != 1 else ''} in the manifests; "
            f"run 'docform validate {directory}' for details"
        ) from None


def _use_color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the plan as versioned JSON.")
@click.option("--markdown", is_flag=True, help="Print the plan as Markdown for a pull request.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also save the plan (JSON, no secrets) for 'docform apply FILE'.",
)
@click.option(
    "--detailed-exitcode",
    is_flag=True,
    help="Exit 0 when there are no changes, 2 when there are, 1 on error.",
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
@click.option("-v", "--verbose", is_flag=True, help="Also print the number of API requests.")
def plan(
    directory: Path,
    as_json: bool,
    markdown: bool,
    out: Path | None,
    detailed_exitcode: bool,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    verbose: bool,
) -> int:
    """Show the API calls that would make the live organization match DIRECTORY.

    Reads the live organization (read-only: planning can never change it), matches every
    manifest entry to a live object, and prints the changes in the order apply would make
    them. The API comes from DOCFORM_API_URL, else from `docform: api` in the manifests; the
    token from DOCFORM_API_TOKEN.
    """
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.engine.saved import save_plan
    from docform.engine.targets import narrow_plan
    from docform.render import render_json, render_markdown, render_text
    from docform.render.progress import ReadProgress

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    manifests = _load(directory)
    with ReadProgress() as progress:
        the_plan, stats = asyncio.run(plan_manifests(manifests, progress=progress))
    the_plan = narrow_plan(the_plan, targets, excludes)
    if as_json:
        click.echo(render_json(the_plan))
    elif markdown:
        click.echo(render_markdown(the_plan))
    else:
        click.echo(render_text(the_plan, color=_use_color()), nl=False)
    if out is not None:
        save_plan(the_plan, manifests, out)
        click.echo(f"Saved the plan to {out}; apply it with 'docform apply {out}'.", err=True)
    if verbose:
        click.echo(stats.summary(), err=True)
    return 2 if detailed_exitcode and the_plan.has_changes else 0


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
def apply(
    source: Path,
    yes: bool,
    checksum: str | None,
    parallelism: int | None,
    max_deletions: int | None,
    force: bool,
    as_json: bool,
) -> int:
    """Make the live organization match SOURCE: a manifest directory or a saved plan file.

    With a directory, docform plans, shows the plan and asks before it changes anything
    (--yes skips the question; --checksum applies only the plan a reviewer approved). A saved
    plan (from 'plan --out') is its own approval; it is refused when an object it changes was
    modified since it was planned. Safety rails are checked before the first call.
    """
    import asyncio

    from docform.engine.run import apply_changes, check_safety
    from docform.render.apply import ApplyProgress, render_report

    if source.is_dir():
        manifests = _load(source)
        the_plan = _plan_to_apply(manifests, checksum, yes)
    else:
        if checksum:
            raise click.UsageError("--checksum goes with a directory; a saved plan checks itself")
        manifests, the_plan = _saved_plan_to_apply(source)
    if not the_plan.has_changes:
        return 0
    for rail in check_safety(manifests, the_plan, max_deletions=max_deletions, force=force):
        click.echo(f"Warning: --force bypassed the safety rail {rail}", err=True)
    workers = parallelism or manifests.settings.limits.parallelism
    calls = sum(len(c.calls) for c in the_plan.changes)
    with ApplyProgress(calls, as_json=as_json) as progress:
        report = asyncio.run(
            apply_changes(manifests, the_plan, parallelism=workers, on_event=progress)
        )
    click.echo(render_report(report), err=not report.ok)
    return 0 if report.ok else 1


def _plan_to_apply(manifests: Any, checksum: str | None, yes: bool) -> Any:
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.render import render_text
    from docform.render.progress import ReadProgress

    with ReadProgress() as progress:
        the_plan, _ = asyncio.run(plan_manifests(manifests, progress=progress))
    click.echo(render_text(the_plan, color=_use_color()), nl=False)
    if checksum and checksum != the_plan.checksum():
        raise DocformError(
            f"the plan's checksum is {the_plan.checksum()}, not the approved {checksum}: the "
            "manifests or the live organization changed since; review the new plan"
        )
    confirmed = yes or checksum or not the_plan.has_changes
    if not confirmed and not click.confirm("Apply these changes?", default=False):
        raise click.Abort()
    return the_plan


def _saved_plan_to_apply(source: Path) -> tuple[Any, Any]:
    import asyncio

    from docform.engine.run import plan_manifests
    from docform.engine.saved import load_plan, stale_objects

    the_plan, saved = load_plan(source)
    manifests = _load(Path(saved["manifest_directory"]))
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


@cli.command()
def schema() -> int:
    """Print the JSON Schema of the manifest format (as committed in schemas/)."""
    from docform.manifest import schema_text

    click.echo(schema_text(), nl=False)
    return 0


def main() -> None:
    cli.main(prog_name="docform")
