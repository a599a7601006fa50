"""``docform plan`` and ``docform apply`` as a user runs them: outputs, saved plans, exit codes,
narrowing, read failures and apply failures, against an in-process (or served) sandbox."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from docform.cli import cli
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import (
    actions,
    apply,
    assert_converged,
    live_api,
    plan_json,
    run,
    served_app,
    write_manifests,
)

ORG = "org_acme"
PLAN_KEYS = [
    "format_version",
    "organization",
    "changes",
    "unmanaged",
    "summary",
    "ignored",
    "notes",
    "rails",
    "policies",
    "targeting",
    "warnings",
    "audience",
    "not_planned",
    "commit",
    "rehearsal",
    "fingerprints",
    "checksum",
]
CHANGE_KEYS = [
    "address",
    "previous_address",
    "human_key",
    "kind",
    "action",
    "action_reason",
    "id",
    "before",
    "after",
    "fields",
    "calls",
    "depends_on",
    "replacement",
    "takes",
    "loses",
]
CHECKSUM_LINE = re.compile(r"^Checksum: ([0-9a-f]{64})$", re.MULTILINE)
ANSI = "\x1b["
TEAMS_READ_FAILED = (
    "Error: reading the live teams failed, so no plan was made: GET /orgs/org_acme/teams "
    "failed after 6 attempts: 500 Internal server error (fault injected by the sandbox). "
    "The service failed; try again later.\n"
)


def addresses(plan: dict[str, Any]) -> set[str]:
    return {c["address"] for c in plan["changes"]}


def titles(sandbox: Path, path: str) -> list[str]:
    return sorted(item["title"] for item in live_api(sandbox, "GET", path)["items"])


# -- a read that fails -------------------------------------------------------------------------


@pytest.mark.usefixtures("instant_backoff")
def test_a_failed_read_aborts_the_plan_naming_the_call(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@GET:/orgs/*/teams")
    result = run(["plan", basic], sandbox)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == TEAMS_READ_FAILED


@pytest.mark.usefixtures("instant_backoff")
def test_a_failed_read_prints_no_json_plan_and_exits_1_with_detailed_exitcode(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@GET:/orgs/*/teams")
    result = run(["plan", basic, "--json", "--detailed-exitcode"], sandbox)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == TEAMS_READ_FAILED


@pytest.mark.usefixtures("instant_backoff")
def test_a_failed_read_of_one_team_never_plans_to_create_it(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apply(basic, sandbox)
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@GET:/orgs/*/teams/*/members")
    result = run(["plan", basic], sandbox)
    assert result.exit_code == 1
    assert "create" not in result.output
    assert result.stderr.startswith("Error: reading the live teams failed, so no plan was made")


@pytest.mark.usefixtures("instant_backoff")
@pytest.mark.parametrize("fault", ["503", "drop"])
def test_a_read_retried_after_a_passing_fault_gives_the_same_plan(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    expected = plan_json(basic, sandbox)
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", f"{fault}:1@GET:/orgs/*/teams#1")
    assert plan_json(basic, sandbox) == expected


# -- --json, --markdown, text ------------------------------------------------------------------


def test_json_plan_has_exactly_the_documented_keys(sandbox: Path, basic: Path) -> None:
    plan = plan_json(basic, sandbox)
    # The basic manifests send a secret: its keyed fingerprint follows the changes.
    assert list(plan) == [*PLAN_KEYS[:3], "secret_fingerprints", *PLAN_KEYS[3:]]
    assert plan["format_version"] == "1.4"
    assert plan["changes"]
    for change in plan["changes"]:
        assert list(change) == CHANGE_KEYS, change["address"]


def with_pruned_team(sandbox: Path, manifests: Path) -> Path:
    """A live team no manifest names, and manifests that prune teams: the plan deletes it."""
    live_api(sandbox, "PUT", f"/orgs/{ORG}/teams", {"title": "Legacy"})
    return write_manifests(manifests, "docform: {prune: {teams: true}}\n", "settings.yaml")


def test_markdown_puts_the_summary_first_then_deletions_then_details(
    sandbox: Path, basic: Path
) -> None:
    result = run(["plan", with_pruned_team(sandbox, basic), "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    text = result.stdout
    summary = text.index("**Plan: 13 to create, 1 to update, 1 to delete, 0 to move.**")
    deletion = text.index(":wastebasket: **delete** `team.~")
    table = text.index("| `+` | `member.dave@acme.test` | create |")
    details = text.index("<details><summary>Details: fields and API calls</summary>")
    assert summary < deletion < table < details
    assert "</details>" in text[details:]


def test_text_plan_has_no_colour_codes_when_not_a_terminal(sandbox: Path, basic: Path) -> None:
    env = {"DOCFORM_API_URL": f"sandbox:{sandbox}", "DOCFORM_API_TOKEN": None, "NO_COLOR": None}
    result = CliRunner().invoke(cli, ["plan", str(basic)], env=env)
    assert result.exit_code == 0, result.output
    assert "+ team.platform (Platform)  (create)" in result.stdout
    assert ANSI not in result.output


def test_the_text_checksum_is_the_json_checksum(sandbox: Path, basic: Path) -> None:
    text = run(["plan", basic], sandbox)
    printed = CHECKSUM_LINE.search(text.stdout)
    assert printed, text.stdout
    assert printed.group(1) == plan_json(basic, sandbox)["checksum"]


def test_two_plans_of_the_same_state_have_the_same_checksum(sandbox: Path, basic: Path) -> None:
    assert plan_json(basic, sandbox)["checksum"] == plan_json(basic, sandbox)["checksum"]


def test_the_checksum_changes_with_the_live_state(sandbox: Path, basic: Path) -> None:
    before = plan_json(basic, sandbox)["checksum"]
    live_api(sandbox, "PATCH", f"/orgs/{ORG}", {"title": "Acme Inc"})
    assert plan_json(basic, sandbox)["checksum"] != before


# -- --out and apply FILE ----------------------------------------------------------------------


def save(manifests: Path, sandbox: Path, out: Path) -> Result:
    result = run(["plan", manifests, "--out", out], sandbox)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def out(sandbox: Path, basic: Path, tmp_path: Path) -> Path:
    """The plan of ``basic``, saved with ``plan --out``."""
    path = tmp_path / "plan.json"
    save(basic, sandbox, path)
    return path


def test_a_saved_plan_is_the_plan_json_plus_its_manifests_and_secrets(
    sandbox: Path, basic: Path, tmp_path: Path
) -> None:
    out = tmp_path / "plan.json"
    result = save(basic, sandbox, out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved.pop("manifest_directory") == "manifests"
    assert saved.pop("manifest_directory_base") == "plan file"  # tmp_path is in no repository
    assert list(saved.pop("secrets")["fingerprints"]) == ["saml.okta.certificate"]
    assert len(saved.pop("shown_checksum")) == 64
    assert saved == plan_json(basic, sandbox)
    assert f"Saved the plan to {out}; apply it with 'docform apply {out}'." in result.stderr


def test_a_saved_plan_names_its_manifests_relative_to_itself(
    sandbox: Path, basic: Path, tmp_path: Path
) -> None:
    out = tmp_path / "plans" / "today" / "docform.plan"
    save(basic, sandbox, out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["manifest_directory"] == "../../manifests"


def test_a_saved_plan_applies_after_its_directory_moved(
    sandbox: Path, basic: Path, tmp_path: Path
) -> None:
    save(basic, sandbox, tmp_path / "docform.plan")
    moved = tmp_path.parent / f"{tmp_path.name}-moved"
    shutil.copytree(tmp_path, moved)
    shutil.rmtree(basic)
    result = run(["apply", moved / "docform.plan"], sandbox)
    assert result.exit_code == 0, result.output
    assert "Apply complete: 14 changes made." in result.stdout
    assert_converged(moved / "manifests", sandbox)


def test_applying_a_saved_plan_makes_its_changes(sandbox: Path, basic: Path, out: Path) -> None:
    result = run(["apply", out], sandbox)
    assert result.exit_code == 0, result.output
    assert "Apply complete: 14 changes made." in result.stdout
    assert_converged(basic, sandbox)


def test_a_saved_plan_is_refused_when_an_object_it_changes_changed_since(
    sandbox: Path, out: Path
) -> None:
    live_api(sandbox, "PATCH", f"/orgs/{ORG}", {"title": "Acme Inc"})
    result = run(["apply", out], sandbox)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out} is not the plan the manifests make now, so nothing was applied: live "
        "objects changed since it was planned: organization (organization org_acme); planned "
        "differently now: organization (update): before, fields. Make a new plan of "
        f"{out.parent / 'manifests'} with 'docform plan --out' and review it\n"
    )
    assert titles(sandbox, f"/orgs/{ORG}/collections") == []


def test_a_saved_plan_edited_by_hand_is_refused(sandbox: Path, out: Path) -> None:
    saved = json.loads(out.read_text(encoding="utf-8"))
    organization = next(c for c in saved["changes"] if c["address"] == "organization")
    organization["calls"][0]["body"]["title"] = "Evil Corp"
    out.write_text(json.dumps(saved), encoding="utf-8")
    result = run(["apply", out], sandbox)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out}: the plan was edited after it was saved (its checksum does not match); "
        "make a new one with 'docform plan --out'\n"
    )
    assert live_api(sandbox, "GET", f"/orgs/{ORG}")["title"] == "Acme"


def test_a_saved_plan_is_refused_when_another_client_created_what_it_creates(
    sandbox: Path, out: Path
) -> None:
    live_api(sandbox, "PUT", f"/orgs/{ORG}/teams", {"title": "Platform"})
    result = run(["apply", out], sandbox)
    assert result.exit_code == 1
    assert "in the saved plan but no longer planned: team.platform (create)" in result.stderr
    assert titles(sandbox, f"/orgs/{ORG}/teams") == ["Platform"]


# -- exit codes --------------------------------------------------------------------------------


def test_detailed_exitcode_is_2_when_there_are_changes(sandbox: Path, basic: Path) -> None:
    assert run(["plan", basic, "--detailed-exitcode"], sandbox).exit_code == 2


def test_detailed_exitcode_is_0_when_there_are_none(sandbox: Path, basic: Path) -> None:
    apply(basic, sandbox)
    result = run(["plan", basic, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output


def test_without_detailed_exitcode_changes_exit_0(sandbox: Path, basic: Path) -> None:
    assert run(["plan", basic], sandbox).exit_code == 0


def test_an_unknown_option_exits_1_never_2(sandbox: Path, basic: Path) -> None:
    result = run(["plan", basic, "--detailed-exitcode", "--colour"], sandbox)
    assert result.exit_code == 1
    assert "Error: No such option '--colour'." in result.stderr


def test_json_and_markdown_together_exit_1(sandbox: Path, basic: Path) -> None:
    result = run(["plan", basic, "--json", "--markdown", "--detailed-exitcode"], sandbox)
    assert result.exit_code == 1
    assert "Error: choose one of --json and --markdown" in result.stderr
    assert result.stdout == ""


# -- --target and --exclude --------------------------------------------------------------------


def test_target_keeps_the_change_and_what_it_needs(sandbox: Path, basic: Path) -> None:
    result = run(["plan", basic, "--json", "--target", "space.oncall"], sandbox)
    assert result.exit_code == 0, result.output
    narrowed = json.loads(result.stdout)
    assert actions(narrowed) == [
        ("collection.engineering", "create"),
        ("collection.runbooks", "create"),
        ("space.oncall", "create"),
    ]


def test_exclude_drops_the_change_and_what_depends_on_it(sandbox: Path, basic: Path) -> None:
    full = plan_json(basic, sandbox)
    result = run(["plan", basic, "--json", "--exclude", "collection.runbooks"], sandbox)
    assert result.exit_code == 0, result.output
    assert addresses(full) - addresses(json.loads(result.stdout)) == {
        "collection.runbooks",
        "space.oncall",
        "site.docs.section.ops",
        "site.docs.section.ops.space.oncall",
    }


# -- planning cannot write ---------------------------------------------------------------------

SERVE_TOKEN = "tok_plan_cli_served_0123456789"


def test_planning_sends_nothing_but_gets(sandbox: Path, basic: Path) -> None:
    apply(basic, sandbox)
    live_api(sandbox, "PUT", f"/orgs/{ORG}/teams", {"title": "Legacy"})
    write_manifests(basic, "docform: {prune: {teams: true}}\n", "settings.yaml")
    main = basic / "main.yaml"
    text = main.read_text(encoding="utf-8").replace(
        "collection: runbooks", "collection: engineering"
    )
    main.write_text(text.replace("title: Acme Corp", "title: Acme Plc"), encoding="utf-8")
    store = Store(sandbox)
    app = create_app(store, SandboxConfig(admin_tokens=(SERVE_TOKEN,)))
    try:
        with served_app(app) as root:
            env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": SERVE_TOKEN, "NO_COLOR": "1"}
            result = CliRunner().invoke(cli, ["plan", str(basic), "--json"], env=env)
    finally:
        store.close()
    assert result.exit_code == 0, result.output
    planned = {
        c["method"] for change in json.loads(result.stdout)["changes"] for c in change["calls"]
    }
    assert {"PATCH", "DELETE", "POST"} <= planned
    assert list(app.state.sandbox.stats.as_json()["byMethod"]) == ["GET"]


# -- apply: a failure in the middle ------------------------------------------------------------


def test_apply_failing_in_the_middle_reports_what_was_done_and_what_was_not(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A create answered 5xx may have been made: it is looked for, then sent once more.
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@POST:/orgs/*/spaces#1-")
    result = run(["apply", basic, "--yes", "--parallelism", "1"], sandbox)
    assert result.exit_code == 1
    report = result.stderr
    assert re.search(r"^Apply stopped: \d+ done, 1 failed, \d+ not attempted\.$", report, re.M)
    assert (
        "  failed: space.handbook#create: POST /orgs/org_acme/spaces failed: 500 Internal server "
        "error (fault injected by the sandbox)."
    ) in report
    assert "  not attempted: space.oncall#create" in report
    assert report.endswith("Run 'docform plan' to see what remains; apply again to finish.\n")
    assert titles(sandbox, f"/orgs/{ORG}/spaces") == []


def test_apply_again_after_a_failure_finishes_without_duplicates(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every space creation fails, resent or not.
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "500:1@POST:/orgs/*/spaces#1-")
    assert run(["apply", basic, "--yes"], sandbox).exit_code == 1
    monkeypatch.delenv("DOCFORM_SANDBOX_FAULTS")
    apply(basic, sandbox)
    assert titles(sandbox, f"/orgs/{ORG}/spaces") == ["Handbook", "On-call"]
    assert titles(sandbox, f"/orgs/{ORG}/collections") == ["Engineering", "Runbooks"]
    assert titles(sandbox, f"/orgs/{ORG}/teams") == ["Platform"]
    assert_converged(basic, sandbox)


def test_apply_finds_a_section_whose_create_answer_was_lost(
    sandbox: Path, basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCFORM_SANDBOX_FAULTS", "lost:1@POST:/orgs/*/sites/*/sections#1")
    apply(basic, sandbox)
    monkeypatch.delenv("DOCFORM_SANDBOX_FAULTS")
    sections = titles(sandbox, f"/orgs/{ORG}/sites/site_docs/sections")
    assert sections == ["Getting started", "Operations"]
