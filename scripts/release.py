"""Cut a release of docform: one commit that moves the version and dates the changelog, and a
tag `vX.Y.Z` on it.

    python3 scripts/release.py 0.3.0                 # in a clean checkout of main
    python3 scripts/release.py 0.3.0 --date 2026-11-28

It refuses unless the working tree is clean, the version is above the current one and
CHANGELOG.md's `## Unreleased` section says what changed. It then

- sets the version in pyproject.toml and in src/docform/__init__.py (what `docform --version`
  prints);
- turns `## Unreleased` into `## X.Y.Z (DATE)` under a new, empty `## Unreleased`;
- points every pin of the examples (`your-org/docform@...`, the GitLab requirement, the
  pre-commit `rev:`) at the tag `vX.Y.Z`, so the examples pin the release that holds them;
- commits that as "Release X.Y.Z" and tags the commit `vX.Y.Z` (annotated).

Pushing the commit and the tag is left to the person releasing.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION = re.compile(r"^\d+\.\d+\.\d+$")
PYPROJECT_VERSION = re.compile(r'^version = "([^"]+)"$', re.MULTILINE)
PACKAGE_VERSION = re.compile(r'^__version__ = "([^"]+)"$', re.MULTILINE)
UNRELEASED = "## Unreleased\n"
EXAMPLE_PIN = re.compile(r"(your-org/docform@)[\w.\-]+")
PRE_COMMIT_REV = re.compile(r"^(\s*rev: )\S+", re.MULTILINE)


class ReleaseError(Exception):
    """What stops a release, said so that the person releasing can act on it."""


def git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def parsed(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def current_version(root: Path) -> str:
    found = PYPROJECT_VERSION.search((root / "pyproject.toml").read_text(encoding="utf-8"))
    if found is None:
        raise ReleaseError('pyproject.toml has no line `version = "X.Y.Z"`')
    return found.group(1)


def dated_changelog(text: str, version: str, date: str) -> str:
    """CHANGELOG.md with its Unreleased section become the section of ``version``."""
    start = text.find(UNRELEASED)
    if start < 0:
        raise ReleaseError("CHANGELOG.md has no `## Unreleased` section to release")
    body_start = start + len(UNRELEASED)
    following = text.find("\n## ", body_start)
    body = text[body_start : following if following >= 0 else len(text)]
    if not re.search(r"^- ", body, re.MULTILINE):
        raise ReleaseError(
            "CHANGELOG.md's `## Unreleased` section lists no change: a release says what "
            "changed (add a line per user-visible change under it)"
        )
    return f"{text[:start]}{UNRELEASED}\n## {version} ({date})\n{text[body_start:]}"


def pinned_examples(root: Path, tag: str) -> list[Path]:
    """Every example file that pins docform, pointed at ``tag``; the files changed."""
    changed = []
    example_files = [*root.glob("examples/*/.github/workflows/*.yml")]
    example_files += [*root.glob("examples/*/.gitlab-ci.yml")]
    example_files += [*root.glob("examples/*/.pre-commit-config.yaml")]
    for path in example_files:
        text = path.read_text(encoding="utf-8")
        new = EXAMPLE_PIN.sub(lambda m: f"{m.group(1)}{tag}", text)
        if path.name == ".pre-commit-config.yaml":
            new = PRE_COMMIT_REV.sub(lambda m: f"{m.group(1)}{tag}", new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def release(root: Path, version: str, date: str) -> str:
    """Make the release commit and its tag in the repository at ``root``; the tag's name."""
    if not VERSION.match(version):
        raise ReleaseError(f"{version!r} is not a version X.Y.Z")
    before = current_version(root)
    if parsed(version) <= parsed(before):
        raise ReleaseError(f"{version} is not above the current version {before}")
    if git("status", "--porcelain", cwd=root).strip():
        raise ReleaseError("the working tree has changes: release from a clean checkout")
    tag = f"v{version}"
    if git("tag", "--list", tag, cwd=root).strip():
        raise ReleaseError(f"the tag {tag} exists already")
    changelog = root / "CHANGELOG.md"
    changelog.write_text(
        dated_changelog(changelog.read_text(encoding="utf-8"), version, date), encoding="utf-8"
    )
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(PYPROJECT_VERSION.sub(f'version = "{version}"', text, count=1))
    package = root / "src" / "docform" / "__init__.py"
    text = package.read_text(encoding="utf-8")
    package.write_text(PACKAGE_VERSION.sub(f'__version__ = "{version}"', text, count=1))
    pinned_examples(root, tag)
    git("commit", "--quiet", "--all", "-m", f"Release {version}", cwd=root)
    git("tag", "--annotate", tag, "-m", f"docform {version}", cwd=root)
    return tag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="the new version, X.Y.Z")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    arguments = parser.parse_args(argv)
    try:
        tag = release(ROOT, arguments.version, arguments.date)
    except ReleaseError as error:
        print(f"release: {error}", file=sys.stderr)
        return 1
    commit = git("rev-parse", "--short", "HEAD").strip()
    print(f"Released {arguments.version}: commit {commit}, tag {tag}.")
    print(f"Push both: git push origin HEAD {tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
