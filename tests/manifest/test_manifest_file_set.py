"""Several files written as one (manifest/file_set.py): a process killed (SIGKILL) after each
step of the write leaves, for the next reader of the directory, every file old or every file
new, never a mix; `docform adopt` killed at every step likewise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from canary import CANARY_TOKEN
from docform.manifest.file_set import JOURNAL, STAGED, finish_interrupted, replace_files
from docform.manifest.sources import manifest_files
from planning import FIXTURES, apply, copy_applied, copy_sandbox, in_ui, live_api, run

IMPORTED = "import docform.manifest.file_set as file_set\n"
"""How docform's commands reach `file_set`: through its package, the manifest models too."""
ALONE = """\
import importlib.util, pathlib, sys
import docform.errors
source = pathlib.Path(docform.errors.__file__).parent / "manifest" / "file_set.py"
spec = importlib.util.spec_from_file_location("docform.manifest.file_set", source)
file_set = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(file_set)
"""
"""`file_set` alone, for a child that only writes files: its package's models are not what
the child is killed in, and importing them would be most of what it does."""
KILLING = """\
import os, signal, sys
steps, kill_at = [0], int(os.environ["KILL_AT"])
real_replace, real_write = os.replace, file_set._write_flushed
def step():
    steps[0] += 1
    if steps[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
def replace(source, target):
    real_replace(source, target)
    step()
def write(path, text):
    real_write(path, text)
    step()
os.replace, file_set._write_flushed = replace, write
"""
"""Run before what a child runs, once `file_set` is loaded: the child is killed right after
its KILL_AT-th write or rename."""
STEPS = 3 + 1 + 1 + 3
"""A write of three files: three texts, the journal, its rename, three renames."""
OLD = {"main.yaml": "a: 1\n", "teams/teams.yaml": "b: 1\n", "docform.lock": "c: 1\n"}
NEW = {"main.yaml": "a: 2\n", "teams/teams.yaml": "b: 2\n", "docform.lock": "c: 2\n"}


def texts(directory: Path) -> dict[str, str]:
    return {name: (directory / name).read_text(encoding="utf-8") for name in OLD}


WRITE_NEW = (
    "import json, pathlib\n"
    "file_set.replace_files(pathlib.Path(sys.argv[1]), json.loads(sys.argv[2]))"
)


def in_child(loading: str, code: str, kill_at: int, *args: str, **variables: str) -> int:
    env = {**os.environ, **variables, "KILL_AT": str(kill_at)}
    done = subprocess.run(
        [sys.executable, "-c", loading + KILLING + code, *args], env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode


@pytest.mark.parametrize("kill_at", range(1, STEPS + 2))
def test_a_write_killed_after_any_step_reads_as_all_old_or_all_new(tmp_path, kill_at):
    for name, text in OLD.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    status = in_child(ALONE, WRITE_NEW, kill_at, str(tmp_path), json.dumps(NEW))

    assert status == (-9 if kill_at <= STEPS else 0)
    manifest_files(tmp_path)  # what every reader of the directory does first
    # Killed before the journal was in place (its rename is step 5): nothing changed.
    assert texts(tmp_path) == (OLD if kill_at < 5 else NEW)
    assert not (tmp_path / JOURNAL).exists()
    replace_files(tmp_path, {"main.yaml": "a: 3\n"})  # the next write clears what was left
    assert not [p for p in tmp_path.rglob(f".*{STAGED}")]
    assert (tmp_path / "main.yaml").read_text(encoding="utf-8") == "a: 3\n"


def test_an_unreadable_journal_is_an_error_saying_what_to_do(tmp_path):
    (tmp_path / JOURNAL).write_text("{not json", encoding="utf-8")
    with pytest.raises(Exception) as caught:
        finish_interrupted(tmp_path)
    assert "(the list of a write of several files that was stopped) cannot be read" in str(
        caught.value
    )


ADOPT_STEPS = 2 + 1 + 1 + 2
"""adopt of a team deleted by hand: main.yaml and docform.lock."""


@pytest.fixture(scope="module")
def writers_deleted_by_hand(
    tmp_path_factory: pytest.TempPathFactory, seeded_once: Path
) -> tuple[Path, Path]:
    """fixtures/adopt applied, then its team Writers deleted in the UI: arranged once, copied
    for each step a test kills adopt at."""
    folder = tmp_path_factory.mktemp("writers-deleted")
    directory = folder / "manifests"
    directory.mkdir()
    shutil.copy(FIXTURES / "adopt" / "manifests.yaml", directory / "main.yaml")
    sandbox = copy_sandbox(seeded_once, folder)
    apply(directory, sandbox, rehearse=False)
    teams = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    writers = next(t["id"] for t in teams if t["title"] == "Writers")
    in_ui(sandbox, "alice@acme.test", "DELETE", f"/orgs/org_acme/teams/{writers}")
    return directory, sandbox


@pytest.mark.parametrize("kill_at", range(1, ADOPT_STEPS + 2))
def test_adopt_killed_at_any_step_leaves_the_manifests_old_or_adopted(
    tmp_path, writers_deleted_by_hand, kill_at
):
    directory, sandbox = copy_applied(writers_deleted_by_hand, tmp_path)
    before = {name: (directory / name).read_text() for name in ("main.yaml", "docform.lock")}
    code = "from docform.cli import cli\ncli(sys.argv[1:])"
    env = {"DOCFORM_API_URL": f"sandbox:{sandbox}", "DOCFORM_API_TOKEN": CANARY_TOKEN}
    arguments = ("adopt", str(directory), "--target", "team.writers")
    status = in_child(IMPORTED, code, kill_at, *arguments, **env)

    assert status == (-9 if kill_at <= ADOPT_STEPS else 0)
    validated = run(["validate", directory], sandbox)
    assert validated.exit_code == 0, validated.output
    after = {name: (directory / name).read_text() for name in ("main.yaml", "docform.lock")}
    if kill_at < 4:
        assert after == before
    else:
        assert "writers" not in after["main.yaml"]
        assert "team.writers" not in after["docform.lock"]
