"""`apply --checksum` refusals say what was never reviewed (issue 43), on the example's
organization with the two tokens of its CI: the reader's that plans and the admin's that
applies.

- A pull request touching the SAML provider, planned with the reader's token (which may not
  read SAML providers): the refusal names the changes the review did not show and their kinds,
  says the review may have been partial, and the way through (apply the whole plan by its
  checksum) works.
- A hand change after the review, which the plan would revert: the refusal names the change
  the review did not show and the ways on; given the reviewed plan (`--reviewed`), it also
  names the live object changed. A reviewed plan file that is not the approved one is not
  believed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_examples_ci_tools import ADMIN_TOKEN, EXAMPLE, READER_TOKEN, reader_sandbox

from planning import copy_sandbox, live_api, run


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example applied whole by an admin (arranged once): its manifests and sandbox."""
    folder = tmp_path_factory.mktemp("applied")
    manifests = folder / "manifests"
    shutil.copytree(EXAMPLE / "manifests", manifests)
    sandbox = reader_sandbox(folder)
    done = run(["apply", manifests, "--yes", "--no-rehearse", "-q"], sandbox, ADMIN_TOKEN)
    assert done.exit_code == 0, done.output
    return manifests, sandbox


@pytest.fixture
def organization(applied: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    manifests = tmp_path / "manifests"
    shutil.copytree(applied[0], manifests)
    return manifests, copy_sandbox(applied[1], tmp_path)


def checksum_of(manifests: Path, sandbox: Path, token: str) -> str:
    planned = run(["plan", manifests, "--json"], sandbox, token)
    assert planned.exit_code == 0, planned.output
    return str(json.loads(planned.stdout)["checksum"])


def test_a_partial_review_is_named_with_the_kinds_it_could_not_read(organization):
    manifests, sandbox = organization
    saml = manifests / "integrations.yaml"
    text = saml.read_text(encoding="utf-8")
    assert "defaultRole: read" in text
    saml.write_text(text.replace("defaultRole: read", "defaultRole: comment"), encoding="utf-8")
    # The pull request also adds a team, which the reader's plan shows.
    (manifests / "qa.yaml").write_text("teams: {qa: {title: QA}}\n", encoding="utf-8")
    reviewed = checksum_of(manifests, sandbox, READER_TOKEN)

    refused = run(["apply", manifests, "--checksum", reviewed], sandbox, ADMIN_TOKEN)
    assert refused.exit_code == 1
    whole = checksum_of(manifests, sandbox, ADMIN_TOKEN)
    assert (
        f"the plan's checksum is {whole}, not the approved {reviewed}: it is not the plan that "
        "was reviewed, so nothing was applied. The plan now also makes these changes, which "
        "the reviewed plan did not: saml.okta (update); everything else is as reviewed. Either "
        "the review was partial, planned by a token that may not read saml (its plan said so "
        "under 'Not planned'): review these changes in the plan above, then apply it by its "
        f"checksum {whole} by hand; or they come from a change since the review"
    ) in " ".join(refused.stderr.split())
    assert "~ saml.okta" in refused.stdout  # the plan above, whole

    # The way through: the whole plan, reviewed, applied by its checksum.
    applied = run(["apply", manifests, "--checksum", whole], sandbox, ADMIN_TOKEN)
    assert applied.exit_code == 0, applied.output
    assert run(["plan", manifests, "--detailed-exitcode"], sandbox, ADMIN_TOKEN).exit_code == 0


def hand_change(sandbox: Path) -> None:
    """After the review, someone makes Hannah an admin in the service's UI."""
    live_api(sandbox, "PATCH", "/orgs/org_acme/members/u_hannah", {"role": "admin"})


def test_a_hand_change_after_the_review_is_named_with_the_reviewed_plan(organization, tmp_path):
    manifests, sandbox = organization
    (manifests / "qa.yaml").write_text("teams: {qa: {title: QA}}\n", encoding="utf-8")
    saved = tmp_path / "reviewed.json"
    planned = run(["plan", manifests, "--out", saved], sandbox, ADMIN_TOKEN)
    assert planned.exit_code == 0, planned.output
    reviewed = json.loads(saved.read_text(encoding="utf-8"))["checksum"]
    hand_change(sandbox)

    bare = run(["apply", manifests, "--checksum", reviewed], sandbox, ADMIN_TOKEN)
    assert bare.exit_code == 1
    said = " ".join(bare.stderr.split())
    assert (
        "The plan now also makes these changes, which the reviewed plan did not: "
        "member.hannah.berg@acme.test (update); everything else is as reviewed."
    ) in said
    assert "a change made outside the manifests that the plan would revert (keep that one " in said

    named = run(
        ["apply", manifests, "--checksum", reviewed, "--reviewed", saved], sandbox, ADMIN_TOKEN
    )
    assert named.exit_code == 1
    said = " ".join(named.stderr.split())
    assert f"Compared with the reviewed plan ({saved}): " in said
    assert "planned now but not in the saved plan: member.hannah" in said
    assert "keep it with 'docform adopt', or re-plan and review" in said
    assert live_api(sandbox, "GET", "/orgs/org_acme/members/u_hannah")["role"] == "admin"


def test_a_reviewed_plan_file_that_is_not_the_approved_plan_is_not_believed(organization, tmp_path):
    manifests, sandbox = organization
    saved = tmp_path / "reviewed.json"
    assert run(["plan", manifests, "--out", saved], sandbox, ADMIN_TOKEN).exit_code == 0
    hand_change(sandbox)
    refused = run(
        ["apply", manifests, "--checksum", "e" * 64, "--reviewed", saved], sandbox, ADMIN_TOKEN
    )
    assert refused.exit_code == 1
    assert "Compared with the reviewed plan" not in refused.stderr
    assert "The plan above is what the manifests make now" in " ".join(refused.stderr.split())
