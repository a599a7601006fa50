"""End to end: the organization's agent instructions (``organization.agentInstructions``).

Written as Markdown or as a Document, compared as text, replaced with one PUT, exported;
an organization entry without them leaves them unmanaged and unread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

PATH = "/orgs/org_acme/agent-instructions"
RULES = "# House rules\n\nAnswer in plain English.\n\nNever promise dates."


def write(manifests: Path, instructions: dict[str, Any] | None) -> None:
    organization: dict[str, Any] = {"id": "org_acme"}
    if instructions is not None:
        organization["agentInstructions"] = instructions
    write_manifests(manifests, yaml.safe_dump({"organization": organization}, sort_keys=False))


def live_text(sandbox: Path) -> list[str]:
    """The text of each paragraph of the live instructions."""
    document = live_api(sandbox, "GET", PATH)["instructions"]
    return [node["nodes"][0]["leaves"][0]["text"] for node in document["nodes"]]


def test_markdown_instructions_are_put_then_converge(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"markdown": RULES})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("agentInstructions", "create")]
    created = change(plan, "agentInstructions")
    assert created["after"] == {"instructions": RULES}
    ((method, path, body),) = calls(created)
    assert (method, path) == ("PUT", PATH)
    assert [block["type"] for block in body["instructions"]["nodes"]] == ["paragraph"] * 3
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_text(sandbox) == RULES.split("\n\n")


def test_an_edit_shows_as_text_in_the_plan(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"markdown": RULES})
    apply(manifests, sandbox)
    write(manifests, {"markdown": RULES.replace("Never promise dates.", "Cite the docs.")})
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert "~ agentInstructions" in result.stdout
    assert "Cite the docs." in result.stdout and "Never promise dates." in result.stdout
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_text(sandbox)[-1] == "Cite the docs."


def test_a_document_is_sent_as_written_and_compared_by_its_text(
    sandbox: Path, manifests: Path
) -> None:
    leaf = {"object": "leaf", "text": "Be brief.", "marks": [{"object": "mark", "type": "bold"}]}
    text = {"object": "text", "leaves": [leaf]}
    block = {"object": "block", "type": "paragraph", "key": "k1", "isVoid": False,
             "nodes": [text], "data": {"align": "start"}}  # fmt: skip
    document = {"object": "document", "data": {"schemaVersion": 1}, "nodes": [block]}
    write(manifests, {"document": document})
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "agentInstructions")) == [("PUT", PATH, {"instructions": document})]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    write(manifests, {"markdown": "Be brief."})  # the same text: nothing to change
    assert_converged(manifests, sandbox)


def test_both_forms_at_once_are_refused_where_written(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"markdown": "a", "document": {"object": "document", "nodes": []}})
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:3" in result.output
    assert "write either markdown or document" in result.output


def test_left_out_they_are_not_read(sandbox: Path, manifests: Path) -> None:
    write(manifests, None)
    without = plan_request_count(manifests, sandbox)
    write(manifests, {"markdown": RULES})
    assert plan_request_count(manifests, sandbox) == without + 1


def test_export_writes_them_as_markdown_and_plans_no_change(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write(manifests, {"markdown": RULES})
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    organization = yaml.safe_load((exported / "organization.yaml").read_text())["organization"]
    assert organization["agentInstructions"] == {"markdown": RULES}
    assert_converged(exported, sandbox)
