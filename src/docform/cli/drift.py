"""`docform drift`: report how the live organizations differ from their manifests (for CI)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from docform.cli.common import markdown_options, write_output
from docform.cli.group import cli
from docform.cli.multi import manifest_sets, planned_sets, report_failures

if TYPE_CHECKING:
    from docform.engine.drift import DriftReport

FORMATS = ("markdown", "json")


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--report",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the report to FILE (see --format), in sync or not.",
)
@click.option(
    "--format",
    "report_format",
    type=click.Choice(FORMATS),
    help="Format of --report (default markdown); without --report, print this instead of text.",
)
@markdown_options
def drift(
    directory: Path,
    report: Path | None,
    report_format: str | None,
    markdown_out: Path | None,
    markdown_limit: int,
) -> int:
    """Compare the live organization(s) with the manifests in DIRECTORY, read-only.

    Drift is anything a plan would change, and live objects no entry manages; what `ignore:`
    in the settings leaves out is counted, not reported. Exits 0 when in sync, 2 when drift is
    found, 1 on error. A DIRECTORY with one subdirectory per organization checks them all.
    """
    from docform.engine.drift import DriftReport

    outcomes = planned_sets(manifest_sets(directory))
    report_failures(outcomes)
    for outcome in outcomes:
        for warning in outcome.plan.warnings if outcome.plan is not None else ():
            click.echo(f"Warning: {warning}", err=True)
    result = DriftReport.of(outcomes)
    if markdown_out is not None:
        from docform.render.drift import render_drift_markdown

        write_output(markdown_out, render_drift_markdown(result), "the Markdown drift report")
    fit = {"limit": markdown_limit, "full_file": str(markdown_out) if markdown_out else None}
    if report is not None:
        _write(report, _rendered(result, report_format or "markdown", fit))
        click.echo(f"Wrote the drift report to {report}.", err=True)
    click.echo(_rendered(result, report_format if report is None else None, fit), nl=False)
    return result.exit_code


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
