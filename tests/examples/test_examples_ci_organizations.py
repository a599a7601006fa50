"""Many organizations in one repository: each folder holding an organization.yaml is planned,
applied and checked for drift by jobs of its own (GitHub's `strategy.matrix` from a listing
job, GitLab's `parallel:matrix` written out once), each with its own comment or note, status,
artifact and apply queue, and only when a change touches its folder or the CI files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_examples_ci_tools import EXAMPLE, bash_step, step

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.test"]
ORGANIZATIONS = ["manifests", "organizations/globex", "organizations/initech"]
PLAN_GROUP = (
    "docform-plan-${{ github.event.pull_request.number || github.ref }}-${{ matrix.manifests }}"
)
LISTINGS = [
    ("docform-plan.yml", "List the folders of manifests the change touches"),
    ("docform-apply.yml", "List the folders of manifests the merge touches"),
]


def commit(repository: Path, message: str) -> str:
    subprocess.run([*GIT, "add", "--all"], cwd=repository, check=True)
    subprocess.run([*GIT, "commit", "--quiet", "-m", message], cwd=repository, check=True)
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repository, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, str]:
    """The example with two more organizations, committed: the folder and the commit that
    main was at before the change under test."""
    folder = tmp_path / "acme"
    subprocess.run(["cp", "-r", str(EXAMPLE), str(folder)], check=True)
    subprocess.run([*GIT, "init", "--quiet"], cwd=folder, check=True)
    for name in ["globex", "initech"]:
        organization = folder / "organizations" / name
        organization.mkdir(parents=True)
        (organization / "organization.yaml").write_text(f"organization: {{id: org_{name}}}\n")
    return folder, commit(folder, "three organizations")


def listed(workflow: str, name: str, folder: Path, before: str, **env: str) -> Any:
    outputs = folder.parent / "github-output"
    outputs.write_text("")
    job = "organizations"
    more = {"GITHUB_OUTPUT": str(outputs), "EVENT": "push", "BEFORE": before, "CHOSEN": ""}
    done = bash_step(step(workflow, name, job)["run"], folder, more | env)
    if done.returncode != 0:
        return done.stdout
    return json.loads(outputs.read_text().removeprefix("folders="))


@pytest.mark.parametrize(("workflow", "name"), LISTINGS)
@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["organizations/globex/teams.yaml"], ["organizations/globex"]),
        (
            ["manifests/teams.yaml", "organizations/initech/x.yaml"],
            ["manifests", "organizations/initech"],
        ),
        (["README.md"], []),
        ([".github/workflows/docform-plan.yml"], ORGANIZATIONS),
    ],
    ids=["one", "two", "none", "workflows"],
)  # fmt: skip
def test_a_change_plans_and_applies_the_organizations_whose_folders_it_touches(
    repository, workflow, name, changed, expected
):
    folder, before = repository
    for path in changed:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(target.read_text() + "\n# changed\n" if target.exists() else "x\n")
    commit(folder, "the change")
    assert listed(workflow, name, folder, before) == expected


def test_a_manual_apply_names_its_organization(repository):
    folder, before = repository
    workflow, name = LISTINGS[1]
    chosen = listed(workflow, name, folder, before, EVENT="workflow_dispatch", CHOSEN="manifests")
    assert chosen == ["manifests"]
    refused = listed(workflow, name, folder, before, EVENT="workflow_dispatch", CHOSEN="nope")
    assert refused.startswith("::error::no folder 'nope' holding an organization.yaml on ")
    assert "manifests organizations/globex organizations/initech" in refused


def test_a_push_main_was_not_at_before_applies_every_organization(repository):
    folder, _ = repository
    workflow, name = LISTINGS[1]
    assert listed(workflow, name, folder, "0" * 40) == ORGANIZATIONS


@pytest.mark.parametrize(("workflow", "name"), LISTINGS)
def test_a_folder_name_that_could_rewrite_what_the_jobs_look_for_is_refused(
    repository, workflow, name
):
    folder, before = repository
    hostile = folder / 'evil" or true'
    hostile.mkdir()
    (hostile / "organization.yaml").write_text("organization: {id: org_evil}\n")
    commit(folder, "a hostile folder")
    refused = listed(workflow, name, folder, before)
    assert refused.startswith("::error::the folder 'evil\" or true' holds an organization.yaml")


@pytest.mark.parametrize(
    ("workflow", "job", "group"),
    [
        ("docform-plan.yml", "plan", PLAN_GROUP),
        ("docform-apply.yml", "apply", None),
        ("docform-drift.yml", "drift", "docform-drift-${{ matrix.manifests }}"),
    ],
)  # fmt: skip
def test_each_github_job_runs_per_organization(workflow, job, group):
    document = yaml.safe_load((EXAMPLE / ".github" / "workflows" / workflow).read_text())
    matrix_job = document["jobs"][job]
    assert matrix_job["needs"] == "organizations"
    assert matrix_job["strategy"]["matrix"] == {
        "manifests": "${{ fromJSON(needs.organizations.outputs.folders) }}"
    }
    assert matrix_job["env"]["MANIFESTS"] == "${{ matrix.manifests }}"
    if group is not None:
        assert matrix_job["concurrency"]["group"] == group
    # No step names the one folder of a single-organization repository.
    assert "manifests/" not in json.dumps(matrix_job["steps"]).replace("$MANIFESTS/", "")


def test_the_plan_names_its_status_and_artifact_after_its_organization(tmp_path):
    outputs = tmp_path / "github-output"
    names = step("docform-plan.yml", "Name this organization's status and artifact")["run"]
    done = bash_step(names, tmp_path, {"GITHUB_OUTPUT": str(outputs), "MANIFESTS": "orgs/globex"})
    assert done.returncode == 0, done.stderr
    assert (
        outputs.read_text()
        == "status=docform/plan/orgs/globex\nartifact=docform-plan-orgs_globex\n"
    )
    apply_step = step(
        "docform-apply.yml", "Find the checksum reviewed in the pull request", "apply"
    )
    assert 'context="docform/plan/$MANIFESTS"' in apply_step["run"]
    assert (
        "artifact_name=\"docform-plan-$(printf '%s' \"$MANIFESTS\" | tr '/' '_')\""
        in apply_step["run"]
    )


def test_gitlab_jobs_run_per_organization_from_one_list_of_every_folder():
    """GitLab's parallel:matrix is written out in the file, once: it must name every folder
    that holds an organization.yaml (and nothing else), and every job that runs docform on a
    folder runs once per organization, only when a change touches that folder."""
    gitlab = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    matrix = gitlab[".organizations"]["parallel"]["matrix"]
    listed = sorted(name for entry in matrix for name in entry["MANIFESTS"])
    folders = sorted(
        path.parent.relative_to(EXAMPLE).as_posix() for path in EXAMPLE.rglob("organization.yaml")
    )
    assert listed == folders
    per_organization = ["validate", "plan", "plan-outdated", "apply", "apply-approved", "drift"]
    for job in per_organization:
        assert gitlab[job]["extends"] == ".organizations", job
        assert "docform" not in " ".join(gitlab[job]["script"]).replace('"$MANIFESTS"', "") or (
            " manifests" not in " ".join(gitlab[job]["script"])
        ), job
    for job in ["validate", "plan", "plan-outdated", "apply"]:
        changes = [rule.get("changes") for rule in gitlab[job]["rules"]]
        assert all(change == ["$MANIFESTS/**/*", ".gitlab-ci.yml"] for change in changes), job
    assert gitlab["drift"]["resource_group"] == "docform-drift-$MANIFESTS"
    assert gitlab["variables"]["PLAN_MARKER"] == "<!-- docform-plan $MANIFESTS -->"
