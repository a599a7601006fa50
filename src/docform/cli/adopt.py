"""`docform adopt`: keep what was changed behind the manifests' back by writing it into them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from docform.cli.common import write_output
from docform.cli.group import cli
from docform.cli.multi import audit_trails, manifest_sets, planned_sets, report_failures
from docform.cli.output import output_options


@cli.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="ADDRESS",
    help="Adopt only this address (repeatable; team.* and site.docs with its parts work).",
)
@click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="ADDRESS",
    help="Leave this address as drift (repeatable).",
)
@click.option(
    "--markdown-out",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="FILE",
    help="Also write what was adopted and who made each change as Markdown (a pull request's "
    "description).",
)
@click.option(
    "--since",
    metavar="WHEN",
    help="How far back the audit log is read for who made each change (as for drift).",
)
@output_options("Also print the API requests' count.")
def adopt(
    directory: Path,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    markdown_out: Path | None,
    since: str | None,
) -> int:
    """Write the live organization's drift into the manifests in DIRECTORY, in place.

    The live values of drifted fields replace what the entries say, live objects no entry
    manages get an entry (pinned by id, in the file holding their section) and entries whose
    object is gone are removed; comments, order, anchors and quoting stay as written. To undo
    the drift instead, run 'docform apply'. Exits 0 when done, 1 on error.
    """
    from docform.workflow.audit import since_of

    window = since_of(since, datetime.now(UTC))
    return adopt_sets(directory, targets, excludes, window, markdown_out)


def adopt_sets(
    directory: Path,
    targets: tuple[str, ...],
    excludes: tuple[str, ...],
    since: datetime,
    markdown_out: Path | None = None,
) -> int:
    """Plan every manifest set of ``directory``, adopt its drift, print what was written and
    who made each change (from the audit log since ``since``)."""
    from docform.engine.targets import check_patterns
    from docform.render.adopt import render_adopted, render_adopted_markdown
    from docform.workflow.adopt import adopt_plan

    outcomes = planned_sets(manifest_sets(directory))
    report_failures(outcomes)
    planned = [o for o in outcomes if o.plan is not None]
    check_patterns([o.planned()[1] for o in planned], targets, excludes)
    events = explained(planned, audit_trails(planned, since))
    results = [adopt_plan(*o.planned(), targets, excludes, check=False) for o in planned]
    check_promises(directory, results)
    click.echo(render_adopted(results, events), nl=False)
    if markdown_out is not None:
        text = render_adopted_markdown(results, events)
        write_output(markdown_out, text, "the Markdown adopt report")
    return 1 if len(planned) != len(outcomes) else 0


def check_promises(directory: Path, results: Sequence[Any]) -> None:
    """Plan the manifests as adopt wrote them: what was adopted must show no change now."""
    from docform.workflow.adopt import check_adopted

    written = [r for r in results if r.adopted]
    if not written:
        return
    fresh = {o.source.directory.resolve(): o for o in planned_sets(manifest_sets(directory))}
    for result in written:
        outcome = fresh.get(Path(result.directory).resolve())
        plan = outcome.plan if outcome is not None else None
        error = outcome.error if outcome is not None else "the manifest set is gone"
        check_adopted(result, plan, error)


def explained(outcomes: Sequence[Any], trails: Sequence[Any]) -> dict[str, Any]:
    """The audit events that explain each drifted address of ``outcomes``' plans."""
    from docform.workflow.drift import OrgDrift

    events: dict[str, Any] = {}
    for outcome, trail in zip(outcomes, trails, strict=True):
        org = OrgDrift(outcome, trail)
        events |= {c.address: org.changed_by(c) for c in outcome.plan.changes}
        for u in outcome.plan.unmanaged:
            events[u.address] = org.unmanaged_changed_by(u)
    return events
