"""Releases: the version docform says it is, the newest release in CHANGELOG.md and
pyproject.toml agree, and scripts/release.py cuts a release (one commit, one tag) in a clone of
this repository, refusing what would make a release that says nothing or goes back."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import docform
from docform.cli import cli

ROOT = Path(__file__).parents[1]
RELEASE_HEADING = re.compile(r"^## (\d+\.\d+\.\d+)(?: \((\d{4}-\d{2}-\d{2})\))?$", re.MULTILINE)
IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.test",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.test",
}


def pyproject_version(root: Path) -> str:
    found = re.search(r'^version = "([^"]+)"$', (root / "pyproject.toml").read_text(), re.M)
    assert found
    return found.group(1)


def newest_release(root: Path) -> str:
    found = RELEASE_HEADING.search((root / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert found, "CHANGELOG.md has no release heading `## X.Y.Z (DATE)`"
    return found.group(1)


def test_the_version_is_the_newest_release_of_the_changelog_and_docform_says_it():
    version = pyproject_version(ROOT)
    assert newest_release(ROOT) == version
    assert docform.__version__ == version
    said = CliRunner().invoke(cli, ["--version"])
    assert (said.exit_code, said.output) == (0, f"docform, version {version}\n")


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, **IDENTITY},
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone of this repository's HEAD, its Unreleased section holding one change."""
    path = tmp_path / "docform"
    git("clone", "--quiet", "--shared", str(ROOT), str(path), cwd=tmp_path)
    git("checkout", "--quiet", "--detach", git("rev-parse", "HEAD", cwd=ROOT), cwd=path)
    changelog = path / "CHANGELOG.md"
    text = changelog.read_text(encoding="utf-8")
    if not re.search(r"## Unreleased\n\n###[^\n]*\n- ", text):
        text = text.replace("## Unreleased\n", "## Unreleased\n\n### Fixed\n- Something.\n", 1)
        changelog.write_text(text, encoding="utf-8")
        git("commit", "--quiet", "--all", "-m", "a change", cwd=path)
    return path


def release(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "scripts/release.py", *args], cwd=clone, capture_output=True,
        text=True, check=False, env={**os.environ, **IDENTITY},
    )  # fmt: skip


def next_minor(version: str) -> str:
    major, minor, _ = (int(part) for part in version.split("."))
    return f"{major}.{minor + 1}.0"


def test_release_moves_the_version_dates_the_changelog_pins_the_examples_and_tags(clone):
    version = next_minor(pyproject_version(clone))
    done = release(clone, version, "--date", "2031-02-03")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Released {version}: commit ")
    assert pyproject_version(clone) == newest_release(clone) == version
    changelog = (clone / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## Unreleased\n\n## {version} (2031-02-03)\n" in changelog
    package = (clone / "src" / "docform" / "__init__.py").read_text(encoding="utf-8")
    assert f'__version__ = "{version}"' in package
    assert git("describe", "--exact-match", "HEAD", cwd=clone) == f"v{version}"
    assert git("log", "-1", "--format=%s", cwd=clone) == f"Release {version}"
    assert git("status", "--porcelain", cwd=clone) == ""
    for path in ["examples/acme/.gitlab-ci.yml", "examples/acme/.pre-commit-config.yaml"]:
        text = (clone / path).read_text(encoding="utf-8")
        pins = re.findall(r"your-org/docform@(\S+?)\"|rev: (\S+)", text)
        assert pins and all(f"v{version}" in pin for pin in pins), path


@pytest.mark.parametrize(
    ("arrange", "version", "message"),
    [
        (None, "0.0.1", "0.0.1 is not above the current version"),
        (None, "1.2", "'1.2' is not a version X.Y.Z"),
        ("dirty", None, "the working tree has changes: release from a clean checkout"),
        ("empty", None, "`## Unreleased` section lists no change"),
    ],
)
def test_release_refuses_what_would_not_be_a_release(clone, arrange, version, message):
    if arrange == "dirty":
        (clone / "README.md").write_text("changed\n")
    if arrange == "empty":
        changelog = clone / "CHANGELOG.md"
        text = changelog.read_text(encoding="utf-8")
        start = text.index("## Unreleased\n") + len("## Unreleased\n")
        end = text.index("\n## ", start)
        changelog.write_text(text[:start] + text[end:], encoding="utf-8")
        git("commit", "--quiet", "--all", "-m", "nothing unreleased", cwd=clone)
    head = git("rev-parse", "HEAD", cwd=clone)
    done = release(clone, version or next_minor(pyproject_version(clone)))
    assert done.returncode == 1
    assert message in done.stderr
    assert git("rev-parse", "HEAD", cwd=clone) == head
    assert git("tag", "--points-at", "HEAD", cwd=clone) == ""
