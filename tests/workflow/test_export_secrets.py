"""End to end, for every kind whose entries hold a secret: an organization set up through
docform, exported, plans no change (``export ORG DIR && plan DIR --detailed-exitcode`` exits 0).

Only secrets become ``${env:...}`` variables, named in export's notes and never valued in its
files; every other value is written as it is. A secret the service answers is compared by
value, so its variable holds the live value; one it never answers (write-only: a GitLab token,
an integration's ``writeOnly`` setting) is recorded in docform.lock as sent from the variable
export wrote, so any value of it plans nothing, and a new source sends it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from docform.cli import cli
from planning import apply, run, write_manifests

ORG = "org_acme"
SITE = {"id": "site_docs", "title": "Acme Docs"}
SPACES = {"handbook": {"title": "Handbook"}}
WRITE_ONLY = "any value: the service never shows it"


@dataclass
class Case:
    """What a kind's entry writes, the secrets it reads, and the variables export names for
    them, each with the value to plan with (the live one, or any for a write-only secret)."""

    manifests: dict[str, Any]
    env: dict[str, str]
    variables: dict[str, str]
    plain: list[str] = field(default_factory=list)
    """Values export writes as they are (not secrets)."""


CASES = {
    "integration": Case(
        {
            "integrations": {
                "notify": {
                    "integration": "slack",
                    "configuration": {
                        "channel": "#docs-releases",
                        "notifyOn": "publish",
                        "webhookSecret": "${env:SLACK_SIGNING}",
                    },
                },
                "analytics": {
                    "integration": "segment",
                    "configuration": {"writeKey": "${env:SEGMENT_KEY}", "region": "eu"},
                },
            }
        },
        {"SLACK_SIGNING": "whsec-9f8e7d", "SEGMENT_KEY": "wk-5fd0c2a1"},
        {
            "DOCFORM_INTEGRATIONS_SLACK_CONFIGURATION_WEBHOOKSECRET": WRITE_ONLY,
            "DOCFORM_INTEGRATIONS_SEGMENT_CONFIGURATION_WRITEKEY": "wk-5fd0c2a1",
        },
        plain=["#docs-releases", "publish", "eu"],
    ),
    "integration_target": Case(
        {
            "integrations": {
                "analytics": {
                    "integration": "segment",
                    "sites": {
                        "docs": {
                            "configuration": {"token": "${env:SITE_TOKEN}", "trackPages": True}
                        }
                    },
                }
            }
        },
        {"SITE_TOKEN": "st-41c9"},
        {"DOCFORM_INTEGRATIONS_SEGMENT_SITES_SITE_SITE_DOCS_TOKEN": "st-41c9"},
    ),
    "mcp_server": Case(
        {
            "sites": {
                "docs": {
                    **SITE,
                    "mcpServers": {
                        "tools": {
                            "url": "https://mcp.acme.test/sse",
                            "headers": {"Authorization": "${env:MCP_TOKEN}"},
                        }
                    },
                }
            }
        },
        {"MCP_TOKEN": "Bearer mcp-77aa"},
        {"DOCFORM_SITES_TOOLS_MCP_TOOLS_AUTHORIZATION": "Bearer mcp-77aa"},
        plain=["https://mcp.acme.test/sse"],
    ),
    "context_connection": Case(
        {
            "sites": {
                "docs": {
                    **SITE,
                    "contextConnections": {
                        "desk": {
                            "connector": "builtin:zendesk",
                            "setupSettings": {
                                "subdomain": "acme",
                                "email": "support@acme.test",
                                "apiToken": "${env:ZENDESK_TOKEN}",
                            },
                            "usageSettings": {
                                "changeRequests": False,
                                "search": True,
                                "searchBoost": "x1.0",
                            },
                        }
                    },
                }
            }
        },
        {"ZENDESK_TOKEN": "zd-1c2b"},
        {"DOCFORM_SITES_DESK_API_TOKEN": "zd-1c2b"},
        plain=["support@acme.test"],
    ),
    "git_sync": Case(
        {
            "gitSync": {
                "handbook": {
                    "space": "handbook",
                    "provider": "gitlab",
                    "repository": 4242,
                    "branch": "main",
                    "accessToken": "${env:GITLAB_TOKEN}",
                }
            }
        },
        {"GITLAB_TOKEN": "glpat-0a9b8c"},
        {"DOCFORM_GITSYNC_HANDBOOK_ACCESS_TOKEN": WRITE_ONLY},
    ),
    "openapi": Case(
        {
            "openapi": {
                "private": {
                    "slug": "private",
                    "source": {"url": "https://${env:SPEC_AUTH}@specs.acme.test/api.yaml"},
                }
            }
        },
        {"SPEC_AUTH": "reader:s3cr3t"},
        {"DOCFORM_OPENAPI_PRIVATE_SOURCE_URL": ("https://reader:s3cr3t@specs.acme.test/api.yaml")},
    ),
}


def noted_variables(stderr: str) -> set[str]:
    return set(re.findall(r"set (DOCFORM_\w+) before validate, plan or apply", stderr))


def plan_exit(directory: Path, sandbox: Path, env: dict[str, str]) -> tuple[int, str]:
    env = {"DOCFORM_API_URL": f"sandbox:{sandbox}", "NO_COLOR": "1", **env}
    result = CliRunner().invoke(cli, ["plan", str(directory), "--detailed-exitcode"], env=env)
    return result.exit_code, result.output


def applied_case(
    kind: str, manifests: Path, sandbox: Path, monkeypatch: pytest.MonkeyPatch
) -> Case:
    """``CASES[kind]`` written beside the site and spaces it needs and applied, its secrets in
    the environment."""
    case = CASES[kind]
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    doc = {"organization": {"id": ORG}, "spaces": SPACES, "sites": {"docs": SITE}}
    write_manifests(manifests, yaml.safe_dump({**doc, **case.manifests}, sort_keys=False))
    apply(manifests, sandbox, rehearse=False)
    return case


@pytest.mark.parametrize("kind", sorted(CASES))
def test_an_exported_organization_plans_no_change(
    kind: str,
    sandbox: Path,
    manifests: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = applied_case(kind, manifests, sandbox, monkeypatch)
    exported = tmp_path / "exported"

    result = run(["export", ORG, exported], sandbox)

    assert result.exit_code == 0, result.output
    assert noted_variables(result.stderr) == set(case.variables), result.stderr
    written = "".join(p.read_text() for p in exported.rglob("*") if p.is_file())
    assert all(f"${{env:{name}}}" in written for name in case.variables)
    leaked = [v for v in case.env.values() if v in written + result.output + result.stderr]
    assert leaked == []
    assert all(value in written for value in case.plain), written
    status, shown = plan_exit(exported, sandbox, case.variables)
    assert status == 0, shown


def test_a_write_only_integration_secret_is_sent_when_its_variable_changes(
    sandbox: Path, manifests: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = applied_case("integration", manifests, sandbox, monkeypatch)
    exported = tmp_path / "exported"
    assert run(["export", ORG, exported], sandbox).exit_code == 0
    lock = (exported / "docform.lock").read_text()
    variable = "DOCFORM_INTEGRATIONS_SLACK_CONFIGURATION_WEBHOOKSECRET"
    assert f'    configuration.webhookSecret: "${{env:{variable}}}"\n' in lock
    text = (exported / "integrations.yaml").read_text()
    (exported / "integrations.yaml").write_text(text.replace(variable, "SLACK_SIGNING"))
    status, shown = plan_exit(exported, sandbox, {**case.variables, "SLACK_SIGNING": "whsec-new"})
    assert status == 2, shown
    assert "~ configuration.webhookSecret: (sensitive) -> (sensitive)" in shown, shown
    assert "whsec-new" not in shown


def test_a_rotate_marker_sends_an_exported_write_only_secret_again(
    sandbox: Path, manifests: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = applied_case("integration", manifests, sandbox, monkeypatch)
    exported = tmp_path / "exported"
    assert run(["export", ORG, exported], sandbox).exit_code == 0
    written = yaml.safe_load((exported / "integrations.yaml").read_text())
    written["integrations"]["slack"]["rotate"] = "2026-11"
    (exported / "integrations.yaml").write_text(yaml.safe_dump(written))
    status, shown = plan_exit(exported, sandbox, case.variables)
    assert status == 2, shown
    assert "~ integration.slack" in shown and "integration.segment" not in shown, shown
