"""`load_manifest_set`: read, merge, resolve, validate and cross-check a manifest directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path as FsPath

from docform.manifest.entries import validate_entries
from docform.manifest.manifest_set import ManifestSet
from docform.manifest.problems import ManifestError, Problem
from docform.manifest.references import check_references
from docform.manifest.settings import Settings
from docform.manifest.sources import read_directory
from docform.manifest.values import resolve_values


def load_manifest_set(
    directory: str | os.PathLike[str], env: Mapping[str, str] | None = None
) -> ManifestSet:
    """Load every manifest under ``directory`` (no network).

    ``env`` holds the variables ``${env:NAME}`` may read (default: the process environment).
    Raises `ManifestError` listing every problem found, sorted by file and line.
    """
    root = FsPath(directory)
    if not root.is_dir():
        raise ManifestError([Problem(".", 0, 0, "", "not a directory")])
    tree = read_directory(root)
    if not tree.files:
        raise ManifestError([Problem(".", 0, 0, "", "no manifest files (*.yaml, *.yml)")])
    resolve_values(tree, root, os.environ if env is None else env)
    entries = validate_entries(tree)
    # Cross-checks on a partly read directory would blame references to what was not read.
    if tree.complete:
        check_references(tree, entries)
    if tree.problems or entries.organization is None:
        raise ManifestError(tree.problems)
    sections = entries.sections
    return ManifestSet(
        directory=root,
        settings=entries.settings or Settings(),
        organization=entries.organization,
        files=tree.files,
        **sections,  # type: ignore[arg-type]
    )
