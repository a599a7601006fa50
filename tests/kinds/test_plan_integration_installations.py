"""End to end: integrations installed on the organization, its spaces and its sites
(``integrations:``).

Installed with a POST and set up with a PATCH, the configuration diffed key by key, spaces and
sites installed and uninstalled as the entry lists them, uninstalled under prune, exported; an
installation made by hand is reported unmanaged. Secrets in the configuration never leave
docform: tests/test_secrets_canary.py-style scans of every output are in
test_integration_secrets below.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    plan_request_count,
    run,
    write_manifests,
)

ORG = "org_acme"
KEY = "wk-live-5fd0c2a1e9"
ROTATED = "wk-live-77b3aa0c41"
SPACES = {"handbook": {"title": "Handbook"}}
SITES = {"docs": {"id": "site_docs", "title": "Acme Docs"}}
INSTALLATIONS = "/integrations/segment/installations"


@pytest.fixture(autouse=True)
def write_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEGMENT_KEY", KEY)


def analytics(**fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "integration": "segment",
        "configuration": {"writeKey": "${env:SEGMENT_KEY}", "region": "eu", "sampleRate": 50},
    }
    return {**entry, **fields}


def write(manifests: Path, integrations: dict[str, Any], prune: bool = False) -> None:
    doc: dict[str, Any] = {"organization": {"id": ORG}, "spaces": SPACES, "sites": SITES}
    doc["integrations"] = integrations
    if prune:
        doc["docform"] = {"prune": {"integrations": True}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


def installation(sandbox: Path) -> dict[str, Any]:
    (item,) = live_api(sandbox, "GET", f"/orgs/{ORG}/installations")["items"]
    return dict(item["installation"])


def test_an_installation_is_made_and_set_up_then_converges(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"analytics": analytics(siteSelection="selected")})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "create"), ("integration.analytics", "create")]
    assert calls(change(plan, "integration.analytics")) == [
        ("POST", INSTALLATIONS, {"organization": ORG}),
        (
            "PATCH",
            INSTALLATIONS + "/${integration.analytics.id}",
            {
                "configuration": {
                    "writeKey": {"$secret": "integration.analytics.configuration.writeKey"},
                    "region": "eu",
                    "sampleRate": 50,
                },
                "site_selection": "selected",
            },
        ),
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = installation(sandbox)
    assert live["configuration"] == {"writeKey": KEY, "region": "eu", "sampleRate": 50}
    assert live["site_selection"] == "selected"


def test_the_configuration_diffs_key_by_key_and_secrets_stay_hidden(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(manifests, {"analytics": analytics()})
    apply(manifests, sandbox)
    monkeypatch.setenv("SEGMENT_KEY", ROTATED)
    config = {"writeKey": "${env:SEGMENT_KEY}", "region": "us", "sampleRate": 50}
    write(manifests, {"analytics": analytics(configuration=config)})
    plan = plan_json(manifests, sandbox)
    updated = change(plan, "integration.analytics")
    assert updated["fields"] == [
        {"path": "configuration.region", "before": "eu", "after": "us"},
        {"path": "configuration.writeKey", "before": "(sensitive)", "after": "(sensitive)"},
    ]
    ((method, _, body),) = calls(updated)
    assert method == "PATCH"
    assert body["configuration"]["writeKey"] == {
        "$secret": "integration.analytics.configuration.writeKey"
    }
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert installation(sandbox)["configuration"]["writeKey"] == ROTATED


def test_spaces_and_sites_are_installed_and_uninstalled_as_listed(
    sandbox: Path, manifests: Path
) -> None:
    site_config = {"configuration": {"trackPages": True}}
    entry = analytics(spaces={"handbook": {}}, sites={"docs": site_config})
    write(manifests, {"analytics": entry})
    plan = plan_json(manifests, sandbox)
    on_site = change(plan, "integration.analytics.sites.docs")
    assert calls(on_site) == [
        ("POST", INSTALLATIONS + "/${integration.analytics.id}/sites", {"siteId": "site_docs"}),
        (
            "PATCH",
            INSTALLATIONS + "/${integration.analytics.id}/sites/site_docs",
            {"configuration": {"trackPages": True}},
        ),
    ]
    assert on_site["depends_on"] == ["integration.analytics#create"]
    on_space = change(plan, "integration.analytics.spaces.handbook")
    assert set(on_space["depends_on"]) == {"integration.analytics#create", "space.handbook#create"}
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    inst = installation(sandbox)
    assert inst["spaces"] == 1
    write(manifests, {"analytics": analytics(spaces={}, sites={"docs": site_config})})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("integration.analytics.spaces.handbook", "delete")]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert installation(sandbox)["spaces"] == 0


def test_an_installation_made_by_hand_is_unmanaged_until_pruned(
    sandbox: Path, manifests: Path
) -> None:
    live_api(sandbox, "POST", "/integrations/intercom/installations", {"organization": ORG})
    write(manifests, {})
    plan = plan_json(manifests, sandbox)
    assert [(u["kind"], u["title"]) for u in plan["unmanaged"] if u["kind"] == "integration"] == [
        ("integration", "intercom")
    ]
    write(manifests, {}, prune=True)
    plan = plan_json(manifests, sandbox)
    (uninstall,) = [c for c in plan["changes"] if c["kind"] == "integration"]
    assert uninstall["action"] == "delete"
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/installations")["items"] == []


def test_coverage_is_read_only_for_entries_that_list_it(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"analytics": analytics(spaces={"handbook": {}})})
    apply(manifests, sandbox)
    without = plan_request_count(manifests, sandbox)
    write(manifests, {"analytics": analytics(spaces={"handbook": {}}, sites={})})
    assert plan_request_count(manifests, sandbox) == without + 1


def test_export_reads_only_declared_secrets_from_the_environment(
    sandbox: Path, manifests: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """segment declares its write key secret: only that becomes a variable, and the region,
    a plain setting, is written as it is."""
    write(manifests, {"analytics": analytics(sites={"docs": {}})})
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    result = run(["export", ORG, exported], sandbox)
    assert result.exit_code == 0, result.output
    text = (exported / "integrations.yaml").read_text()
    assert KEY not in text
    (entry,) = yaml.safe_load(text)["integrations"].values()
    variable = "DOCFORM_INTEGRATIONS_SEGMENT_CONFIGURATION_WRITEKEY"
    assert entry["configuration"] == {
        "writeKey": f"${{env:{variable}}}",
        "region": "eu",
        "sampleRate": 50,
    }
    monkeypatch.setenv(variable, KEY)
    assert len(entry["sites"]) == 1
    assert_converged(exported, sandbox)


def test_export_notes_name_the_entry_whose_site_configuration_holds_credentials(
    sandbox: Path, manifests: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site's configuration is a part of its integration's entry: its note names both
    (it read `integrations. holds credentials`, the entry's name missing)."""
    monkeypatch.setenv("SEGMENT_KEY", KEY)
    sites = {"docs": {"configuration": {"token": "${env:SEGMENT_KEY}"}}}
    write(manifests, {"analytics": analytics(sites=sites)})
    apply(manifests, sandbox)
    result = run(["export", ORG, tmp_path / "exported"], sandbox)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if "holds credentials" in line]
    assert any("integrations.segment.sites holds credentials" in n for n in notes), notes
    assert all(re.match(r"Note: integrations\.[\w-]+(\.\w+)? holds", n) for n in notes), notes


def test_configuration_secrets_never_leave_docform(
    sandbox: Path,
    manifests: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Plan (text, JSON, Markdown, -v logs, the saved plan), show, apply, drift, export,
    docform.lock and docform's log records: the write key appears in none of them, while the
    service holds it."""
    caplog.set_level(logging.DEBUG, logger="docform")
    write(
        manifests,
        {
            "analytics": analytics(
                sites={"docs": {"configuration": {"token": "${env:SEGMENT_KEY}"}}}
            )
        },
    )
    saved = tmp_path / "plan.json"
    shown = [
        run(["plan", manifests], sandbox),
        run(["plan", manifests, "--json"], sandbox),
        run(["plan", manifests, "--markdown", "-v", "--out", saved], sandbox),
        run(["show", saved], sandbox),
        run(["apply", saved, "--yes", "-v"], sandbox),
    ]
    monkeypatch.setenv("SEGMENT_KEY", ROTATED)  # the live value now differs: drift shows it
    shown.append(run(["drift", manifests, "-v"], sandbox))
    shown.append(run(["export", ORG, tmp_path / "exported"], sandbox))
    for result in shown:
        assert result.exit_code in (0, 2), result.output
        text = result.output + result.stderr
        assert KEY not in text and ROTATED not in text, text
    files = [saved, *manifests.rglob("*"), *(tmp_path / "exported").rglob("*")]
    leaked = [str(f) for f in files if f.is_file() and KEY in f.read_text(errors="replace")]
    assert leaked == []
    assert (manifests / "docform.lock").is_file()
    assert "PATCH /integrations/segment/installations/" in caplog.text
    assert KEY not in caplog.text and ROTATED not in caplog.text
    live = installation(sandbox)["configuration"]
    assert live["writeKey"] == KEY
