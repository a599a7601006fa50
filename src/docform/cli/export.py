"""`docform export ORG_ID DIR`: write manifests from a live organization."""

from __future__ import annotations

import os
from pathlib import Path

import click

from docform.cli.group import cli
from docform.cli.output import output, output_options
from docform.errors import DocformError
from docform.untrusted.lookalikes import escape_for_terminal


@cli.command()
@click.argument("org_id")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option(
    "--force", is_flag=True, help="Write into a non-empty directory, replacing export's files."
)
@output_options("Also print each retried call.")
def export(org_id: str, directory: Path, force: bool) -> int:
    """Write manifests for everything docform manages in organization ORG_ID into DIRECTORY.

    Reads the organization read-only through DOCFORM_API_URL (with DOCFORM_API_TOKEN) and
    writes organization.yaml, members.yaml, teams.yaml, content.yaml, sites.yaml,
    openapi.yaml and saml.yaml (those with entries), SAML certificates in certs/, and
    docform.lock, which ties each entry to its live object. Afterwards `docform plan
    DIRECTORY` shows no changes. DIRECTORY must be new or
    empty unless --force is given.
    """
    import asyncio

    from docform.render.progress import ReadProgress
    from docform.workflow.connect import Client
    from docform.workflow.export import ExportResult, export_organization

    async def run() -> ExportResult:
        async with Client.from_env(read_only=True) as client:
            return await export_organization(
                org_id,
                directory,
                client=client,
                api_url=os.environ.get("DOCFORM_API_URL"),
                force=force,
                progress=progress,
            )

    with ReadProgress(output().console(stderr=True)) as progress:
        result = asyncio.run(run())
    for note in result.notes:
        # Each asks the user to act: never quiet.
        click.echo(escape_for_terminal(f"Note: {note}"), err=True)
    click.echo(
        f"Exported {result.objects} objects of {org_id} into {directory}: "
        f"{', '.join(result.files)}."
    )
    if result.problems:
        for problem in result.problems:
            click.echo(escape_for_terminal(str(problem.seen_from(directory))), err=True)
        count = len(result.problems)
        raise DocformError(
            f"the exported manifests do not validate ({count} "
            f"{'problem' if count == 1 else 'problems'} above): the live organization holds "
            "objects docform cannot manage as they are, written as they are so that you can "
            "see them. Fix each in the service (an email that passes for another address, two "
            "members whose emails differ only in case) or remove its entry, then run docform "
            f"validate {directory}"
        )
    if not output().quiet:
        click.echo(f"Check it with: docform validate {directory} && docform plan {directory}")
    return 0
