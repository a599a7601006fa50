"""A saved plan is a receipt, never a script (`docform.workflow.saved`, `workflow/receipt.py`):
``apply PLANFILE`` plans the manifests afresh and applies the fresh plan only when it is exactly
the one saved (its checksum over the changes and their calls, the live objects it changes, and
the secrets it sends, compared by keyed fingerprints); any difference is refused, named.

Run end to end on the example repository (examples/acme) against its sandbox."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_examples_ci_tools import example_as_repository

from conftest import fuzz_examples
from docform.engine.fingerprints import canonical_json
from docform.workflow.saved import shown_checksum
from planning import copy_sandbox, live_api, run, seeded_sandbox

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
ORG = "org_acme"
CONTRACTOR = "/orgs/org_acme/members/u_contractor"


@pytest.fixture(scope="module")
def planned_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the example as a Git repository of its own (one commit), its sandbox,
    and the plan of the one against the other saved as docform.plan (`plan --out`, made in the
    repository's root, then moved out of it): arranged once, copied by each test."""
    folder = tmp_path_factory.mktemp("planned")
    repository = example_as_repository(folder)
    sandbox = seeded_sandbox(folder, EXAMPLE / "sandbox-seed.yaml")
    result = run(["plan", repository / "manifests", "--out", repository / "docform.plan"], sandbox)
    assert result.exit_code == 0, result.output
    shutil.move(repository / "docform.plan", folder / "docform.plan")
    return folder


@pytest.fixture
def repo(tmp_path: Path, planned_once: Path) -> Path:
    """The example as a Git repository of its own, with one commit (a copy)."""
    return Path(shutil.copytree(planned_once / "acme", tmp_path / "acme", symlinks=True))


@pytest.fixture
def sandbox(tmp_path: Path, planned_once: Path) -> Path:
    """A sandbox seeded from the example's sandbox-seed.yaml (a copy)."""
    return copy_sandbox(planned_once / "sandbox.sqlite", tmp_path)


@pytest.fixture
def saved(repo: Path, sandbox: Path, planned_once: Path) -> Path:
    """The plan of ``repo`` against ``sandbox`` saved in the repository's root (a copy)."""
    return Path(shutil.copy(planned_once / "docform.plan", repo / "docform.plan"))


def rewrite(path: Path, edit: Any) -> None:
    """Edit a saved plan as someone with write access to it would, its checksum recomputed
    the way docform computes it (anyone can: it is a hash of the file's own content)."""
    import hashlib

    doc = json.loads(path.read_text(encoding="utf-8"))
    edit(doc)
    body = {k: doc[k] for k in ("format_version", "organization", "changes")}
    for optional in ("allowed", "secret_fingerprints"):
        if optional in doc:
            body[optional] = doc[optional]
    doc["checksum"] = hashlib.sha256(canonical_json(body).encode()).hexdigest()
    doc["shown_checksum"] = shown_checksum(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def role_of(sandbox: Path, user: str) -> Any:
    return live_api(sandbox, "GET", f"/orgs/{ORG}/members/{user}")["role"]


def make_contractor_admin(doc: dict[str, Any]) -> None:
    doc["changes"].append(
        {
            "address": "member.helpful-cleanup",
            "previous_address": None,
            "human_key": None,
            "kind": "member",
            "action": "update",
            "action_reason": "update",
            "id": None,
            "before": None,
            "after": None,
            "fields": [],
            "calls": [{"method": "PATCH", "path": CONTRACTOR, "body": {"role": "admin"}}],
            "depends_on": [],
            "replacement": None,
        }
    )


def test_a_change_injected_into_a_saved_plan_is_refused_and_named(saved, sandbox):
    rewrite(saved, make_contractor_admin)
    result = run(["apply", saved], sandbox)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {saved} is not the plan the manifests make now, ")
    assert (
        "in the saved plan but no longer planned: member.helpful-cleanup (update). Make a new "
        f"plan of {saved.parent / 'manifests'} with 'docform plan --out' and review it\n"
    ) in result.stderr
    assert role_of(sandbox, "u_contractor") is None
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/teams")["items"] == []


def test_a_call_rewritten_in_a_saved_plan_is_refused_and_named(saved, sandbox):
    def promote(doc: dict[str, Any]) -> None:
        change = next(c for c in doc["changes"] if c["calls"][0]["method"] == "PATCH")
        change["calls"][0]["body"] = {"role": "admin"}

    rewrite(saved, promote)
    result = run(["apply", saved], sandbox)
    assert result.exit_code == 1
    assert (
        "so nothing was applied: planned differently now: member.priya.patel@acme.test "
        "(update): calls. Make a new plan"
    ) in result.stderr
    assert role_of(sandbox, "u_priya") == "edit"


@settings(max_examples=fuzz_examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_edit_of_a_saved_plans_changes_is_ever_applied(tmp_path_factory, data):
    """Whatever is changed in the changes of a saved plan (a field of a call, a change
    dropped, one duplicated), checksum recomputed or not, apply refuses and changes nothing."""
    tmp = tmp_path_factory.mktemp("edit")
    checkout = tmp / "acme"
    shutil.copytree(EXAMPLE, checkout)
    sandbox = seeded_sandbox(tmp, EXAMPLE / "sandbox-seed.yaml")
    path = tmp / "docform.plan"
    assert run(["plan", checkout / "manifests", "--out", path], sandbox).exit_code == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    index = data.draw(st.integers(0, len(doc["changes"]) - 1))
    edit = data.draw(st.sampled_from(["drop", "duplicate", "method", "path", "body", "address"]))

    def apply_edit(doc: dict[str, Any]) -> None:
        change = doc["changes"][index]
        if edit == "drop":
            del doc["changes"][index]
        elif edit == "duplicate":
            doc["changes"].insert(index, json.loads(json.dumps(change)))
        elif edit == "address":
            change["address"] += "-x"
        else:
            call = change["calls"][0]
            call[edit] = {"method": "DELETE", "path": CONTRACTOR, "body": {"x": 1}}[edit]

    rewrite(path, apply_edit)
    before = live_api(sandbox, "GET", f"/orgs/{ORG}/members?limit=100")
    result = run(["apply", path], sandbox)
    assert result.exit_code == 1, result.output
    assert "is not the plan the manifests make now" in result.stderr
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/members?limit=100") == before


def test_a_certificate_replaced_after_the_plan_is_refused(saved, repo, sandbox):
    shutil.copy(ROOT / "examples" / "quickstart" / "certs" / "okta.pem", repo / "manifests/certs")
    result = run(["apply", saved], sandbox)
    assert result.exit_code == 1
    assert (
        "the secret saml.okta.certificate is not the one planned (its source now holds "
        "another value)"
    ) in result.stderr
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/saml")["items"] == []


@pytest.mark.parametrize("how", ["file", "environment"])
def test_a_secret_replaced_after_the_review_changes_the_checksum_apply_checks(
    repo, sandbox, how, monkeypatch
):
    """The path CI takes, `apply DIR --checksum SHA` with no saved plan: the checksum covers a
    keyed fingerprint of each secret the plan sends, so a secret swapped after the review (a
    file replaced, or the variable it is read from set to another value) is refused."""
    manifests = repo / "manifests"
    if how == "environment":
        monkeypatch.setenv("OKTA_CERTIFICATE", (manifests / "certs" / "okta.pem").read_text())
        saml = manifests / "integrations.yaml"
        text = saml.read_text(encoding="utf-8")
        assert "certificate: {file: certs/okta.pem}" in text
        saml.write_text(text.replace("{file: certs/okta.pem}", "${env:OKTA_CERTIFICATE}"))
    reviewed = run(["plan", manifests, "--json"], sandbox)
    assert reviewed.exit_code == 0, reviewed.output
    checksum = json.loads(reviewed.stdout)["checksum"]
    pem = (manifests / "certs" / "okta.pem").read_text().splitlines()[1]
    assert pem[:30] not in reviewed.stdout
    other = (ROOT / "examples" / "quickstart" / "certs" / "okta.pem").read_text()
    if how == "environment":
        monkeypatch.setenv("OKTA_CERTIFICATE", other)
    else:
        (manifests / "certs" / "okta.pem").write_text(other)
    result = run(["apply", manifests, "--checksum", checksum], sandbox)
    assert result.exit_code == 1, result.output
    assert f"not the approved {checksum}" in result.stderr
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/saml")["items"] == []
    assert other.splitlines()[1][:30] not in result.output


def test_the_checksum_of_a_plan_is_the_same_while_its_secrets_are(repo, sandbox):
    planned = [run(["plan", repo / "manifests", "--json"], sandbox) for _ in range(2)]
    first, second = (json.loads(p.stdout) for p in planned)
    assert first["checksum"] == second["checksum"]
    assert list(first["secret_fingerprints"]) == ["saml.okta.certificate"]


def test_a_saved_plan_holds_keyed_fingerprints_of_its_secrets_never_the_values(saved, repo):
    text = saved.read_text(encoding="utf-8")
    pem = (repo / "manifests" / "certs" / "okta.pem").read_text(encoding="utf-8")
    body = "".join(line for line in pem.splitlines() if "-----" not in line)
    assert body[:40] not in text
    doc = json.loads(text)
    assert list(doc["secrets"]["fingerprints"]) == ["saml.okta.certificate"]
    assert len(doc["secrets"]["key"]) == 32


def test_two_saved_plans_of_one_secret_fingerprint_it_differently(saved, repo, sandbox):
    again = repo / "again.plan"
    assert run(["plan", repo / "manifests", "--out", again], sandbox).exit_code == 0
    first, second = (json.loads(p.read_text(encoding="utf-8"))["secrets"] for p in (saved, again))
    assert first["fingerprints"] != second["fingerprints"]


def test_the_saved_plan_applies_as_planned(saved, sandbox):
    result = run(["apply", saved], sandbox)
    assert result.exit_code == 0, result.output
    assert role_of(sandbox, "u_contractor") is None


def test_a_saved_plan_names_its_manifests_relative_to_the_repository_root(saved):
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert (doc["manifest_directory"], doc["manifest_directory_base"]) == (
        "manifests",
        "repository",
    )


def test_a_saved_plan_copied_alone_applies_from_the_repository(saved, repo, sandbox, tmp_path):
    elsewhere = tmp_path / "downloads" / "docform.plan"
    elsewhere.parent.mkdir()
    shutil.copy(saved, elsewhere)
    result = run(["apply", elsewhere, "--manifests", repo / "manifests"], sandbox)
    assert result.exit_code == 0, result.output


def test_a_saved_plan_copied_alone_says_where_to_give_the_manifests(saved, sandbox, tmp_path):
    elsewhere = tmp_path / "downloads" / "docform.plan"
    elsewhere.parent.mkdir()
    shutil.copy(saved, elsewhere)
    result = run(["apply", elsewhere], sandbox)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {elsewhere} was planned from the manifests at 'manifests' of its repository, "
        f"and {elsewhere.parent} is in no repository holding them: give the manifest "
        "directory with 'docform apply PLANFILE --manifests DIR'\n"
    )


def test_the_markdown_plan_names_its_checksum_and_the_commit_it_planned(repo, sandbox):
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    result = run(["plan", repo / "manifests", "--markdown"], sandbox)
    checksum = json.loads(run(["plan", repo / "manifests", "--json"], sandbox).stdout)
    assert f"checksum `{checksum['checksum']}`" in result.stdout
    assert f"commit `{head}`" in result.stdout
    assert checksum["commit"] == head


def test_a_checksum_given_with_a_saved_plan_must_be_its_own(saved, sandbox):
    result = run(["apply", saved, "--checksum", "0" * 64], sandbox)
    assert result.exit_code == 1
    assert f"not the approved {'0' * 64}" in result.stderr
    doc = json.loads(saved.read_text(encoding="utf-8"))
    result = run(["apply", saved, "--checksum", doc["checksum"]], sandbox)
    assert result.exit_code == 0, result.output


def test_an_allowance_added_to_a_saved_plan_is_refused_by_the_reviewed_checksum(saved, sandbox):
    """What --allow accepts is covered by the checksum: an allowance written into the file
    afterwards, its checksum recomputed, no longer has the checksum a reviewer approved."""
    reviewed = json.loads(saved.read_text(encoding="utf-8"))["checksum"]

    def allow_more(doc: dict[str, Any]) -> None:
        doc["rails"]["allowed"] = ["max-deletions:member.*"]
        doc["allowed"] = ["max-deletions:member.*"]

    rewrite(saved, allow_more)
    result = run(["apply", saved, "--checksum", reviewed], sandbox)
    assert result.exit_code == 1
    assert f"not the approved {reviewed}" in result.stderr
    assert live_api(sandbox, "GET", f"/orgs/{ORG}/teams")["items"] == []


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("notes", ["all reviewed\nPlan: 0 to create, 0 to update, 0 to delete."]),
        ("warnings", ["nothing to see"]),
        ("unmanaged", [{"kind": "team", "id": "tm_x", "title": "Ghost"}]),
        ("audience", []),
        ("rails", None),
        ("policies", None),
    ],
)
def test_what_a_saved_plan_shows_cannot_be_edited_without_its_receipt(saved, sandbox, key, value):
    """Only the changes are in the plan's checksum; what it shows besides them is covered by
    its second one: an edit of either (without recomputing them) is refused by show and apply."""
    doc = json.loads(saved.read_text(encoding="utf-8"))
    doc[key] = value
    saved.write_text(json.dumps(doc), encoding="utf-8")
    for command in (["show", saved], ["apply", saved, "--yes"]):
        result = run(command, sandbox)
        assert result.exit_code == 1, result.output
        assert "was edited after it was saved (what it shows does not match)" in result.stderr
        assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "edit",
    [
        lambda doc: doc.update(unmanaged=[{"kind": "team"}]),
        lambda doc: doc.update(audience=[7]),
        lambda doc: doc.update(rails={"violations": "x"}),
    ],
    ids=["key-missing", "wrong-type", "rails-shape"],
)
def test_a_malformed_saved_plan_is_refused_cleanly(saved, sandbox, edit):
    """Edited with both checksums recomputed, as anyone with the file could: a shape docform
    cannot read is a clean error, never a KeyError, TypeError or RecursionError."""
    rewrite(saved, edit)
    result = run(["show", saved], sandbox)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith(f"Error: {saved}: ")


def test_a_saved_plan_nested_too_deeply_is_refused_cleanly(saved, sandbox):
    text = saved.read_text(encoding="utf-8")
    saved.write_text(text.replace('"notes": [', '"notes": [' + "[" * 100_000, 1), encoding="utf-8")
    result = run(["show", saved], sandbox)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "not a saved plan" in result.stderr


def test_a_pin_between_plan_and_apply_leaves_a_genuine_saved_plan_applicable(repo, sandbox):
    """Saved while its objects were matched by natural key, then `docform pin` wrote them to
    docform.lock: the fresh plan finds them by the lock, does the same, and applies."""
    manifests = repo / "manifests"
    (manifests / "docform.lock").unlink(missing_ok=True)
    path = repo / "docform.plan"
    assert run(["plan", manifests, "--out", path], sandbox).exit_code == 0
    reasons = [c["action_reason"] for c in json.loads(path.read_text())["changes"]]
    assert any("matched by its natural key" in r for r in reasons), reasons
    assert run(["pin", manifests], sandbox).exit_code == 0
    assert (manifests / "docform.lock").exists()

    result = run(["apply", path], sandbox)

    assert result.exit_code == 0, result.output
    assert role_of(sandbox, "u_contractor") is None
