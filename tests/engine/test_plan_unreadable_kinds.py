"""A token that may read some kinds but not others plans what it may read, through the CLI
against the sandbox: an editor (not an admin) may not read the organization's integration
installations (the organization says `listInstallations: false` for it), so the integrations
are not planned, nor the spaces and sites they are installed on, which are read after them;
what the editor may read is planned whole, including what the unread kinds depend on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EDITOR_TOKEN
from planning import apply, live_api, run, write_manifests

ORG = "org_acme"


@pytest.fixture(autouse=True)
def write_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGMENT_KEY", "wk-live-5fd0c2a1e9")


def write(manifests: Path, spaces: dict[str, Any], installed_on: list[str], region: str) -> Path:
    segment = {
        "integration": "segment",
        "configuration": {"writeKey": "${env:SEGMENT_KEY}", "region": region},
        "spaces": {name: {} for name in installed_on},
    }
    doc = {"organization": {"id": ORG}, "spaces": spaces, "integrations": {"analytics": segment}}
    return write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


def plan(manifests: Path, sandbox: Path, token: str | None = None) -> tuple[int, dict[str, Any]]:
    args = ["plan", manifests, "--json", "--detailed-exitcode"]
    result = run(args, sandbox, token=token) if token else run(args, sandbox)
    assert result.exit_code in (0, 2, 3), result.output
    return result.exit_code, json.loads(result.stdout)


def kinds_planned(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["kind"], c["action"]) for c in doc["changes"]]


def test_the_kinds_read_after_an_unreadable_one_are_not_planned_either(sandbox, manifests):
    handbook = {"handbook": {"title": "Handbook"}}
    apply(write(manifests, handbook, ["handbook"], region="eu"), sandbox)
    # The integration is set up again and installed on a new space, which is created too.
    spaces = {**handbook, "guides": {"title": "Guides"}}
    write(manifests, spaces, ["handbook", "guides"], region="us")

    code, whole = plan(manifests, sandbox)
    assert code == 2
    assert kinds_planned(whole) == [
        ("space", "create"), ("integration", "update"), ("integration_target", "create"),
    ]  # fmt: skip

    code, partial = plan(manifests, sandbox, EDITOR_TOKEN)
    assert code == 3
    # The space the install needs is planned; the install on it and its set-up are not.
    assert kinds_planned(partial) == [("space", "create")]
    reasons = {entry["kind"]: entry["reason"] for entry in partial["not_planned"]}
    assert list(reasons) == ["saml", "integration", "integration_target"]
    assert reasons["integration"].startswith(
        "integrations: the token may not read them (GET /orgs/org_acme/installations failed: "
        "403 reading the integration installations of organization 'org_acme' needs the admin "
        "role"
    )
    assert reasons["integration_target"] == (
        "integration installations on spaces and sites: read after integration, not read"
    )

    refused = run(["apply", manifests, "--yes"], sandbox, token=EDITOR_TOKEN)
    assert refused.exit_code == 1
    assert "nothing was applied: the token may not read everything" in refused.stderr
    assert [s["title"] for s in live_api(sandbox, "GET", f"/orgs/{ORG}/spaces")["items"]] == [
        "Handbook"
    ]
