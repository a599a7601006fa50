"""`docform drift`: report how the live organizations differ from their manifests (for CI)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from docform.cli.common import markdown_options, write_output
from docform.cli.group import cli
from docform.cli.multi import audit_trails, manifest_sets, planned_sets, report_failures
from docform.cli.output import output, output_options
from docform.untrusted.lookalikes import escape_for_terminal

if TYPE_CHECKING:
    from docform.workflow.drift import DriftReport

FORMATS = ("markdown", "json")


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as versioned JSON.")
@click.option("--markdown", is_flag=True, help="Print the report as Markdown (an issue body).")
@click.option(
    "--report",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the report to FILE, in sync or not: JSON when FILE ends in .json, else "
    "Markdown.",
)
@click.option(
    "--format",
    "report_format",
    type=click.Choice(FORMATS),
    hidden=True,
    help="Deprecated: --json or --markdown, and --report FILE.json for a JSON report.",
)
@click.option(
    "--adopt",
    is_flag=True,
    help="Then write the drift into the manifests in place, as 'docform adopt' does (what "
    "was written goes to stderr).",
)
@click.option(
    "--since",
    metavar="WHEN",
    help="How far back the audit log is read for who changed what: a date-time, a date, or a "
    "span such as 12h, 7d, 2w (default: 30 days).",
)
@markdown_options
@output_options("Also print the API requests' count and each retried call.")
def drift(
    directory: Path,
    adopt: bool,
    since: str | None,
    as_json: bool,
    markdown: bool,
    report: Path | None,
    report_format: str | None,
    markdown_out: Path | None,
    markdown_limit: int,
) -> int:
    """Compare the live organization(s) with the manifests in DIRECTORY, read-only.

    Drift is anything a plan would change, and live objects no entry manages; what `ignore:`
    in the settings leaves out is counted, not reported. Exits 0 when in sync, 2 when drift is
    found, 3 when none is found but the token may not read some kinds (listed as not
    checked), 1 on error. A DIRECTORY with one subdirectory per organization checks them all.
    """
    from docform.workflow.audit import since_of
    from docform.workflow.drift import DriftReport

    if as_json and markdown:
        raise click.UsageError("choose one of --json and --markdown")
    printed, written = _formats(as_json, markdown, report, report_format)
    window = since_of(since, datetime.now(UTC))
    outcomes = planned_sets(manifest_sets(directory), policies_on_live=True)
    report_failures(outcomes)
    for outcome in outcomes:
        for warning in outcome.plan.warnings if outcome.plan is not None else ():
            click.echo(escape_for_terminal(f"Warning: {warning}"), err=True)
    if output().verbose:
        for outcome in outcomes:
            if outcome.stats is not None:
                click.echo(f"{outcome.label()}: {outcome.stats.summary()}", err=True)
    result = DriftReport.of(outcomes, audits=audit_trails(outcomes, window))
    if markdown_out is not None:
        from docform.render.drift import render_drift_markdown

        write_output(markdown_out, render_drift_markdown(result), "the Markdown drift report")
    fit = {"limit": markdown_limit, "full_file": str(markdown_out) if markdown_out else None}
    if report is not None:
        _write(report, _rendered(result, written, fit))
        output().info(f"Wrote the drift report to {report}.")
    click.echo(_rendered(result, printed, fit), nl=False)
    if adopt:
        _adopt(result)
    return result.exit_code


def _adopt(report: DriftReport) -> None:
    from docform.cli.adopt import explained
    from docform.render.adopt import render_adopted
    from docform.workflow.adopt import adopt_plan

    checked = [o for o in report.orgs if o.plan is not None]
    events = explained([o.outcome for o in checked], [o.audit for o in checked])
    results = [adopt_plan(*o.outcome.planned()) for o in checked]
    click.echo(render_adopted(results, events), nl=False, err=True)


def _formats(
    as_json: bool, markdown: bool, report: Path | None, report_format: str | None
) -> tuple[str | None, str]:
    """The format printed (None: text) and the format of --report."""
    written = "json" if report is not None and report.suffix == ".json" else "markdown"
    if report_format is None:
        return ("json" if as_json else "markdown" if markdown else None), written
    click.echo(
        "Warning: --format is deprecated: use --json or --markdown for what is printed, and "
        "--report FILE (FILE.json for JSON) for the report file.",
        err=True,
    )
    if report is None:
        return report_format, written
    return ("json" if as_json else "markdown" if markdown else None), report_format


def _rendered(result: DriftReport, report_format: str | None, fit: dict[str, Any]) -> str:
    """The report in ``report_format`` (text when None); Markdown fitted by ``fit``'s limit."""
    from docform.render.drift import render_drift_json, render_drift_text
    from docform.render.limit import fit_drift_markdown

    if report_format == "json":
        return render_drift_json(result) + "\n"
    if report_format == "markdown":
        return fit_drift_markdown(result, **fit)
    return render_drift_text(result)


def _write(path: Path, text: str) -> None:
    from docform.errors import DocformError

    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise DocformError(
            f"cannot write the report to {path}: {exc.strerror}; choose a writable --report path"
        ) from None
