"""End to end: a site's agent settings (``sites.<site>.agentSettings``), one document per site
replaced whole by a PUT: set from the manifests, set by hand through the sandbox's API as an
admin would, exported, planned, edited, drifted and adopted."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    denied_by_policy,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

SITE = "/orgs/org_acme/sites/site_docs"
SETTINGS = f"{SITE}/agent-settings"
ADDRESS = "site.docs.agentSettings"
DOCS = """\
    organization: {id: org_acme, title: Acme}
    sites:
      docs:
        id: site_docs
        title: Acme Docs
"""
WRITTEN = (
    DOCS
    + """\
        agentSettings:
          scans: {topics: never}
          editing:
            customInstructions: {markdown: Keep the answers short.}
"""
)
EMPTY = {"object": "document", "data": {"schemaVersion": 1}, "nodes": []}


def paragraph(text: str) -> dict[str, object]:
    """A paragraph as the service's editor writes one."""
    leaf = {"object": "leaf", "text": text, "marks": []}
    text_node = {"object": "text", "leaves": [leaf]}
    return {"object": "block", "type": "paragraph", "key": "k1", "isVoid": False,
            "nodes": [text_node], "data": {"align": "start"}}  # fmt: skip


def test_the_written_parts_are_put_with_the_live_rest_and_converge(
    sandbox: Path, manifests: Path
) -> None:
    in_ui(sandbox, "alice@acme.test", "PUT", SETTINGS, {
        "scans": {"topics": "auto"},
        "findings": {"changeRequests": "never"},
        "editing": {"customInstructions": EMPTY},
    })  # fmt: skip
    write_manifests(manifests, WRITTEN)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(ADDRESS, "update")]
    updated = change(plan, ADDRESS)
    assert updated["before"] == {
        "scans": {"topics": "auto"},
        "editing": {"customInstructions": ""},
    }
    assert updated["after"] == {
        "scans": {"topics": "never"},
        "editing": {"customInstructions": "Keep the answers short."},
    }
    ((method, path, body),) = calls(updated)
    assert (method, path) == ("PUT", SETTINGS)
    # findings is not written: sent as it stands, not reset to a default.
    assert (body["scans"], body["findings"]) == ({"topics": "never"}, {"changeRequests": "never"})
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = live_api(sandbox, "GET", SETTINGS)
    assert live["findings"] == {"changeRequests": "never"}
    assert live["editing"]["customInstructions"]["nodes"][0]["nodes"][0]["leaves"][0]["text"] == (
        "Keep the answers short."
    )


def test_a_site_without_the_block_has_its_settings_left_alone(
    sandbox: Path, manifests: Path
) -> None:
    in_ui(sandbox, "alice@acme.test", "PUT", SETTINGS, {
        "scans": {"topics": "never"},
        "findings": {"changeRequests": "never"},
        "editing": {"customInstructions": EMPTY},
    })  # fmt: skip
    write_manifests(manifests, DOCS)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert [u for u in plan["unmanaged"] if u["kind"] == "agent_settings"] == []


def test_hand_made_settings_export_plan_empty_edit_as_one_change_and_drift_with_who(
    sandbox: Path, tmp_path: Path
) -> None:
    in_ui(sandbox, "alice@acme.test", "PUT", SETTINGS, {
        "scans": {"topics": "never"},
        "findings": {"changeRequests": "always"},
        "editing": {"customInstructions": {**EMPTY, "nodes": [paragraph("Cite sources.")]}},
    })  # fmt: skip
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text())["sites"]
    assert sites["acme-docs"]["agentSettings"] == {
        "scans": {"topics": "never"},
        "findings": {"changeRequests": "always"},
        "editing": {"customInstructions": {"markdown": "Cite sources."}},
    }
    assert_converged(exported, sandbox)

    text = (
        (exported / "sites.yaml")
        .read_text()
        .replace("changeRequests: always", "changeRequests: never")
    )
    (exported / "sites.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [("site.acme-docs.agentSettings", "update")]
    edited = change(plan, "site.acme-docs.agentSettings")
    assert [(f["path"], f["before"], f["after"]) for f in edited["fields"]] == [
        ("findings.changeRequests", "always", "never")
    ]
    ((_, _, body),) = calls(edited)
    assert body["editing"]["customInstructions"]["nodes"][0]["nodes"][0]["leaves"][0]["text"] == (
        "Cite sources."
    )

    apply(exported, sandbox)
    live = live_api(sandbox, "GET", SETTINGS)
    in_ui(sandbox, "alice@acme.test", "PUT", SETTINGS, {**live, "scans": {"topics": "auto"}})
    drift = run(["drift", exported, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    report = json.loads(drift.stdout)
    (drifted,) = report["organizations"][0]["changes"]
    assert (drifted["kind"], [f["path"] for f in drifted["fields"]]) == (
        "agent_settings",
        ["scans.topics"],
    )
    newest = drifted["changed_by"][0]
    assert (newest["actor"]["email"], newest["action"]) == (
        "alice@acme.test",
        "site.agent-settings.updated",
    )


def test_settings_unchanged_since_the_site_was_made_are_not_exported(
    sandbox: Path, tmp_path: Path
) -> None:
    result = run(["export", "org_acme", tmp_path / "exported"], sandbox)
    assert result.exit_code == 0, result.output
    assert "agentSettings" not in (tmp_path / "exported" / "sites.yaml").read_text()


def test_a_site_made_in_the_same_apply_gets_its_settings_put_after_it(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        DOCS
        + """\
      help:
        title: Acme Help
        agentSettings:
          findings: {changeRequests: never}
""",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.help", "create"), ("site.help.agentSettings", "create")]
    ((method, path, body),) = calls(change(plan, "site.help.agentSettings"))
    assert (method, path) == ("PUT", "/orgs/org_acme/sites/${site.help.id}/agent-settings")
    assert body["findings"] == {"changeRequests": "never"}
    assert body["scans"] == {"topics": "auto"}
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_a_value_the_service_does_not_take_is_refused_at_its_line(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, WRITTEN.replace("topics: never", "topics: weekly"))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:7:" in result.output and "agentSettings.scans.topics" in result.output


NO_AUTO_CHANGE_REQUESTS = """\
    policies:
      reviewed-fixes:
        description: The agent's change requests are asked for, never opened on their own.
        each: change
        rule: >-
          !(change.kind == 'agent_settings'
            && change.after.findings.changeRequests == 'always')
        message: "change.human_key + ' opens change requests on its own'"
"""


def test_a_policy_sees_a_settings_change(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests,
        WRITTEN.replace("scans: {topics: never}", "findings: {changeRequests: always}")
        + NO_AUTO_CHANGE_REQUESTS,
    )
    assert denied_by_policy(manifests, sandbox)[:2] == ("reviewed-fixes", ADDRESS)


def test_adopt_writes_a_hand_change_into_the_block_and_keeps_comments(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        WRITTEN.replace(
            "        agentSettings:\n", "        # Editor AI.\n        agentSettings:\n"
        ),
    )
    apply(manifests, sandbox)
    live = live_api(sandbox, "GET", SETTINGS)
    in_ui(sandbox, "alice@acme.test", "PUT", SETTINGS, {**live, "scans": {"topics": "auto"}})
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    text = (manifests / "main.yaml").read_text()
    assert "# Editor AI." in text and "topics: auto" in text
    assert_converged(manifests, sandbox)
