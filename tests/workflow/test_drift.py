"""`docform drift` (cli/drift.py, workflow/drift.py, render/drift.py) against the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning import append_manifests, apply, live_api, run, write_manifests

# The seeded org_acme exactly as it is live.
IN_SYNC = """\
    organization: {id: org_acme, title: Acme}
    members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
    sites: {docs: {id: site_docs, title: Acme Docs}}
"""


@pytest.fixture
def in_sync(tmp_path: Path) -> Path:
    return write_manifests(tmp_path / "m", IN_SYNC)


def test_in_sync_exits_0(in_sync, sandbox):
    result = run(["drift", in_sync], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "In sync: org_acme matches its manifests.\n"
        "\n"
        "No drift (0 changes, 0 unmanaged, 0 ignored).\n"
    )


def test_a_live_change_is_drift_with_both_values(in_sync, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Inc"})
    result = run(["drift", in_sync], sandbox)
    assert result.exit_code == 2, result.output
    assert (
        '  ~ organization  (live fields differ)\n      title: live "Acme Inc", manifests "Acme"\n'
    ) in result.stdout
    assert result.stdout.endswith("Drift: 1 change, 0 unmanaged, 0 ignored.\n")


def test_unmanaged_objects_are_drift_with_kind_and_title(in_sync, sandbox):
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Shadow IT"})
    result = run(["drift", in_sync, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    org = json.loads(result.stdout)["organizations"][0]
    assert [(u["kind"], u["title"]) for u in org["unmanaged"]] == [("team", "Shadow IT")]
    assert org["changes"] == []


def test_drift_never_writes(in_sync, sandbox):
    append_manifests(in_sync, "teams: {core: {title: Core}}\n")
    for _ in range(2):
        result = run(["drift", in_sync], sandbox)
        assert result.exit_code == 2, result.output
        assert "  + team.core (Core)  (in the manifests, missing from the live organization)" in (
            result.stdout
        )
    assert live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"] == []


def test_after_apply_drift_is_gone(in_sync, sandbox):
    append_manifests(in_sync, "teams: {core: {title: Core}}\n")
    apply(in_sync, sandbox)
    assert run(["drift", in_sync], sandbox).exit_code == 0


def test_ignored_differences_are_counted_not_drift(in_sync, sandbox):
    append_manifests(in_sync, "docform: {ignore: [organization.title, 'team.*']}\n")
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Inc"})
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Shadow IT"})
    result = run(["drift", in_sync], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("No drift (0 changes, 0 unmanaged, 2 ignored).\n")
    assert "    organization.title (differs): ignored by organization.title\n" in result.stdout


def test_the_markdown_report_reads_as_an_issue_body(in_sync, sandbox, tmp_path):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme | Inc"})
    report = tmp_path / "drift.md"
    result = run(["drift", in_sync, "--report", report], sandbox)
    assert result.exit_code == 2, result.output
    body = report.read_text(encoding="utf-8")
    assert body.startswith(
        "### docform drift\n\n**Drift found.** 1 change, 0 unmanaged objects, 0 ignored by the "
        "settings.\n\nChecked at "
    )
    assert "Who changed what, when and from where comes from the organization's audit log" in body
    assert "| `~` | `organization` | title: live &quot;Acme \\| Inc&quot;, manifests" in body
    assert f"`docform apply {in_sync.as_posix()}`" in body
    assert f"`docform adopt {in_sync.as_posix()}`" in body
    assert "<details><summary>The plan that would fix it</summary>" in body
    assert 'PATCH /orgs/org_acme {"title": "Acme"}' in body
    assert result.stdout.startswith("Drift in org_acme:")  # stdout keeps the text form


def test_the_markdown_report_in_sync(in_sync, sandbox, tmp_path):
    report = tmp_path / "drift.md"
    assert run(["drift", in_sync, "--report", report], sandbox).exit_code == 0
    body = report.read_text(encoding="utf-8")
    assert "**No drift: the live organizations match the manifests.**" in body
    assert "#### `org_acme`: in sync" in body


def test_the_json_report_has_a_stable_shape(in_sync, sandbox, tmp_path):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Inc"})
    report = tmp_path / "drift.json"
    result = run(["drift", in_sync, "--report", report], sandbox)
    assert result.exit_code == 2, result.output
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert list(doc) == [
        "format_version", "checked_at", "status", "totals", "not_planned", "organizations"
    ]  # fmt: skip
    assert doc["format_version"] == "1.1"
    assert doc["not_planned"] == []
    assert doc["status"] == "drift"
    assert doc["totals"] == {
        "organizations": 1,
        "in_sync": 0,
        "drift": 1,
        "error": 0,
        "changes": 1,
        "unmanaged": 0,
        "ignored": 0,
    }
    org = doc["organizations"][0]
    assert list(org) == [
        "directory",
        "organization",
        "status",
        "error",
        "counts",
        "not_planned",
        "changes",
        "unmanaged",
        "ignored",
        "policies",
        "plan",
        "audit",
    ]
    # The change was made with docform's own token (an admin token, no user's): its event is
    # told apart as docform's.
    (event,) = org["changes"][0].pop("changed_by")
    assert event["own"] is True
    assert (event["action"], event["source"]) == ("organization.settings.updated", "api")
    assert org["changes"] == [
        {
            "address": "organization",
            "human_key": None,
            "kind": "organization",
            "action": "update",
            "id": "org_acme",
            "reason": "live organization org_acme, matched by its pinned id, differs",
            "fields": [{"path": "title", "before": "Acme Inc", "after": "Acme"}],
        }
    ]
    assert org["plan"]["changes"][0]["calls"] == [
        {"method": "PATCH", "path": "/orgs/org_acme", "body": {"title": "Acme"}}
    ]


def test_an_organization_that_cannot_be_read_exits_1(tmp_path, sandbox):
    directory = write_manifests(tmp_path / "m", "organization: {id: org_missing}\n")
    result = run(["drift", directory, "--json"], sandbox)
    assert result.exit_code == 1, result.output
    org = json.loads(result.stdout)["organizations"][0]
    assert org["status"] == "error"
    assert "org_missing" in org["error"]
    assert "Error: org_missing: " in result.stderr
    assert "Traceback" not in result.output


def test_invalid_manifests_exit_1_with_their_problems(tmp_path, sandbox):
    directory = write_manifests(tmp_path / "m", "organization: {id: org_acme, titel: A}\n")
    result = run(["drift", directory], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:1:30: organization.titel: unknown key 'titel'" in result.stderr
    assert f"Could not check {directory}: 1 problem in the manifests" in result.stdout


def test_an_unwritable_report_is_an_error(in_sync, sandbox, tmp_path):
    report = tmp_path / "missing" / "drift.md"
    result = run(["drift", in_sync, "--report", report], sandbox)
    assert result.exit_code == 1
    assert f"Error: cannot write the report to {report}: " in result.stderr


def test_the_json_formats_document_the_keys_of_a_real_report(in_sync, sandbox):
    formats = Path(__file__).parents[2] / "docs" / "json-formats.md"
    text = formats.read_text(encoding="utf-8")
    section = text[text.index("## Drift JSON") :]
    documented = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Inc"})
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Shadow IT"})
    real = json.loads(run(["drift", in_sync, "--json"], sandbox).stdout)
    assert list(documented) == list(real)
    assert documented["totals"] == real["totals"]
    org, real_org = documented["organizations"][0], real["organizations"][0]
    assert list(org) == list(real_org)
    assert list(org["changes"][0]) == list(real_org["changes"][0])
    # Events differ by id and time; their keys do not.
    documented_events = org["changes"][0].pop("changed_by")
    real_events = real_org["changes"][0].pop("changed_by")
    assert [list(e) for e in documented_events] == [list(e) for e in real_events]
    assert list(documented_events[0]["actor"]) == list(real_events[0]["actor"])
    assert org["changes"] == real_org["changes"]
    assert list(org["audit"]) == list(real_org["audit"])
    assert list(org["unmanaged"][0]) == list(real_org["unmanaged"][0])
