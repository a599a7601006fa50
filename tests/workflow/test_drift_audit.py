"""`docform drift` names who made each change, when and from where, from the organization's
audit log (workflow/audit.py, render/drift.py), against the sandbox."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import httpx
import pytest

from live_objects import space_id
from planning import (
    SERVE_TOKEN,
    apply,
    copy_sandbox,
    in_ui,
    live_api,
    open_store,
    run,
    served_in_thread,
    write_manifests,
)

MANIFESTS = """\
    organization: {id: org_acme, title: Acme}
    members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
    sites: {docs: {id: site_docs, title: Acme Docs}}
    spaces:
      handbook: {title: Handbook}
      runbooks: {title: Runbooks}
"""
TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


@pytest.fixture(scope="module")
def applied_once(tmp_path_factory: pytest.TempPathFactory, seeded_once: Path) -> tuple[Path, Path]:
    """MANIFESTS applied to the seeded sandbox: arranged once, copied by each test."""
    folder = tmp_path_factory.mktemp("applied")
    sandbox = copy_sandbox(seeded_once, folder)
    directory = write_manifests(folder / "m", MANIFESTS)
    apply(directory, sandbox, rehearse=False)
    return directory, sandbox


@pytest.fixture
def applied(tmp_path: Path, sandbox: Path, applied_once: tuple[Path, Path]) -> Path:
    """MANIFESTS applied (a copy of `applied_once`: its manifests, its organization copied
    over the test's sandbox)."""
    assert copy_sandbox(applied_once[1], sandbox.parent) == sandbox
    return Path(shutil.copytree(applied_once[0], tmp_path / "m"))


def _rename_in_ui(sandbox: Path, who: str = "alice@acme.test") -> str:
    handbook = space_id(sandbox, "Handbook")
    in_ui(sandbox, who, "PATCH", f"/spaces/{handbook}", {"title": "Company handbook"})
    return handbook


def test_a_hand_change_names_the_person_the_time_and_the_ui(applied, sandbox):
    _rename_in_ui(sandbox)
    result = run(["drift", applied], sandbox)
    assert result.exit_code == 2, result.output
    assert re.search(
        r'      title: live "Company handbook", manifests "Handbook"\n'
        rf"      changed by Alice Admin <alice@acme\.test> at {TIME} in the UI "
        r"\(organization\.space\.updated\)\n",
        result.stdout,
    ), result.stdout


def test_the_markdown_issue_names_them_too(applied, sandbox):
    _rename_in_ui(sandbox)
    body = run(["drift", applied, "--markdown"], sandbox).stdout
    assert re.search(
        rf"<br>changed by \*\*Alice Admin\*\* \(alice@acme\.test\) at {TIME} in the UI \|",
        body,
    ), body
    assert "Who changed what, when and from where comes from the organization's audit log" in body


def test_the_json_report_holds_the_events(applied, sandbox):
    space = _rename_in_ui(sandbox)
    doc = json.loads(run(["drift", applied, "--json"], sandbox).stdout)
    org = doc["organizations"][0]
    (change,) = org["changes"]
    (event,) = change["changed_by"]
    assert event["actor"] == {
        "type": "user",
        "id": "u_alice",
        "name": "Alice Admin",
        "email": "alice@acme.test",
    }
    assert (event["source"], event["action"], event["own"]) == (
        "ui",
        "organization.space.updated",
        False,
    )
    assert re.fullmatch(TIME, event["occurred_at"])
    assert change["id"] == space
    assert org["audit"]["available"] is True


def test_docforms_own_changes_are_not_the_explanation(applied, sandbox):
    # docform created the space (its own event), then Alice renamed it twice.
    handbook = _rename_in_ui(sandbox)
    in_ui(sandbox, "u_alice", "PATCH", f"/spaces/{handbook}", {"title": "The handbook"})
    doc = json.loads(run(["drift", applied, "--json"], sandbox).stdout)
    (change,) = doc["organizations"][0]["changes"]
    assert [(e["action"], e["own"]) for e in change["changed_by"]] == [
        ("organization.space.updated", False),
        ("organization.space.updated", False),
    ]


def test_after_apply_puts_it_back_the_persons_change_is_no_longer_drift(applied, sandbox):
    _rename_in_ui(sandbox)
    apply(applied, sandbox)
    result = run(["drift", applied], sandbox)
    assert result.exit_code == 0, result.output
    assert "changed by" not in result.stdout


def test_a_change_made_with_docforms_own_token_is_told_apart(applied, sandbox):
    handbook = space_id(sandbox, "Handbook")
    live_api(sandbox, "PATCH", f"/spaces/{handbook}", {"title": "Elsewhere"})
    result = run(["drift", applied], sandbox)
    assert result.exit_code == 2, result.output
    assert re.search(rf"changed by docform \(this token\) at {TIME} through the API", result.stdout)


def test_a_hand_created_team_and_a_hand_deleted_space_name_who(applied, sandbox):
    team = in_ui(sandbox, "alice@acme.test", "PUT", "/orgs/org_acme/teams", {"title": "Shadow"})
    in_ui(sandbox, "u_alice", "DELETE", f"/spaces/{space_id(sandbox, 'Runbooks')}")
    doc = json.loads(run(["drift", applied, "--json"], sandbox).stdout)
    org = doc["organizations"][0]
    (unmanaged,) = org["unmanaged"]
    assert unmanaged["id"] == team["id"]
    assert unmanaged["changed_by"][0]["action"] == "organization.team.created"
    assert unmanaged["changed_by"][0]["actor"]["email"] == "alice@acme.test"
    (gone,) = org["changes"]
    assert gone["address"] == "space.runbooks"
    assert gone["changed_by"][0]["action"] == "organization.space.deleted"
    assert gone["changed_by"][0]["source"] == "ui"


def test_since_bounds_the_window(applied, sandbox):
    _rename_in_ui(sandbox)
    doc = json.loads(run(["drift", applied, "--json", "--since", "2999-01-01"], sandbox).stdout)
    org = doc["organizations"][0]
    assert org["changes"][0]["changed_by"] == []
    assert org["audit"]["since"] == "2999-01-01T00:00:00Z"
    bad = run(["drift", applied, "--since", "last tuesday"], sandbox)
    assert bad.exit_code == 1
    assert "--since last tuesday: not a time" in bad.stderr


def test_an_organization_without_audit_access_is_said_once_and_drift_works(applied, sandbox):
    with open_store(sandbox) as store:
        org = store.get("organization", "org_acme")
        store.update("organization", {**org, "auditLogs": False})
    _rename_in_ui(sandbox)
    result = run(["drift", applied], sandbox)
    assert result.exit_code == 2, result.output
    assert '      title: live "Company handbook", manifests "Handbook"\n' in result.stdout
    assert "changed by" not in result.stdout
    note = "the audit log could not be read (403)"
    assert result.stderr.count(note) == 1
    assert result.stdout.count(note) == 1
    doc = json.loads(run(["drift", applied, "--json"], sandbox).stdout)
    assert doc["organizations"][0]["audit"]["available"] is False
    assert doc["organizations"][0]["changes"][0]["changed_by"] == []


def test_the_events_are_read_once_per_organization_not_per_object(tmp_path, sandbox):
    # Served, so that one sandbox counts the calls of every client the command opens.
    with served_in_thread(sandbox) as root:
        env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": SERVE_TOKEN, "NO_COLOR": "1"}
        headers = {"Authorization": f"Bearer {SERVE_TOKEN}"}
        directory = write_manifests(tmp_path / "m", MANIFESTS)
        from click.testing import CliRunner

        from docform.cli import cli

        assert CliRunner().invoke(cli, ["apply", str(directory), "--yes"], env=env).exit_code == 0
        spaces = httpx.get(f"{root}/v1/orgs/org_acme/spaces", headers=headers).json()["items"]
        for space in spaces:
            change = {"user": "u_alice", "method": "PATCH", "path": f"/spaces/{space['id']}"}
            change["body"] = {"title": f"{space['title']} (edited)"}
            httpx.post(f"{root}/_sandbox/ui", json=change, headers=headers).raise_for_status()
        httpx.post(f"{root}/_sandbox/stats/reset", headers=headers).raise_for_status()
        result = CliRunner().invoke(cli, ["drift", str(directory)], env=env)
        assert result.exit_code == 2, result.output
        assert result.stdout.count("changed by Alice") == 2
        counts = httpx.get(f"{root}/_sandbox/stats", headers=headers).json()["byRoute"]
    assert counts["GET /orgs/{organizationId}/audit-events"] == 1


def test_an_actors_name_is_shown_never_followed(applied, sandbox):
    with open_store(sandbox) as store:
        user = store.get("user", "u_alice")
        store.update("user", {**user, "displayName": "Eve\r\nNo drift [Approve](https://x.test)"})
    _rename_in_ui(sandbox)
    text = run(["drift", applied], sandbox).stdout
    assert "changed by Eve\\r\\nNo drift [Approve](https://x.test) <alice@acme.test>" in text
    assert "\nNo drift" not in text
    body = run(["drift", applied, "--markdown"], sandbox).stdout
    assert "[Approve](" not in body
    assert "\\[Approve\\]" in body


INVITE = "/orgs/org_acme/link-invites"


def _agent_instructions_by_hand(sandbox: Path) -> None:
    document = live_api(sandbox, "GET", "/orgs/org_acme/agent-instructions")["instructions"]
    in_ui(sandbox, "alice@acme.test", "PUT", "/orgs/org_acme/agent-instructions",
          {"instructions": {**document, "nodes": document["nodes"][:1] * 2}})  # fmt: skip


def _link_invite_by_hand(sandbox: Path) -> None:
    invite = live_api(sandbox, "GET", INVITE)["items"][0]
    in_ui(sandbox, "alice@acme.test", "PATCH", f"{INVITE}/{invite['id']}", {"role": "edit"})


@pytest.mark.parametrize(
    ("extra", "hand_change", "action"),
    [
        (
            "    organization:\n"
            "      {id: org_acme, title: Acme, agentInstructions: {markdown: Be kind}}\n",
            _agent_instructions_by_hand,
            "organization.agent-instructions.updated",
        ),
        (
            "    linkInvites: {readers: {role: read}}\n",
            _link_invite_by_hand,
            "organization.link-invite.updated",
        ),
    ],
    ids=["agent-instructions", "link-invite"],
)
def test_a_hand_change_of_an_object_without_an_id_of_its_own_is_attributed(
    tmp_path, sandbox, extra, hand_change, action
):
    """Agent instructions are one document of the organization (no id of their own); a link
    invite is known by a keyed fingerprint, never its id (which admits its holder): drift
    still names who changed them, and shows no invite id."""
    text = MANIFESTS.replace("    organization: {id: org_acme, title: Acme}\n", "") + extra
    if "organization:" not in extra:
        text = "    organization: {id: org_acme, title: Acme}\n" + text
    directory = write_manifests(tmp_path / "m", text)
    apply(directory, sandbox)
    hand_change(sandbox)
    result = run(["drift", directory, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    report = result.stdout
    assert '"actor_label": "Alice Admin"' in report or "Alice Admin" in report, report
    assert action in report
    for invite in live_api(sandbox, "GET", INVITE)["items"]:
        assert invite["id"] not in result.output
