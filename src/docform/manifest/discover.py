"""Finding the manifest sets of a directory: one organization, or several side by side.

A directory whose manifests declare ``organization:`` at most once is one manifest set, read
exactly as before. A directory declaring it several times holds several sets: each
subdirectory that declares it once is a set of its own, and a subdirectory declaring it several
times is searched the same way (``orgs/prod/acme/``, ``orgs/prod/beta/``...). Every manifest
file must then belong to exactly one set, so nothing is silently left out of a plan.

Discovery reads no YAML: it looks for a top-level ``organization:`` key in each file's text, so
a broken file is still reported by the loader, with its location, and not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docform.errors import DocformError
from docform.manifest.sources import manifest_files
from docform.manifest.yaml_reader import MAX_FILE_BYTES

_ORGANIZATION_KEY = re.compile(r"^(?:organization|['\"]organization['\"])\s*:", re.MULTILINE)


class DiscoveryError(DocformError):
    """The directory's manifests cannot be split into manifest sets unambiguously."""


@dataclass(frozen=True)
class ManifestDir:
    """One manifest set: its directory and its name relative to the directory given."""

    directory: Path
    name: str


def discover_manifest_sets(root: Path) -> list[ManifestDir]:
    """The manifest sets under ``root``: ``[root]`` itself unless it holds several
    organizations; then one per subdirectory, sorted by path."""
    files = manifest_files(root)
    declaring = [path for path in files if _declares_organization(path)]
    if len(declaring) <= 1:
        return [ManifestDir(root, ".")]
    roots = _set_roots(root, root, files, declaring)
    return [ManifestDir(path, path.relative_to(root).as_posix()) for path in roots]


def _set_roots(top: Path, here: Path, files: list[Path], declaring: list[Path]) -> list[Path]:
    mine = [path for path in declaring if here in path.parents]
    if len(mine) == 1:
        return [here]
    if not mine:
        stray = _shown(top, files[0])
        raise DiscoveryError(
            f"{stray} declares no organization and belongs to none: {top} holds several "
            "manifest sets, one per subdirectory with its own `organization:`; move the file "
            "into one of them"
        )
    loose = [path for path in files if path.parent == here]
    if loose:
        orgs = ", ".join(_shown(top, path) for path in mine)
        raise DiscoveryError(
            f"{_shown(top, loose[0])} is beside several manifest sets ({orgs}), so it belongs to "
            "none: put each organization and its files in a subdirectory of its own"
        )
    roots: list[Path] = []
    for sub in sorted({_child_of(here, path) for path in files}):
        roots += _set_roots(top, sub, [p for p in files if sub in p.parents], declaring)
    return roots


def check_distinct_organizations(sets: list[tuple[ManifestDir, str]]) -> None:
    """Two sets for one organization would plan against each other: refuse, naming both."""
    seen: dict[str, str] = {}
    for manifest_dir, org_id in sets:
        if org_id in seen:
            raise DiscoveryError(
                f"organization {org_id} is described by both {seen[org_id]}/ and "
                f"{manifest_dir.name}/; keep one manifest set per organization"
            )
        seen[org_id] = manifest_dir.name


def _declares_organization(path: Path) -> bool:
    try:
        # A file over the size limit is never read: the loader refuses it, with its location.
        if path.stat().st_size > MAX_FILE_BYTES:
            return False
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool(_ORGANIZATION_KEY.search(text))


def _child_of(parent: Path, path: Path) -> Path:
    return parent / path.relative_to(parent).parts[0]


def _shown(top: Path, path: Path) -> str:
    return path.relative_to(top).as_posix()
