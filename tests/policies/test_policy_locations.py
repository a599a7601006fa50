"""A policy result names both places a reviewer needs: the entry it is about (its manifest
file:line) and the rule that judged it (policies.yaml:line), for denials and warnings alike,
in text, Markdown and JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planning import run, seeded_sandbox

EXAMPLE = Path(__file__).parents[2] / "examples" / "acme"


@pytest.fixture
def acme(tmp_path: Path) -> tuple[Path, Path]:
    manifests = tmp_path / "manifests"
    shutil.copytree(EXAMPLE / "manifests", manifests)
    return manifests, seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")


def test_a_warning_names_its_entry_and_its_rule(acme):
    manifests, sandbox = acme
    text = run(["plan", manifests], sandbox).stdout
    assert (
        "  warning: [policy.admins-sso] member.maria.garcia@acme.test: admin "
        "maria.garcia@acme.test does not sign in with SSO (sso: true) "
        "(people.yaml:5:3; rule at policies.yaml:7:3)\n"
    ) in text
    markdown = run(["plan", manifests, "--markdown"], sandbox).stdout
    assert "(people.yaml:5:3; rule at policies.yaml:7:3)" in markdown
    results = json.loads(run(["plan", manifests, "--json"], sandbox).stdout)["policies"]["results"]
    [maria] = [r for r in results if r["address"] == "member.maria.garcia@acme.test"]
    assert (maria["location"], maria["entry_location"]) == ("policies.yaml:7:3", "people.yaml:5:3")


def test_a_denial_names_its_entry_and_its_rule(acme):
    manifests, sandbox = acme
    people = manifests / "people.yaml"
    text = people.read_text(encoding="utf-8")
    people.write_text(
        text.replace("  tom.walker@acme.test: edit\n", "  tom.walker@acme.test: admin\n"),
        encoding="utf-8",
    )
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        "[policy.no-new-admins] member.tom.walker@acme.test: would make tom.walker@acme.test "
        "an admin (label the pull request admin-change) (people.yaml:8:3; rule at "
        "policies.yaml:19:3)"
    ) in result.stdout
