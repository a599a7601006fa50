"""What several commands share: loading manifests with problems printed, colour."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from docform.errors import DocformError


def load_manifests(directory: Path) -> Any:
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


def use_color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")
