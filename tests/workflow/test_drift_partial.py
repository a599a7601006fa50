"""`docform drift` with a token that may not read everything (an editor's: SAML providers need
an admin): what it could not check is reported, at the top of the JSON too, and the exit code
says the check was partial (3) unless drift was found in the rest (2), as `plan
--detailed-exitcode` says a plan is partial."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_drift import IN_SYNC

from conftest import EDITOR_TOKEN
from planning import FIXTURES, apply, live_api, run, write_manifests

SAML = "saml:\n  okta: {label: Okta, certificate: {file: cert.pem}}\n"
# An editor may read neither the SAML providers nor the integration installations (nor the
# spaces and sites those are installed on, read after them).
UNREAD = ["saml", "integration", "integration_target"]
SAML_NOT_READ = "SAML providers: the token may not read them (GET /orgs/org_acme/saml failed: 403 "


@pytest.fixture
def with_saml(tmp_path: Path, sandbox: Path) -> Path:
    """org_acme as it is live, with a SAML provider an admin applied."""
    directory = write_manifests(tmp_path / "m", IN_SYNC)
    (directory / "main.yaml").write_text(
        (directory / "main.yaml").read_text(encoding="utf-8") + SAML, encoding="utf-8"
    )
    shutil.copy(FIXTURES / "basic" / "cert.pem", directory / "cert.pem")
    apply(directory, sandbox, rehearse=False)
    return directory


def test_an_admin_checks_everything_in_sync(with_saml, sandbox):
    result = run(["drift", with_saml, "--json"], sandbox)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["not_planned"] == []


def test_in_sync_in_what_was_checked_exits_3_and_names_what_was_not(with_saml, sandbox):
    result = run(["drift", with_saml], sandbox, token=EDITOR_TOKEN)
    assert result.exit_code == 3, result.output
    assert result.stdout.startswith(
        "In sync: org_acme matches its manifests, except what was not checked.\n\n"
        "  Not checked: the token may not read these, so whether they drifted is unknown"
    )
    assert f"    {SAML_NOT_READ}" in result.stdout
    assert result.stdout.endswith(
        "No drift in what was checked (0 changes, 0 unmanaged, 0 ignored); some kinds were "
        "not checked, as the token may not read them.\n"
    )


def test_the_json_report_lists_what_was_not_checked_at_its_top(with_saml, sandbox, tmp_path):
    report = tmp_path / "drift.json"
    result = run(["drift", with_saml, "--report", report], sandbox, token=EDITOR_TOKEN)
    assert result.exit_code == 3, result.output
    doc = json.loads(report.read_text(encoding="utf-8"))
    assert (doc["format_version"], doc["status"]) == ("1.1", "in_sync")
    not_planned = doc["not_planned"]
    assert [entry["kind"] for entry in not_planned] == UNREAD
    saml = not_planned[0]
    assert list(saml) == ["directory", "organization", "kind", "reason"]
    assert saml["reason"].startswith(SAML_NOT_READ)
    assert (saml["directory"], saml["organization"]) == (".", "org_acme")
    (org,) = doc["organizations"]
    assert org["not_planned"] == [{"kind": e["kind"], "reason": e["reason"]} for e in not_planned]
    assert org["not_planned"] == org["plan"]["not_planned"]


def test_drift_found_in_what_was_checked_exits_2_and_still_names_what_was_not(
    with_saml, sandbox, tmp_path
):
    """Drift found is drift, whatever could not be read: the issue is opened (2); the
    report says what was not checked."""
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Inc"})
    markdown = tmp_path / "drift.md"
    result = run(["drift", with_saml, "--json", "--report", markdown], sandbox, EDITOR_TOKEN)
    assert result.exit_code == 2, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "drift"
    assert [entry["kind"] for entry in doc["not_planned"]] == UNREAD
    body = markdown.read_text(encoding="utf-8")
    assert "**Drift found.**" in body
    assert "#### `org_acme`: drift, except what was not checked" in body
    assert "> **Not checked: the token may not read these" in body


def test_the_markdown_verdict_of_a_partial_check_in_sync(with_saml, sandbox):
    result = run(["drift", with_saml, "--markdown"], sandbox, token=EDITOR_TOKEN)
    assert result.exit_code == 3, result.output
    assert (
        "**No drift in what was checked; some kinds were not checked, as the token may not "
        "read them.**"
    ) in result.stdout
    assert "#### `org_acme`: in sync, except what was not checked" in result.stdout


def test_an_error_beats_a_partial_check(with_saml, sandbox, tmp_path):
    """Several organizations: one that could not be checked at all exits 1."""
    root = tmp_path / "orgs"
    shutil.copytree(with_saml, root / "acme")
    write_manifests(root / "missing", "organization: {id: org_missing}\n")
    result = run(["drift", root, "--json"], sandbox, token=EDITOR_TOKEN)
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "error"
    assert [(e["directory"], e["kind"]) for e in doc["not_planned"]] == [
        ("acme", kind) for kind in UNREAD
    ]
