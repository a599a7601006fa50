"""End to end: which settings of an integration's configuration are secret comes from what the
integration declares (``GET /integrations/{name}``), for every integration the sandbox publishes
and every place it is installed on (organization, space, site).

A secret written in plain text stops the plan at its file:line, and its value appears in no
output of plan, apply, drift or export, text or JSON; a plain setting is shown like any value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform_sandbox.routes.integration_catalogue import CATALOGUE
from planning import apply, change, live_api, plan_json, run, write_manifests

ORG = "org_acme"
PLAIN = "sk_live_PLAINTEXT_123"
SPACES = {"handbook": {"title": "Handbook"}}
SITES = {"docs": {"id": "site_docs", "title": "Acme Docs"}}
ON = {"account": ("configuration",), "space": ("spaces", "handbook"), "site": ("sites", "docs")}


def secrets_of(name: str, target: str) -> list[str]:
    properties = CATALOGUE[name].get(target, {}).get("properties", {})
    return sorted(
        key
        for key, setting in properties.items()
        if setting.get("format") == "password" or setting.get("writeOnly")
    )


DECLARED = [
    (name, target, key)
    for name in sorted(CATALOGUE)
    for target in ON
    for key in secrets_of(name, target)
]


def entry_with(name: str, settings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    entry: dict[str, Any] = {"integration": name}
    if "account" in settings:
        entry["configuration"] = settings["account"]
    for target, field in (("space", "spaces"), ("site", "sites")):
        if target in settings:
            entry[field] = {ON[target][1]: {"configuration": settings[target]}}
    return entry


def write(manifests: Path, integrations: dict[str, Any]) -> Path:
    doc = {"organization": {"id": ORG}, "spaces": SPACES, "sites": SITES}
    write_manifests(manifests, yaml.safe_dump({**doc, "integrations": integrations}))
    return manifests / "main.yaml"


def line_of(path: Path, name: str, key: str) -> int:
    """The line where ``key`` is written inside the entry of integration ``name``."""
    lines = path.read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip() == f"{name}:")
    return next(n for n, line in enumerate(lines) if n > start and f"{key}: {PLAIN}" in line) + 1


def test_the_sandbox_declares_secrets_for_every_kind_of_place() -> None:
    assert {target for _, target, _ in DECLARED} == set(ON)


@pytest.mark.parametrize(("name", "target", "key"), DECLARED, ids=[".".join(d) for d in DECLARED])
def test_a_declared_secret_in_plain_text_stops_the_plan_at_its_line(
    sandbox: Path, manifests: Path, name: str, target: str, key: str
) -> None:
    written = write(manifests, {name: entry_with(name, {target: {key: PLAIN}})})

    result = run(["plan", manifests], sandbox)

    assert result.exit_code == 1, result.output
    where = ".".join(
        (*ON[target], key) if target == "account" else (*ON[target], "configuration", key)
    )
    line = line_of(written, name, key)
    assert (
        f"main.yaml:{line}:" in result.output
        and f"integration.{name}: {where} is a secret of the {name} integration (it declares "
        "it so), written in plain text: write it as ${env:NAME} or {file: PATH}"
        in result.output
    ), result.output
    assert PLAIN not in result.output + result.stderr


def test_plain_settings_are_shown_and_secrets_hidden(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLACK_SIGNING", PLAIN)
    config = {"channel": "#docs", "notifyOn": "publish", "webhookSecret": "${env:SLACK_SIGNING}"}
    write(manifests, {"chat": {"integration": "slack", "configuration": config}})
    created = change(plan_json(manifests, sandbox), "integration.chat")
    assert created["after"]["configuration"] == {
        "channel": "#docs",
        "notifyOn": "publish",
        "webhookSecret": "(sensitive)",
    }
    apply(manifests, sandbox)
    config["channel"] = "#releases"
    write(manifests, {"chat": {"integration": "slack", "configuration": config}})
    updated = change(plan_json(manifests, sandbox), "integration.chat")
    assert {"path": "configuration.channel", "before": "#docs", "after": "#releases"} in (
        updated["fields"]
    )
    shown = run(["plan", manifests], sandbox).output
    assert '"#docs"' in shown and '"#releases"' in shown, shown
    assert PLAIN not in shown


def test_a_plain_text_secret_never_leaves_docform(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    """The canary: a secret pasted into a manifest is refused at its line by every command
    that plans, and no output, text or JSON, nor any file docform writes, holds it."""
    config = {"trackingId": "UA-1", "writeKey": PLAIN}
    written = write(manifests, {"analytics": {"integration": "segment", "configuration": config}})
    live_api(sandbox, "POST", "/integrations/segment/installations", {"organization": ORG})
    saved = tmp_path / "plan.json"
    results = [
        run(["validate", manifests], sandbox),
        run(["plan", manifests], sandbox),
        run(["plan", manifests, "--json"], sandbox),
        run(["plan", manifests, "--markdown", "-v", "--out", saved], sandbox),
        run(["apply", manifests, "--yes"], sandbox),
        run(["apply", manifests, "--yes", "--json"], sandbox),
        run(["drift", manifests], sandbox),
        run(["drift", manifests, "--json"], sandbox),
        run(["export", ORG, tmp_path / "exported"], sandbox),
    ]
    line = line_of(written, "analytics", "writeKey")
    for result in results[1:-1]:
        assert result.exit_code == 1, result.output
        assert f"main.yaml:{line}:" in result.output + result.stderr
    for result in results:
        assert PLAIN not in result.output + result.stderr
    files = [*(tmp_path / "exported").rglob("*"), *manifests.glob("docform.lock"), saved]
    assert [str(f) for f in files if f.is_file() and PLAIN in f.read_text()] == []
    installed = live_api(sandbox, "GET", f"/orgs/{ORG}/installations")["items"]
    assert json.dumps(installed).count(PLAIN) == 0
