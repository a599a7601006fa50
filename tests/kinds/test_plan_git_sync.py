"""End to end: Git Sync of spaces and sites (``gitSync:``).

Created (POST, then a PATCH with the setup), changed, removed under prune and exported; found
with no request beyond the space and site lists when nothing is synced, one per synced space;
an installation waiting for its provider's authorization, and a token the service refuses for
Git Sync, are not planned and the plan says why; giving Git the priority is a rail; a synced
site's structure managed too draws a warning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.api.errors import ApiStatusError
from planning import (
    SEED_FILE,
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    plan_request_count,
    replace_text,
    run,
    seeded_sandbox,
    write_manifests,
)

ORG = "org_acme"
SPACES = {"handbook": {"title": "Handbook"}}
GITLAB_TOKEN = "glpat-s3cr3t-9d81c0ffee"
INTEGRATION_TOKEN = "tok_integration_0123456789"


def handbook_sync(**fields: Any) -> dict[str, Any]:
    return {
        "space": "handbook",
        "provider": "github",
        "repository": 4242,
        "branch": "main",
        "priority": "service",
        **fields,
    }


def write(manifests: Path, syncs: dict[str, Any], **extra: Any) -> None:
    doc: dict[str, Any] = {"organization": {"id": ORG}, "spaces": SPACES, **extra}
    doc["gitSync"] = syncs
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


def live_sync(sandbox: Path) -> dict[str, Any]:
    (space,) = live_api(sandbox, "GET", f"/orgs/{ORG}/spaces")["items"]
    installation = space["gitSync"]["installationId"]
    return dict(live_api(sandbox, "GET", f"/git/installations/{installation}"))


def test_a_space_sync_is_created_and_set_up_then_converges(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook": handbook_sync(projectDirectory="docs")})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "create"), ("gitSync.handbook", "create")]
    target = {"type": "space", "spaceId": {"$placeholder": "space.handbook.id"}}
    assert calls(change(plan, "gitSync.handbook")) == [
        ("POST", "/git/installations", {"provider": "github", "target": target}),
        (
            "PATCH",
            "/git/installations/${gitSync.handbook.id}",
            {
                "provider": "github",
                "providerConfiguration": {"repositoryId": 4242, "branch": "refs/heads/main"},
                "projectDirectory": "docs",
                "priority": "gitbook",
            },
        ),
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    live = live_sync(sandbox)
    assert (live["status"], live["projectDirectory"]) == ("active", "docs")


@pytest.mark.parametrize(("manifest", "word"), [("service", "gitbook"), ("git", "git")])
def test_each_manifest_priority_is_sent_as_the_definitions_word(
    sandbox: Path, manifests: Path, manifest: str, word: str
) -> None:
    """The definition's ``GitSyncInstallationPriority`` is ``git`` or ``gitbook``; manifests
    write ``service`` for the service's side, which reads back as itself and converges."""
    write(manifests, {"handbook": handbook_sync(priority=manifest)})
    assert run(["apply", manifests, "--yes", "--force"], sandbox).exit_code == 0
    assert live_sync(sandbox)["priority"] == word
    assert_converged(manifests, sandbox)


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_the_sandbox_refuses_a_priority_outside_the_definition(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    installation = live_sync(sandbox)["id"]
    body = {"provider": "github", "providerConfiguration": {}, "priority": "service"}
    with pytest.raises(ApiStatusError) as refused:
        live_api(sandbox, "PATCH", f"/git/installations/{installation}", body)
    assert refused.value.status == 400 and "priority" in str(refused.value)
    assert live_sync(sandbox)["priority"] == "gitbook"


def test_a_changed_branch_is_patched_with_the_provider_setup(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    write(
        manifests,
        {"handbook": handbook_sync(branch="release", commitMessageTemplate="docs: {{ message }}")},
    )
    plan = plan_json(manifests, sandbox)
    updated = change(plan, "gitSync.handbook")
    ((method, _, body),) = calls(updated)
    assert method == "PATCH"
    assert body == {
        "provider": "github",
        "providerConfiguration": {"repositoryId": 4242, "branch": "refs/heads/release"},
        "commitMessageTemplate": "docs: {{ message }}",
    }
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_giving_git_the_priority_is_a_rail(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    write(manifests, {"handbook": handbook_sync(priority="git")})
    planned = run(["plan", manifests, "--json"], sandbox)
    assert planned.exit_code == 1
    (violation,) = json.loads(planned.stdout)["rails"]["violations"]
    assert violation["rail"] == "git-priority"
    assert "imports its branch over the content in the service" in violation["message"]
    refused = run(["apply", manifests, "--yes"], sandbox)
    assert refused.exit_code == 1 and "git-priority" in refused.output
    assert run(["apply", manifests, "--yes", "--force"], sandbox).exit_code == 0
    assert_converged(manifests, sandbox)
    assert live_sync(sandbox)["priority"] == "git"


def test_a_sync_is_removed_under_prune_and_unmanaged_before(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    write(manifests, {})
    plan = plan_json(manifests, sandbox)
    assert [u["kind"] for u in plan["unmanaged"]].count("git_sync") == 1
    write(manifests, {}, docform={"prune": {"gitSync": True}})
    plan = plan_json(manifests, sandbox)
    (removal,) = [c for c in plan["changes"] if c["kind"] == "git_sync"]
    assert removal["action"] == "delete"
    apply(manifests, sandbox)
    (space,) = live_api(sandbox, "GET", f"/orgs/{ORG}/spaces")["items"]
    assert "gitSync" not in space


def test_syncs_cost_one_request_each_and_none_when_there_are_none(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {})
    nothing_synced = plan_request_count(manifests, sandbox)
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    assert plan_request_count(manifests, sandbox) == nothing_synced + 1


def test_an_unauthenticated_sync_is_not_planned_and_the_plan_says_why(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    with open_store(sandbox) as store:
        (doc,) = store.all("git-installation")
        doc["status"] = "unauthenticated"
        store.update("git-installation", doc)
    write(manifests, {"handbook": handbook_sync(branch="release")})
    plan = plan_json(manifests, sandbox)
    assert [c for c in plan["changes"] if c["kind"] == "git_sync"] == []
    assert any(
        "gitSync.handbook: not planned: its installation is not authenticated with github" in n
        for n in plan["notes"]
    )


def test_a_token_refused_for_git_sync_plans_the_rest(tmp_path: Path, manifests: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        SEED_FILE.read_text() + f"  - {{token: {INTEGRATION_TOKEN}, kind: integration}}\n"
    )
    sandbox = seeded_sandbox(tmp_path, seed)
    write(manifests, {"handbook": handbook_sync()})
    apply(manifests, sandbox)
    write(
        manifests, {"handbook": handbook_sync(branch="release")}, teams={"docs": {"title": "Docs"}}
    )
    result = run(["plan", manifests, "--json"], sandbox, token=INTEGRATION_TOKEN)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert actions(plan) == [("team.docs", "create")]
    reasons = {item["kind"]: item["reason"] for item in plan["not_planned"]}
    assert reasons["git_sync"] == "Git Sync installations: read after site, not read"
    assert "accepts a user's token only" in reasons["site"]


def test_a_synced_sites_structure_managed_too_draws_a_warning(
    sandbox: Path, manifests: Path
) -> None:
    sites = {
        "docs": {
            "id": "site_docs",
            "title": "Acme Docs",
            "sections": {
                "start": {
                    "path": "start",
                    "title": "Start",
                    "spaces": {"main": {"space": "handbook", "path": "v1"}},
                }
            },
            "externalLinks": {"status": {"title": "Status", "url": "https://status.acme.test"}},
        }
    }
    sync = {"site": "docs", "provider": "github", "repository": 7, "branch": "main"}
    write(manifests, {"docs": sync}, sites=sites)
    plan = plan_json(manifests, sandbox)
    assert any(
        re.fullmatch(
            r"main\.yaml:\d+:\d+: site\.docs\.section\.start changes the structure of "
            r"site\.docs, which gitSync\.docs syncs \(main\.yaml:\d+:\d+\): the repository's "
            r"configuration file sets it too, and the next import from Git overwrites it",
            w,
        )
        for w in plan["warnings"]
    ), plan["warnings"]
    lines = (manifests / "main.yaml").read_text().splitlines()
    (start,) = [w for w in plan["warnings"] if "site.docs.section.start changes" in w]
    line = int(start.split(":")[1])
    assert lines[line - 1].strip() == "start:"
    (link,) = [c["address"] for c in plan["changes"] if c["kind"] == "external_link"][:1]
    assert any(f" {link} changes the structure of site.docs" in w for w in plan["warnings"])


def test_a_gitlab_access_token_never_shows(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITLAB_TOKEN", GITLAB_TOKEN)
    sync = handbook_sync(provider="gitlab", accessToken="${env:GITLAB_TOKEN}")
    write(manifests, {"handbook": sync})
    outputs = [
        run(["plan", manifests, *flags], sandbox) for flags in ([], ["--json"], ["--markdown"])
    ]
    outputs.append(run(["apply", manifests, "--yes", "-v"], sandbox))
    outputs.append(run(["plan", manifests, "-v"], sandbox))
    outputs.append(run(["export", ORG, tmp_path / "exported"], sandbox))
    for result in outputs:
        assert result.exit_code == 0, result.output
        assert GITLAB_TOKEN not in result.output + result.stderr
    written = [
        p.read_text()
        for p in [*(tmp_path / "exported").rglob("*.yaml"), *manifests.rglob("*")]
        if p.is_file()
    ]
    assert not [text for text in written if GITLAB_TOKEN in text]
    assert_converged(manifests, sandbox)
    synced = live_sync(sandbox)
    assert "accessToken" not in synced["providerConfiguration"]  # held, never answered
    with open_store(sandbox) as store:
        held = store.get("git-installation", synced["id"])
    assert held is not None and held["providerConfiguration"]["accessToken"] == GITLAB_TOKEN


def test_a_write_only_token_is_sent_again_only_when_its_source_changes(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service never answers the token: docform.lock records the variable it was sent
    from, a new value in the same variable plans nothing, another variable sends it, and so
    does deleting its line under ``secrets:``."""
    monkeypatch.setenv("GITLAB_TOKEN", GITLAB_TOKEN)
    write(
        manifests, {"handbook": handbook_sync(provider="gitlab", accessToken="${env:GITLAB_TOKEN}")}
    )
    apply(manifests, sandbox)
    lock = (manifests / "docform.lock").read_text()
    assert 'secrets:\n  gitSync.handbook:\n    accessToken: "${env:GITLAB_TOKEN}"\n' in lock
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-rotated-in-the-environment")
    assert_converged(manifests, sandbox)
    monkeypatch.setenv("GITLAB_ROTATED", "glpat-from-another-variable")
    write(
        manifests,
        {"handbook": handbook_sync(provider="gitlab", accessToken="${env:GITLAB_ROTATED}")},
    )
    plan = plan_json(manifests, sandbox)
    ((method, _, body),) = calls(change(plan, "gitSync.handbook", "update"))
    assert method == "PATCH"
    assert body["providerConfiguration"]["accessToken"] == {
        "$secret": "gitSync.handbook.accessToken"
    }
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert "${env:GITLAB_ROTATED}" in (manifests / "docform.lock").read_text()
    replace_text(manifests / "docform.lock", '    accessToken: "${env:GITLAB_ROTATED}"\n', "")
    assert actions(plan_json(manifests, sandbox)) == [("gitSync.handbook", "update")]


def test_a_new_rotate_marker_sends_the_token_again_from_the_same_source(
    sandbox: Path, manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITLAB_TOKEN", GITLAB_TOKEN)
    sync = handbook_sync(provider="gitlab", accessToken="${env:GITLAB_TOKEN}")
    write(manifests, {"handbook": sync})
    apply(manifests, sandbox)
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-rotated-behind-the-variable")
    write(manifests, {"handbook": {**sync, "rotate": "2026-11"}})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("gitSync.handbook", "update")]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    lock = (manifests / "docform.lock").read_text()
    assert 'accessToken: "${env:GITLAB_TOKEN} (rotate 2026-11)"' in lock
    synced = live_sync(sandbox)
    with open_store(sandbox) as store:
        held = store.get("git-installation", synced["id"])
    assert held is not None
    assert held["providerConfiguration"]["accessToken"] == "glpat-rotated-behind-the-variable"


def test_a_token_in_plain_text_is_refused_at_its_line(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook": handbook_sync(provider="gitlab", accessToken="glpat-PLAIN-0001")})
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "accessToken is a secret, written in plain text: write it as ${env:NAME}" in (
        result.output
    )
    assert "glpat-PLAIN-0001" not in result.output


def test_an_exported_sync_is_named_after_its_space(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write(manifests, {"mine": handbook_sync()})
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    assert run(["export", ORG, exported], sandbox).exit_code == 0
    syncs = yaml.safe_load((exported / "git-sync.yaml").read_text())["gitSync"]
    assert list(syncs) == ["handbook"]
    assert syncs["handbook"]["space"] == "handbook"
