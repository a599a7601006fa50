"""End to end: custom hostnames (``customHostnames:``), connected by the service's app (the
sandbox's seed), exported, planned, removed by hand and drifted, adopted and pruned; the plan
refuses what only the app can do; and the sandbox's hostname routes, a hostname serving one
target at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from docform.api.errors import ApiError
from docform_sandbox.routes.custom_hostnames import connect
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    denied_by_policy,
    in_ui,
    live_api,
    open_store,
    plan_json,
    run,
    seeded_sandbox,
    write_manifests,
)

SEED = """\
organizations:
  - id: org_acme
    title: Acme
    emailDomains: [acme.test]
    customHostname: www.acme.test
    members:
      - {id: u_alice, email: alice@acme.test, displayName: Alice Admin, role: admin}
    sites:
      - {id: site_docs, title: Acme Docs, hostname: docs.acme.test}
      - {id: site_help, title: Acme Help}
"""
HOSTNAMES = """\
    organization: {id: org_acme, title: Acme}
    members: {alice@acme.test: admin}
    sites:
      docs: {id: site_docs, title: Acme Docs}
      help: {id: site_help, title: Acme Help}
    customHostnames:
      # Where the docs are read.
      docs.acme.test: {site: docs}
      www.acme.test: {}
"""
DOCS = "/custom-hostnames/docs.acme.test"


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    seed = tmp_path / "seed.yaml"
    seed.write_text(SEED)
    return seeded_sandbox(tmp_path, seed)


def test_connected_hostnames_export_and_plan_empty(sandbox: Path, tmp_path: Path) -> None:
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    hostnames = yaml.safe_load((exported / "hostnames.yaml").read_text())["customHostnames"]
    assert hostnames == {"docs.acme.test": {"site": "acme-docs"}, "www.acme.test": {}}
    assert_converged(exported, sandbox)


def test_a_hand_removal_drifts_with_who_and_adopt_writes_it_keeping_comments(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, HOSTNAMES)
    apply(manifests, sandbox)
    in_ui(sandbox, "alice@acme.test", "DELETE", DOCS)
    drift = run(["drift", manifests, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    (drifted,) = json.loads(drift.stdout)["organizations"][0]["changes"]
    assert (drifted["address"], [f["path"] for f in drifted["fields"]]) == (
        "customHostname.docs.acme.test",
        ["active"],
    )
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"

    adopted = run(["adopt", manifests], sandbox)
    assert adopted.exit_code == 0, adopted.output
    text = (manifests / "main.yaml").read_text()
    assert "# Where the docs are read." in text and "active: false" in text
    assert_converged(manifests, sandbox)


def test_a_one_field_edit_plans_one_change_the_rail_refuses_at_its_line(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests, HOSTNAMES.replace("www.acme.test: {}", "www.acme.test: {site: help}")
    )
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 1, result.output
    plan = json.loads(result.stdout)
    assert actions(plan) == [("customHostname.www.acme.test", "update")]
    (moved,) = plan["changes"]
    assert [(f["path"], f["before"], f["after"]) for f in moved["fields"]] == [
        ("target", "organization", {"$ref": "site.help"})
    ]
    shown = run(["plan", manifests], sandbox).output
    assert "main.yaml:9:" in shown
    assert "it serves another target; it should serve its site" in shown
    assert "connect it in the service's app" in shown


def test_a_hostname_not_connected_is_refused(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, HOSTNAMES + "      help.acme.test: {site: help}\n")
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1
    assert "customHostname.help.acme.test: it is not connected" in result.output


def test_active_false_removes_a_hostname_and_stays_converged(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, HOSTNAMES.replace("{site: docs}", "{site: docs, active: false}"))
    plan = plan_json(manifests, sandbox)
    assert [calls(c) for c in plan["changes"]] == [[("DELETE", DOCS, None)]]
    apply(manifests, sandbox)
    assert "hostname" not in live_api(sandbox, "GET", "/orgs/org_acme/sites/site_docs")
    assert live_api(sandbox, "GET", DOCS)["isActive"] is False
    assert_converged(manifests, sandbox)


def test_an_unlisted_hostname_is_listed_then_removed_only_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    bare = HOSTNAMES.split("      docs.acme.test")[0]
    write_manifests(manifests, bare)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert "docs.acme.test" in [u["id"] for u in plan["unmanaged"]]
    write_manifests(manifests, bare + "      www.acme.test: {}\n")
    write_manifests(manifests, "docform: {prune: {customHostnames: true}}\n", "settings.yaml")
    plan = plan_json(manifests, sandbox)
    (gone,) = plan["changes"]
    assert (gone["action"], calls(gone)) == ("delete", [("DELETE", DOCS, None)])
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


KEEP_HOSTNAMES = """\
    policies:
      keep-hostnames:
        description: Hostnames are removed by the web team only.
        each: change
        rule: "!(change.kind == 'custom_hostname' && change.after.active == false)"
        message: "change.human_key + ' would stop serving its site'"
"""


def test_a_policy_sees_a_hostname_removal(sandbox: Path, manifests: Path) -> None:
    removing = HOSTNAMES.replace("{site: docs}", "{site: docs, active: false}")
    write_manifests(manifests, removing + KEEP_HOSTNAMES)
    assert denied_by_policy(manifests, sandbox)[:2] == (
        "keep-hostnames",
        "customHostname.docs.acme.test",
    )


@pytest.mark.parametrize("written", ["www_acme", "acme.test", "Docs.Acme.test"])
def test_a_hostname_that_is_no_sites_dns_name_is_refused_at_its_line(
    sandbox: Path, manifests: Path, written: str
) -> None:
    write_manifests(manifests, HOSTNAMES.replace("www.acme.test", written))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert f"main.yaml:9:3: customHostnames.{written}: " in result.output, result.output


def test_the_sandbox_serves_a_hostname_on_one_target_at_a_time(sandbox: Path) -> None:
    with open_store(sandbox) as store:
        connect(store, "org_acme", "docs.acme.test", "site_help")
        connect(store, "org_acme", "help.acme.test", "site_help")
    sites = {
        s["id"]: s.get("hostname")
        for s in live_api(sandbox, "GET", "/orgs/org_acme/sites")["items"]
    }
    assert sites == {"site_docs": None, "site_help": "help.acme.test"}
    docs = live_api(sandbox, "GET", DOCS)
    assert (docs["target"], docs["isActive"]) == ({"type": "site", "site": "site_help"}, False)


def test_the_sandbox_revalidates_only_what_a_revalidation_can_change(sandbox: Path) -> None:
    with pytest.raises(ApiError) as live:
        live_api(sandbox, "PATCH", DOCS)
    assert live.value.status == 409
    with open_store(sandbox) as store:
        doc = store.get("custom-hostname", "docs.acme.test")
        assert doc is not None
        store.update("custom-hostname", {**doc, "status": "dns_no_cname"})
    live_api(sandbox, "PATCH", DOCS)
    assert live_api(sandbox, "GET", DOCS)["status"] == "live"
    live_api(sandbox, "DELETE", DOCS)
    with pytest.raises(ApiError) as inactive:
        live_api(sandbox, "PATCH", DOCS)
    assert inactive.value.status == 409
    with pytest.raises(ApiError) as unknown:
        live_api(sandbox, "GET", "/custom-hostnames/nowhere.acme.test")
    assert unknown.value.status == 404
