"""The docform release the examples pin, installed from this repository's history.

The examples name one release of docform, by its tag `vX.Y.Z`, in every file that installs it
(the GitHub workflows' `uses:`, the GitLab requirement, the pre-commit `rev:`). `pinned_tag`
reads it, and `pinned_docform` installs that release (`git archive` of the tag, `pip install`
into a virtual environment of its own, its dependencies taken from this one) once for all
the test processes of a run and kept for the next runs, and returns the folder holding its
`docform` command.

A release is cut by `scripts/release.py`. Until the release the examples pin is cut (between
moving the pins and tagging), the tag is cut here, provisionally, in a temporary clone of
this repository's HEAD with that very script: only for the version after the current one,
so a pin of a release that never was still fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from filelock import FileLock

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
PIN = re.compile(r"your-org/docform@([^\s\"']+)")
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "docform tests",
    "GIT_AUTHOR_EMAIL": "tests@docform.invalid",
    "GIT_COMMITTER_NAME": "docform tests",
    "GIT_COMMITTER_EMAIL": "tests@docform.invalid",
}


def pinning_files() -> list[Path]:
    return [
        *sorted((EXAMPLE / ".github" / "workflows").glob("*.yml")),
        EXAMPLE / ".gitlab-ci.yml",
    ]


def pinned_tag() -> str:
    """The release tag every example file pins (the test fails when they disagree)."""
    config = yaml.safe_load((EXAMPLE / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    tag = str(config["repos"][0]["rev"])
    for path in pinning_files():
        pins = set(PIN.findall(path.read_text(encoding="utf-8")))
        assert pins <= {tag}, f"{path.relative_to(ROOT)} pins {sorted(pins)}, not {tag}"
    assert TAG.match(tag), f"the examples pin docform at {tag}: pin a release tag vX.Y.Z"
    return tag


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, **GIT_IDENTITY},
    ).stdout.strip()  # fmt: skip


def tag_commit(tag: str) -> str | None:
    """The commit ``tag`` names; in a clone that fetched no tags, the commit scripts/release.py
    made for that version (its subject is exactly ``Release X.Y.Z``), which the tag names."""
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.stdout.strip():
        return done.stdout.strip()
    subject = f"^Release {re.escape(tag.removeprefix('v'))}$"
    released = git("log", "--format=%H", "--extended-regexp", f"--grep={subject}", "HEAD")
    return released.splitlines()[0] if released else None


def current_version() -> tuple[int, ...]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^version = "(\d+)\.(\d+)\.(\d+)"$', text, re.MULTILINE)
    assert found, "pyproject.toml has no version"
    return tuple(int(part) for part in found.groups())


def is_next_release(tag: str) -> bool:
    """Whether ``tag`` is the version right after the current one (patch, minor or major)."""
    found = TAG.match(tag)
    assert found
    major, minor, patch = current_version()
    wanted = tuple(int(part) for part in found.groups())
    return wanted in {(major, minor, patch + 1), (major, minor + 1, 0), (major + 1, 0, 0)}


def provisional_release(tag: str, folder: Path) -> Path:
    """A clone of HEAD with ``tag`` cut by scripts/release.py; the clone's path."""
    clone = folder / "clone"
    shutil.rmtree(clone, ignore_errors=True)  # what an interrupted run left
    git("clone", "--quiet", "--shared", str(ROOT), str(clone))
    git("checkout", "--quiet", "--detach", git("rev-parse", "HEAD"), cwd=clone)
    released = subprocess.run(
        [sys.executable, "scripts/release.py", tag.removeprefix("v"), "--date", "2000-01-01"],
        cwd=clone, capture_output=True, text=True, check=False,
        env={**os.environ, **GIT_IDENTITY},
    )  # fmt: skip
    assert released.returncode == 0, released.stderr
    return clone


def install(repository: Path, tag: str, target: Path) -> Path:
    """docform at ``tag`` of ``repository`` installed in a new environment under ``target``,
    its dependencies read from this one; the environment's bin folder."""
    source = target / "source"
    shutil.rmtree(source, ignore_errors=True)  # what an interrupted run left
    source.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", tag], cwd=repository, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    environment = target / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(environment)], check=True)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(source)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # Only the folder is added, not its .pth files: this checkout's editable docform stays out.
    dependencies = sysconfig.get_paths()["purelib"]
    (Path(purelib) / "docform-test-dependencies.pth").write_text(dependencies + "\n")
    return environment / "bin"


def pinned_docform(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of the pinned release, installed once (shared by the workers, and kept
    for later runs: `installed_releases`)."""
    tag = pinned_tag()
    commit = tag_commit(tag)
    if commit is None:
        assert is_next_release(tag), (
            f"the examples pin docform {tag}, which is not a tag of this repository: pin a "
            "release (git tag --list 'v*'), or cut it with scripts/release.py"
        )
    key = f"{tag}-{commit or 'provisional-' + git('rev-parse', 'HEAD')}"
    shared = installed_releases(tmp_path_factory)
    shared.mkdir(exist_ok=True)
    target = shared / key
    with FileLock(str(shared / f"{key}.lock")):
        # Marked when complete, so that an install a run left half done is made again.
        installed = target / "installed"
        if not installed.exists():
            repository = ROOT if commit else provisional_release(tag, target / "release")
            install(repository, commit or tag, target)
            installed.touch()
    return target / "venv" / "bin"


def installed_releases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the installed releases are kept: in the virtual environment the tests run in,
    where the next run finds them (a release installed from one commit never changes, and
    ``make clean`` removes it with the environment); outside one, in this run's temporary
    folders."""
    if sys.prefix != sys.base_prefix:
        return Path(sys.prefix) / "pinned-docform"
    return tmp_path_factory.getbasetemp().parent / "pinned-docform"
