"""Where manifests sit in their Git repository, and the commit they were planned at.

A saved plan names its manifest directory relative to the repository root, so the plan file
can be kept, downloaded or copied anywhere and still find them from any checkout; a plan
rendered for review names the commit it planned, so a reviewer can tell which one it was.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_SECONDS = 10


def repository_root(path: Path) -> Path | None:
    """The nearest directory at or above ``path`` holding ``.git`` (a directory, or the file
    of a worktree or submodule), or None outside any repository."""
    start = path.resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def head_commit(path: Path) -> str | None:
    """The commit checked out in the repository holding ``path``, or None (no repository, no
    commit yet, no git installed)."""
    if repository_root(path) is None:
        return None
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=path,
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None
