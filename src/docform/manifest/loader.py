"""`load_manifest_set`: read, merge, resolve, validate and cross-check a manifest directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path as FsPath

from docform.manifest.entries import validate_entries
from docform.manifest.lock import read_lock
from docform.manifest.manifest_set import ManifestSet
from docform.manifest.problems import ManifestError, Problem
from docform.manifest.references import check_references
from docform.manifest.settings import Settings
from docform.manifest.sources import MergedTree, read_directory
from docform.manifest.values import resolve_values
from docform.manifest.yaml_reader import YamlFile


def load_manifest_set(
    directory: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    *,
    read_already: Mapping[FsPath, YamlFile] | None = None,
) -> ManifestSet:
    """Load every manifest under ``directory`` (no network).

    ``env`` holds the variables ``${env:NAME}`` may read (default: the process environment);
    ``read_already``: files already read, not read again (`read_directory`).
    Raises `ManifestError` listing every problem found, sorted by file and line.
    """
    root = FsPath(directory)
    if not root.is_dir():
        raise ManifestError([Problem(".", 0, 0, "", "not a directory")])
    tree = read_directory(root, read_already)
    if not tree.files:
        none = Problem(".", 0, 0, "", "no manifest files (*.yaml, *.yml)")
        raise ManifestError(tree.problems or [none])
    resolve_values(tree, root, os.environ if env is None else env)
    entries = validate_entries(tree)
    lock, lock_problems = read_lock(root)
    # Cross-checks on a partly read directory would blame references to what was not read.
    if tree.complete:
        organization = entries.organization
        check_references(tree, entries, lock.ids_for(organization.id) if organization else {})
    tree.problems += lock_problems
    if tree.problems or entries.organization is None:
        raise ManifestError(tree.problems)
    return ManifestSet(
        directory=root,
        settings=entries.settings or Settings(),
        organization=entries.organization,
        files=tree.files,
        lock=lock,
        api_location=_api_location(tree, entries.settings),
        sections=entries.sections,
        policies=entries.policies,
        written=frozenset(tree.sections),
    )


def _api_location(tree: MergedTree, settings: Settings | None) -> str | None:
    """Where the ``docform: api`` URL is written, when it is."""
    if settings is None or settings.api is None:
        return None
    return str(tree.sources.locate(("docform", "api")))
