"""End to end: a member removal the service takes as a request to the admins (202).

The definition lets ``DELETE /orgs/{org}/members/{user}`` answer 202, "the removal request was
sent to the organization administrators": the member stays. The sandbox answers so in an
organization seeded with ``memberRemovalApproval: true``. docform's apply reports the removal
as pending (text and ``--json``), never as made, and the next plan still removes the member.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from planning import SEED_FILE, live_api, run, seeded_sandbox, write_manifests

MANIFESTS = """\
organization: {id: org_acme}
members:
  alice@acme.test: {role: admin}
  erin@acme.test: {role: edit}
docform: {prune: {members: true}}
"""


def approving_sandbox(tmp_path: Path, approval: bool) -> Path:
    """The standard seed, its organization's removals waiting for approval or not."""
    seed = yaml.safe_load(SEED_FILE.read_text(encoding="utf-8"))
    seed["organizations"][0]["memberRemovalApproval"] = approval
    (tmp_path / "seed.yaml").write_text(yaml.safe_dump(seed), encoding="utf-8")
    return seeded_sandbox(tmp_path, tmp_path / "seed.yaml")


def member_ids(sandbox: Path) -> list[str]:
    return [m["id"] for m in live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]]


def test_a_removal_the_service_sends_to_the_admins_is_reported_pending(tmp_path: Path) -> None:
    sandbox = approving_sandbox(tmp_path, approval=True)
    manifests = write_manifests(tmp_path / "m", MANIFESTS)
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 0, result.output
    assert "Apply complete: 0 changes made." in result.stdout
    assert (
        "Pending: 1 change the service accepted but has not made; the next plan shows it until "
        "the service makes it:\n"
        "  pending: member.~u_bob#delete: the service sent a request to remove this member to "
        "the organization's admins (202) instead of removing it; it stays a member until an "
        "admin accepts\n"
    ) in result.stdout
    assert "u_bob" in member_ids(sandbox)
    plan = json.loads(run(["plan", manifests, "--json"], sandbox).stdout)
    assert [(c["address"], c["action"]) for c in plan["changes"]] == [("member.~u_bob", "delete")]


def test_apply_json_marks_the_call_pending(tmp_path: Path) -> None:
    sandbox = approving_sandbox(tmp_path, approval=True)
    manifests = write_manifests(tmp_path / "m", MANIFESTS)
    result = run(["apply", manifests, "--yes", "--json"], sandbox)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [removal] = [e for e in events if e["type"] == "call" and e["change"] == "member.~u_bob#delete"]
    assert [p["change"] for p in events[-1]["pending"]] == ["member.~u_bob#delete"]
    assert (removal["ok"], removal["status"], removal["pending"]) == (True, 202, True)
    assert removal["message"].startswith("pending: the service sent a request to remove")


@pytest.mark.parametrize("approval", [False, True])
def test_only_a_202_leaves_the_removal_pending(tmp_path: Path, approval: bool) -> None:
    sandbox = approving_sandbox(tmp_path, approval=approval)
    manifests = write_manifests(tmp_path / "m", MANIFESTS)
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 0, result.output
    assert ("Pending:" in result.stdout) is approval
    assert ("u_bob" in member_ids(sandbox)) is approval
    converged = run(["plan", manifests, "--detailed-exitcode"], sandbox)
    assert converged.exit_code == (2 if approval else 0), converged.output
