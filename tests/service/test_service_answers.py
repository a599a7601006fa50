"""The committed extract of the service's definition (src/docform/service/service_answers.json)
is the one `make answers` (scripts/service_answers.py) writes from the pinned definition: the
client's answer checks are derived from it, so it must never fall behind the pin or what a kind
reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from contract_definition import DEFINITION

from conftest import needs_the_definition
from docform.kind_registry import items_read_as, reads_by_kind
from docform.service.answer_description import DESCRIPTION_FILE, description
from docform.service.extract import rendered
from docform_sandbox.answer_schema import ANSWERS_FILE
from docform_sandbox.routes import ENDPOINTS

needs_the_definition()

REPO = Path(__file__).resolve().parents[2]


def pinned_version() -> str:
    package = DEFINITION.parents[1] / "package.json"
    version: str = json.loads(package.read_text(encoding="utf-8"))["version"]
    return version


def test_the_committed_extract_is_the_one_the_pinned_definition_gives() -> None:
    document = json.loads(DEFINITION.read_text(encoding="utf-8"))
    expected = rendered(document, pinned_version(), reads_by_kind(), items_read_as())
    assert DESCRIPTION_FILE.read_text(encoding="utf-8") == expected, (
        "src/docform/service/service_answers.json is stale against the pinned definition "
        f"(@gitbook/api {pinned_version()}): run `make answers`"
    )


def test_it_holds_the_routes_the_kinds_read_and_names_the_pin() -> None:
    read = {route for routes in reads_by_kind().values() for route in routes}
    assert set(description()["routes"]) == read
    assert description()["definition"] == f"@gitbook/api {pinned_version()}"


def test_it_is_small() -> None:
    """Only what docform reads: a fraction of the definition."""
    assert DESCRIPTION_FILE.stat().st_size < DEFINITION.stat().st_size / 20


def test_make_answers_writes_it_and_says_so(tmp_path: Path) -> None:
    """The command the stale message names, run as make runs it (into another file here)."""
    written, sandbox = tmp_path / "service_answers.json", tmp_path / "definition_answers.json"
    command = [sys.executable, "scripts/service_answers.py", "--output", str(written)]
    command += ["--sandbox-output", str(sandbox)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"wrote {written}: the answers of {len(description()['routes'])} GET routes\n"
        f"wrote {sandbox}: the answers of {len(ENDPOINTS)} sandbox routes\n"
    )
    assert written.read_bytes() == DESCRIPTION_FILE.read_bytes()
    assert sandbox.read_bytes() == ANSWERS_FILE.read_bytes()
