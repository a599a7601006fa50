"""A saved plan's --allow list (the safety rails its reviewer accepted) is honoured by `apply
PLANFILE` only when something other than the file vouches for it: the same --allow items on
the apply's command line, or the checksum of the reviewed plan (--checksum, which covers
them). The file alone cannot: whoever can edit it can recompute its checksum. Planned and
applied through the CLI against examples/acme's sandbox, where removing the incidents
collection while a space no entry manages lives in it trips the cascade rail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_rails_judging import spaces_titled, without_incidents
from test_saved_plans import rewrite

from planning import run


@pytest.fixture
def cascade(applied_acme: tuple[Path, Path]) -> tuple[Path, Path, str]:
    """The manifests, the sandbox, and the --allow item that accepts the cascade."""
    directory, sandbox = applied_acme
    incidents = without_incidents(directory, sandbox)
    return directory, sandbox, f"cascade:collection.~{incidents['id']}"


def save(directory: Path, sandbox: Path, *allow: str) -> Path:
    saved = directory.parent / "reviewed.plan"
    options = [word for item in allow for word in ("--allow", item)]
    run(["plan", directory, "--out", saved, *options], sandbox)
    assert saved.exists()
    return saved


def test_an_allow_list_written_into_a_saved_plan_is_refused(cascade):
    """The plan was reviewed breaking the cascade rail; someone adds the allowance to the
    file, its checksum recomputed: apply refuses and says how to accept it for real."""
    directory, sandbox, allow = cascade
    saved = save(directory, sandbox)

    def accept_the_cascade(doc: dict[str, Any]) -> None:
        doc["rails"]["allowed"] = [allow]
        doc["allowed"] = [allow]

    rewrite(saved, accept_the_cascade)

    result = run(["apply", saved, "--yes"], sandbox)

    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"Error: nothing was applied: {saved} accepts safety rails that only its own file "
        f"vouches for ({allow}); a saved plan's --allow list is honoured when it is repeated "
        f"('docform apply {saved} --allow {allow}') or when --checksum gives the checksum of "
        "the plan that was reviewed with it\n"
    )
    assert spaces_titled(sandbox)["Scratch"] is not None  # the collection is still there


def test_a_reviewed_allow_list_is_honoured_when_repeated_on_the_apply(cascade):
    directory, sandbox, allow = cascade
    saved = save(directory, sandbox, allow)

    refused = run(["apply", saved], sandbox)
    assert refused.exit_code == 1
    assert f"({allow})" in refused.stderr

    applied = run(["apply", saved, "--allow", allow], sandbox)
    assert applied.exit_code == 0, applied.output
    assert "Scratch" not in spaces_titled(sandbox)


def test_a_reviewed_allow_list_is_honoured_with_the_reviewed_checksum(cascade):
    directory, sandbox, allow = cascade
    saved = save(directory, sandbox, allow)
    reviewed = json.loads(saved.read_text(encoding="utf-8"))["checksum"]

    applied = run(["apply", saved, "--checksum", reviewed], sandbox)

    assert applied.exit_code == 0, applied.output
    assert "Scratch" not in spaces_titled(sandbox)


def test_the_checksum_of_a_plan_reviewed_without_the_allowance_does_not_vouch_for_it(cascade):
    directory, sandbox, allow = cascade
    saved = save(directory, sandbox)
    reviewed = json.loads(saved.read_text(encoding="utf-8"))["checksum"]

    def accept_the_cascade(doc: dict[str, Any]) -> None:
        doc["rails"]["allowed"] = [allow]
        doc["allowed"] = [allow]

    rewrite(saved, accept_the_cascade)

    result = run(["apply", saved, "--checksum", reviewed], sandbox)

    assert result.exit_code == 1
    assert f"not the approved {reviewed}" in result.stderr
    assert spaces_titled(sandbox)["Scratch"] is not None
