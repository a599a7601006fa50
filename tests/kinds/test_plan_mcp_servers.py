"""End to end: a site's MCP servers (``sites.<site>.mcpServers``), made by hand through the
sandbox's API as an admin would, exported, planned, edited and drifted; their headers in no
output docform prints or saves (plan text, ``--json``, the ``--out`` file, export, drift, the
lock and errors)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
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
LIST = f"{SITE}/mcp-servers"
#: A header value nothing may show: fresh per test process, so nothing can hard-code it.
TOKEN = f"Bearer mcp-{secrets.token_hex(12)}"
TOOLS = """\
    organization: {id: org_acme, title: Acme}
    sites:
      docs:
        id: site_docs
        title: Acme Docs
        mcpServers:
          tools:
            title: Acme tools
            url: https://mcp.acme.test/sse
            headers:
              Authorization: ${env:MCP_TOKEN}
"""


@pytest.fixture(autouse=True)
def mcp_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", TOKEN)


def files_under(directory: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in directory.rglob("*") if p.is_file())


def test_a_server_is_made_and_converges_with_its_headers_hidden(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write_manifests(manifests, TOOLS)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.mcpServer.tools", "create")]
    (post,) = calls(change(plan, "site.docs.mcpServer.tools"))
    assert post == (
        "POST",
        LIST,
        {
            "name": "Acme tools",
            "url": "https://mcp.acme.test/sse",
            "transport": "sse",
            "headers": {
                "Authorization": {"$secret": "site.docs.mcpServer.tools.headers.Authorization"}
            },
        },
    )
    shown = run(["plan", manifests], sandbox).output
    saved = tmp_path / "plan.json"
    assert run(["plan", manifests, "--out", saved], sandbox).exit_code == 0
    assert "(sensitive)" in shown
    applied = run(["apply", saved, "--yes"], sandbox)
    assert applied.exit_code == 0, applied.output
    assert_converged(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", LIST)["items"]
    assert (live["name"], live["headers"]) == ("Acme tools", {"Authorization": TOKEN})
    texts = [shown, json.dumps(plan), saved.read_text(), applied.output, files_under(manifests)]
    assert not [text for text in texts if TOKEN in text]


def test_a_hand_made_server_exports_plans_empty_edits_and_drifts(
    sandbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = in_ui(
        sandbox,
        "alice@acme.test",
        "POST",
        LIST,
        {
            "name": "Acme tools",
            "url": "https://mcp.acme.test/sse",
            "headers": {"Authorization": TOKEN},
        },
    )
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    assert TOKEN not in result.output + files_under(exported)
    sites = yaml.safe_load((exported / "sites.yaml").read_text())["sites"]
    (entry,) = sites["acme-docs"]["mcpServers"].values()
    variable = entry["headers"]["Authorization"]
    assert variable.startswith("${env:DOCFORM_") and variable.endswith("_AUTHORIZATION}")
    monkeypatch.setenv(variable[len("${env:") : -1], TOKEN)
    assert_converged(exported, sandbox)

    text = (exported / "sites.yaml").read_text().replace("transport: sse", "transport: http")
    (exported / "sites.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    (address,) = [a for a, action in actions(plan) if action == "update"]
    assert [f["path"] for f in change(plan, address)["fields"]] == ["transport"]
    assert calls(change(plan, address)) == [
        ("PATCH", f"{LIST}/{made['id']}", {"transport": "http"})
    ]

    apply(exported, sandbox)
    in_ui(
        sandbox,
        "alice@acme.test",
        "PATCH",
        f"{LIST}/{made['id']}",
        {"headers": {"Authorization": TOKEN + "x"}},
    )
    drift = run(["drift", exported, "--json"], sandbox)
    assert TOKEN not in drift.output
    report = json.loads(drift.stdout)
    (drifted,) = [c for c in report["organizations"][0]["changes"] if c["kind"] == "mcp_server"]
    assert [f["path"] for f in drifted["fields"]] == ["headers.Authorization"]
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"


def test_a_header_written_as_text_is_refused_at_its_line(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, TOOLS.replace("${env:MCP_TOKEN}", TOKEN))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        "main.yaml:" in result.output
        and "header Authorization may carry a credential" in result.output
    )
    assert TOKEN not in result.output


def test_a_missing_variable_is_an_error_without_the_value(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, TOOLS)
    apply(manifests, sandbox)
    with pytest.MonkeyPatch.context() as env:
        env.delenv("MCP_TOKEN")
        result = run(["plan", manifests], sandbox)
    assert result.exit_code != 0
    assert "MCP_TOKEN" in result.output and TOKEN not in result.output


def test_an_unlisted_server_is_listed_then_deleted_only_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    made = live_api(
        sandbox, "POST", LIST, {"name": "old", "url": "https://old.test/mcp", "headers": {}}
    )
    bare = TOOLS.split("        mcpServers:")[0] + "        mcpServers: {}\n"
    write_manifests(manifests, bare)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert made["id"] in [u["id"] for u in plan["unmanaged"]]
    write_manifests(manifests, bare + "    docform: {prune: {mcpServers: true}}\n")
    plan = plan_json(manifests, sandbox)
    (gone,) = [c for c in plan["changes"] if c["action"] == "delete"]
    assert calls(gone) == [("DELETE", f"{LIST}/{made['id']}", None)]
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", LIST)["items"] == []


SSE_ONLY = """\
    policies:
      sse-only:
        description: MCP servers are reached over SSE.
        each: change
        rule: "!(change.kind == 'mcp_server' && change.after.transport != 'sse')"
        message: "change.human_key + ' is not reached over SSE'"
"""


def test_a_policy_sees_a_servers_change_and_never_its_headers(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        TOOLS.replace("    headers:", "    transport: http\n            headers:") + SSE_ONLY,
    )
    policy, address, output = denied_by_policy(manifests, sandbox)
    assert (policy, address) == ("sse-only", "site.docs.mcpServer.tools")
    assert TOKEN not in output


def test_adopt_writes_a_hand_change_into_the_entry_and_keeps_comments(
    sandbox: Path, manifests: Path
) -> None:
    commented = TOOLS.replace(
        "        mcpServers:\n", "        # The assistant's tools.\n        mcpServers:\n"
    )
    write_manifests(manifests, commented)
    apply(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", LIST)["items"]
    in_ui(sandbox, "alice@acme.test", "PATCH", f"{LIST}/{live['id']}", {"transport": "http"})
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert TOKEN not in result.output
    text = (manifests / "main.yaml").read_text()
    assert "# The assistant's tools." in text and "transport: http" in text
    assert "${env:MCP_TOKEN}" in text and TOKEN not in text
    assert_converged(manifests, sandbox)
