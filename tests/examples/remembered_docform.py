"""A `docform` for the CI steps that run the same command again and again on the same input,
such as the write-back loop's `docform pin` after each rejected push: the first run of a
command on given manifests is the real docform's, and a later run of it on the same manifests
(every file, docform.lock too) with the same token gives what that run gave (output, exit
code, the files it wrote). The organization must not change in between; each call is listed
in $DOCFORM_CALLS, and each run of the real docform in $DOCFORM_REAL_RUNS.

What it remembers is kept for one test, or, given a ``memory`` folder, for several: tests that
each run the same lines on a copy of one arranged organization, before changing it, then run
the real docform once between them."""

from __future__ import annotations

import os
from pathlib import Path

from test_examples_ci_tools import BIN

REMEMBERED_DOCFORM = r"""#!/bin/bash
set -euo pipefail
echo "$*" >> "$DOCFORM_CALLS"
key="$({ printf '%s\n' "$*" "${DOCFORM_API_TOKEN:-}"
  find manifests -type f -print0 | sort -z | xargs -0 sha256sum; } | sha256sum | cut -c 1-32)"
echo "$key" >> "$DOCFORM_INPUTS"
saved="$DOCFORM_MEMORY/$key"
if [ ! -d "$saved" ]; then
  echo "$*" >> "$DOCFORM_REAL_RUNS"
  rm -rf "$saved.new"
  mkdir -p "$saved.new"
  status=0
  "$REAL_DOCFORM" "$@" > "$saved.new/stdout" 2> "$saved.new/stderr" || status=$?
  echo "$status" > "$saved.new/status"
  cp -R manifests "$saved.new/manifests"
  mv "$saved.new" "$saved"
fi
rm -rf manifests
cp -R "$saved/manifests" manifests
cat "$saved/stdout"
cat "$saved/stderr" >&2
exit "$(cat "$saved/status")"
"""


def remembered_docform(
    env: dict[str, str], folder: Path, memory: Path | None = None
) -> dict[str, str]:
    """``env`` with the remembering docform first on its PATH (kept in ``folder``, with what
    it remembers unless ``memory`` is given)."""
    standins = folder / "remembered-docform"
    standins.mkdir(parents=True)
    if memory is None:
        memory = standins / "memory"
        memory.mkdir()
    (standins / "docform").write_text(REMEMBERED_DOCFORM, encoding="utf-8")
    (standins / "docform").chmod(0o755)
    for log in ("calls", "inputs", "real-runs"):
        (standins / log).touch()
    return env | {
        "PATH": f"{standins}{os.pathsep}{env['PATH']}",
        "REAL_DOCFORM": str(BIN / "docform"),
        "DOCFORM_MEMORY": str(memory),
        "DOCFORM_CALLS": str(standins / "calls"),
        "DOCFORM_INPUTS": str(standins / "inputs"),
        "DOCFORM_REAL_RUNS": str(standins / "real-runs"),
    }


def docform_calls(env: dict[str, str]) -> list[str]:
    """The commands the remembering docform was run with, in order."""
    return Path(env["DOCFORM_CALLS"]).read_text(encoding="utf-8").splitlines()


def distinct_inputs(env: dict[str, str]) -> int:
    """How many different inputs (command, manifests, token) those calls had."""
    return len(set(Path(env["DOCFORM_INPUTS"]).read_text(encoding="utf-8").splitlines()))


def real_runs(env: dict[str, str]) -> int:
    """How many of them the real docform ran."""
    return len(Path(env["DOCFORM_REAL_RUNS"]).read_text(encoding="utf-8").splitlines())
