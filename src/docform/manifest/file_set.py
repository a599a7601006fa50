"""Replacing several files of a manifest directory as one: all of them or none, whenever the
process is killed.

One file is replaced atomically by writing it beside and renaming it over the old one; a set of
files is not, so `replace_files` keeps a journal. Every new text is written beside its file
under a hidden name and flushed to disk; then the journal, the list of those renames, is put in
place by one rename: that is the moment the write happens. The renames follow and the journal
goes. Killed before the journal is in place, nothing was changed (the hidden files are cleared
away by the next write); killed after, the next reader of the directory (`finish_interrupted`,
which `docform.manifest.sources.manifest_files` calls) makes the remaining renames first, so no
command ever reads half of the set.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from docform.errors import DocformError

JOURNAL = ".docform-writing"
"""The journal's name in the directory written: hidden, so no manifest reader lists it."""
STAGED = ".docform-new"
"""The ending of a new text waiting beside its file: ``dir/.main.yaml.docform-new``."""


class FileSetError(DocformError):
    """A write killed half-way cannot be finished: its journal is unreadable."""


def replace_files(directory: Path, texts: Mapping[str, str]) -> None:
    """Write ``texts`` (paths relative to ``directory`` -> their new text) as one: after a
    kill at any point, either every file has its new text or none has."""
    finish_interrupted(directory)
    _clear_strays(directory)
    staged: dict[str, str] = {}
    try:
        for relative, text in texts.items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            waiting = target.parent / f".{target.name}{STAGED}"
            _write_flushed(waiting, text)
            staged[waiting.relative_to(directory).as_posix()] = relative
        _write_flushed(directory / f"{JOURNAL}{STAGED}", json.dumps(staged))
        os.replace(directory / f"{JOURNAL}{STAGED}", directory / JOURNAL)
        _flush_directory(directory)
    except OSError:
        for written in [*staged, f"{JOURNAL}{STAGED}"]:
            (directory / written).unlink(missing_ok=True)
        raise
    finish_interrupted(directory)


def finish_interrupted(directory: Path) -> list[str]:
    """Make the renames of a write killed after its journal was in place, and clear away the
    texts of one killed before; returns the files that got their new text now."""
    journal = directory / JOURNAL
    try:
        staged: dict[str, str] = json.loads(journal.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except (OSError, ValueError) as exc:
        raise FileSetError(
            f"{journal} (the list of a write of several files that was stopped) cannot be read "
            f"({exc}); the files it names are as they were or as the write left them: check "
            "them, then remove it"
        ) from None
    finished = []
    for waiting, relative in staged.items():
        with contextlib.suppress(FileNotFoundError):  # renamed before the kill
            os.replace(directory / waiting, directory / relative)
            finished.append(relative)
    _flush_directory(directory)
    journal.unlink()
    return finished


def _clear_strays(directory: Path) -> None:
    if not directory.is_dir():
        return
    for stray in directory.rglob(f".*{STAGED}"):
        stray.unlink(missing_ok=True)


def _write_flushed(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())


def _flush_directory(directory: Path) -> None:
    # The renames themselves reach the disk only once their directory is flushed (POSIX);
    # elsewhere there is no such call, and nothing to do.
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
