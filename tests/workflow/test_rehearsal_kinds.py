"""Every kind the twin loads beyond the organization's core (`docform_sandbox.twin_setting_loaders`,
`docform_sandbox.twin_integration_loaders`) is rehearsed: one table over those kinds, each with
an entry applied to the seeded sandbox and then edited. ``plan --rehearse`` through the CLI runs
the edit's calls on the twin and converges (the kind is loaded, none of its changes held back);
a call of that kind the service refuses (what it is under gone: its organization, integration
or Git Sync) is caught on the twin, naming the call, before any live call; and the answers the
twin keeps after the edit's calls are those it would give."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_rehearsal import kept_after_the_calls, live_rows

from docform.manifest import load_manifest_set
from docform.workflow.rehearsal import Rehearsal, rehearse
from docform.workflow.run import plan_manifests
from planning import run, write_manifests

DOCS = {"id": "site_docs", "title": "Acme Docs"}
HANDBOOK = {"handbook": {"title": "Handbook", "language": "en"}}
SCHEMA = {"properties": {"plan": {"type": "string", "description": "The plan"}}}


def site(**held: Any) -> dict[str, Any]:
    return {"organization": {"id": "org_acme"}, "sites": {"docs": {**DOCS, **held}}}


def guides(**shown: Any) -> dict[str, Any]:
    """The site showing the space handbook in a section, the space's entry holding ``shown``."""
    space = {"space": "handbook", "path": "handbook", **shown}
    section = {"title": "Guides", "path": "guides", "spaces": {"main": space}}
    return {**site(sections={"guides": section}), "spaces": HANDBOOK}


def segment(region: str = "eu", **targets: Any) -> dict[str, Any]:
    configuration = {"writeKey": "${env:SEGMENT_KEY}", "region": region, "sampleRate": 50}
    return {"integration": "segment", "configuration": configuration, **targets}


def synced(directory: str) -> dict[str, Any]:
    return {"space": "handbook", "provider": "github", "repository": 1000, "branch": "main",
            "projectDirectory": directory, "priority": "service"}  # fmt: skip


def org(**held: Any) -> dict[str, Any]:
    return {"organization": {"id": "org_acme", **held.pop("organization", {})}, **held}


def french(instructions: str) -> dict[str, Any]:
    return {"handbook-fr": {"source": {"space": "handbook", "language": "en"}, "language": "fr",
                            "instructions": {"markdown": instructions}}}  # fmt: skip


ZENDESK = {
    "connector": "builtin:zendesk",
    "setupSettings": {"subdomain": "acme", "email": "support@acme.test",
                      "apiToken": "${env:ZENDESK_TOKEN}"},
    "usageSettings": {"changeRequests": False, "search": True, "searchBoost": "x1.0"},
}  # fmt: skip
TOOLS = {"url": "https://mcp.acme.test/sse", "headers": {"Authorization": "${env:MCP_TOKEN}"}}
LOGIN = {"backend": "custom", "fallbackURL": "https://id.acme.test/login"}

#: kind: (the manifests applied, the manifests then planned with --rehearse)
KIND_EDITS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "customization": (
        site(customization={"styling": {"primaryColor": {"light": "#0B5FFF"}}}),
        site(customization={"styling": {"primaryColor": {"light": "#00AA55"}}}),
    ),
    "override": (
        guides(
            customization={"styling": {"primaryColor": {"light": "#111111", "dark": "#222222"}}}
        ),
        guides(
            customization={"styling": {"primaryColor": {"light": "#333333", "dark": "#222222"}}}
        ),
    ),
    "adaptive_content": (
        site(adaptiveContent={"enabled": True, "schema": SCHEMA}),
        site(
            adaptiveContent={
                "enabled": True,
                "schema": {
                    "properties": {"plan": {"type": "string", "description": "The plan bought"}}
                },
            }
        ),
    ),
    "agent_settings": (
        site(agentSettings={"scans": {"topics": "never"}}),
        site(agentSettings={"scans": {"topics": "auto"}}),
    ),
    "visitor_auth": (
        site(visibility="visitor-auth", visitorAuth=LOGIN),
        site(
            visibility="visitor-auth",
            visitorAuth={**LOGIN, "fallbackURL": "https://id.acme.test/signin"},
        ),
    ),
    "share_link": (
        site(shareLinks={"partners": {"title": "Partners"}}),
        site(shareLinks={"partners": {"title": "Partner preview"}}),
    ),
    "context_connection": (
        site(contextConnections={"desk": {"label": "Help desk", **ZENDESK}}),
        site(contextConnections={"desk": {"label": "Support desk", **ZENDESK}}),
    ),
    "mcp_server": (
        site(mcpServers={"tools": {"title": "Acme tools", **TOOLS}}),
        site(mcpServers={"tools": {"title": "Acme tool box", **TOOLS}}),
    ),
    "channel": (
        site(
            channels={
                "slack": {"type": "builtin:slack", "setupSettings": {"allowedChannels": ["docs"]}}
            }
        ),
        site(
            channels={
                "slack": {
                    "type": "builtin:slack",
                    "setupSettings": {"allowedChannels": ["docs", "support-*"]},
                }
            }
        ),
    ),
    "integration": (
        org(spaces=HANDBOOK, integrations={"analytics": segment(region="eu")}),
        org(spaces=HANDBOOK, integrations={"analytics": segment(region="us")}),
    ),
    "integration_target": (
        org(spaces=HANDBOOK, integrations={"analytics": segment(spaces={"handbook": {}})}),
        org(spaces=HANDBOOK, integrations={"analytics": segment(spaces={})}),
    ),
    "git_sync": (
        org(spaces=HANDBOOK, gitSync={"handbook": synced("docs/handbook")}),
        org(spaces=HANDBOOK, gitSync={"handbook": synced("docs/guide")}),
    ),
    "link_invite": (
        org(linkInvites={"join": {"role": "read"}}),
        org(linkInvites={"join": {"role": "edit"}}),
    ),
    "translation": (
        org(spaces=HANDBOOK, translations=french("Formal register.")),
        org(spaces=HANDBOOK, translations=french("Plain register.")),
    ),
    "agent_instructions": (
        org(organization={"agentInstructions": {"markdown": "Cite the docs."}}),
        org(organization={"agentInstructions": {"markdown": "Cite the docs, always."}}),
    ),
}


@pytest.fixture(autouse=True)
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZENDESK_TOKEN", "zendesk-token-for-the-rehearsal")
    monkeypatch.setenv("MCP_TOKEN", "Bearer mcp-token-for-the-rehearsal")
    monkeypatch.setenv("SEGMENT_KEY", "wk-live-for-the-rehearsal")


def gone_from_under(path: str) -> str:
    """``path`` with the organization (or the integration, or the Git Sync) it is under gone."""
    if "org_acme" in path:
        return path.replace("org_acme", "org_gone")
    return re.sub(r"^/(integrations|git/installations)/[^/]+", r"/\1/gone", path)


def write(directory: Path, document: dict[str, Any]) -> Path:
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


@pytest.mark.contract_exempt("sends the twin a call to an organization it does not hold")
@pytest.mark.parametrize("kind", sorted(KIND_EDITS))
def test_a_change_of_each_kind_is_rehearsed_and_a_refused_call_of_it_caught(
    sandbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    applied, edited = KIND_EDITS[kind]
    directory = write(tmp_path / "m", applied)
    first = run(["apply", directory, "--yes", "--no-rehearse"], sandbox)
    assert first.exit_code == 0, first.output
    write(directory, edited)

    planned = run(["plan", directory, "--rehearse", "--json"], sandbox)

    assert planned.exit_code == 0, planned.output
    plan = json.loads(planned.stdout)
    assert kind in {change["kind"] for change in plan["changes"]}
    rehearsal = plan["rehearsal"]
    assert rehearsal["converged"], rehearsal
    assert kind not in rehearsal["kinds_not_loaded"] and rehearsal["not_rehearsed"] == []
    assert rehearsal["calls"] == rehearsal["accepted"] > 0

    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    manifests = load_manifest_set(directory)
    before = live_rows(sandbox)

    async def refused() -> tuple[str, Rehearsal]:
        plan, _ = await plan_manifests(manifests)
        change = next(c for c in plan.changes if c.kind == kind)
        gone = replace(change.calls[0], path=gone_from_under(change.calls[0].path))
        changed = replace(change, calls=[gone, *change.calls[1:]])
        return change.key, await rehearse(manifests, replace(plan, changes=[changed]),
                                          parallelism=4)  # fmt: skip

    key, rehearsal_refused = asyncio.run(refused())

    (refusal,) = rehearsal_refused.refused
    assert refusal.change == key
    assert "gone" in refusal.call["path"] and refusal.status == 404
    assert live_rows(sandbox) == before
    kept, unlike, _ = kept_after_the_calls(manifests)
    assert unlike == [] and kept > 0
