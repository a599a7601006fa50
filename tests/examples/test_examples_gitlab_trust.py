"""GitLab: what the apply trusts is something no branch pipeline can write.

Issue 43: the apply used to take the reviewed checksum from the bot's plan note, and every
branch pipeline holds the bot's token (GITLAB_API_TOKEN is not protected: merge request
pipelines need it to post the plan), so a branch could edit the note to a checksum of its
choosing. The apply now takes the checksum from the artifact of the `plan` job of the merge
request's head pipeline, which only that job's runner wrote, and refuses when the note
disagrees. The jobs run in bash as GitLab runs them, against a stand-in of GitLab's API and
permissions (gitlab_standin.py), with each job given the CI/CD variables GitLab would give it
(the settings the example's header describes) and docform against the example's sandbox.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitlab_standin import (
    GitLab,
    Pipeline,
    Token,
    Variable,
    first_of_matrix,
    job_environment,
    job_runs,
    served,
)
from test_examples_ci_tools import BIN, EXAMPLE, bash_step

from planning import copy_sandbox, live_api, plan_json, seeded_sandbox

ADMIN = "tok_gitlab_trust_admin_0123"
BOT = 77
MERGE = "fedcba9876543210fedcba9876543210fedcba98"
MR_PIPELINE, PLAN_JOB = 100, 1000
PLAN_JOB_NAME = "plan: [manifests]"  # a matrix job is named after its variables
SETTINGS = [
    Variable("DOCFORM_PLAN_TOKEN", ADMIN, protected=False),
    Variable("GITLAB_API_TOKEN", "glpat-bot-reporter", protected=False),
    Variable("DOCFORM_APPLY_TOKEN", ADMIN, protected=True, environment="production"),
    Variable("GITLAB_PUSH_TOKEN", "glpat-push", protected=True),
    Variable("DOCFORM_AUDIT_TOKEN", ADMIN, protected=True, environment="docform-audit"),
]
UNPROTECTED = {v.name for v in SETTINGS if not v.protected}


def gitlab_ci() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))


def test_the_settings_here_are_those_the_example_describes():
    header = (EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8").split("\nstages:")[0]
    for variable in SETTINGS:
        line = next(x for x in header.splitlines() if x.startswith(f"#   {variable.name} "))
        assert ("NOT protected" in line) == (not variable.protected), line


@pytest.mark.parametrize(
    "pipeline",
    [
        Pipeline("merge_request_event", None, protected=False, merge_request=2),
        Pipeline("push", "feature", protected=False),
        Pipeline("schedule", "feature", protected=False),
    ],
    ids=["merge-request", "branch-push", "branch-schedule"],
)
def test_no_job_of_a_branch_pipeline_applies_or_sees_a_protected_variable(pipeline):
    ci = gitlab_ci()
    for name, job in ci.items():
        if not isinstance(job, dict) or "script" not in job or not job_runs(job, pipeline):
            continue
        assert name not in {"apply", "apply-approved", "adopt"}, name
        seen = job_environment(job, pipeline, SETTINGS, ci["variables"])
        assert {v.name for v in SETTINGS} & seen.keys() <= UNPROTECTED, name
    # A job of the branch's own making gets no more.
    own = job_environment({"script": ["env"]}, pipeline, SETTINGS, {})
    assert {v.name for v in SETTINGS} & own.keys() == UNPROTECTED


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Merge request !1 planned by its pipeline (the plan job's own script, run against the
    example's sandbox), once: every test here starts from that plan. The folder holding the
    checkout after the job and the sandbox, the notes GitLab holds then, what the plan
    showed."""
    folder = tmp_path_factory.mktemp("planned")
    checkout = folder / "acme"
    shutil.copytree(EXAMPLE, checkout)
    sandbox = seeded_sandbox(folder, EXAMPLE / "sandbox-seed.yaml")
    gitlab = GitLab(tokens={"glpat-bot-reporter": Token(BOT, "reporter")})
    with served(gitlab) as api:
        merge_request = Pipeline("merge_request_event", None, protected=False, merge_request=1)
        done = run_job("plan", merge_request, checkout, job_base(api, sandbox))
    assert done.returncode == 0, done.stderr
    files = {
        name: (checkout / name).read_text() for name in ["plan.md", "plan-full.md", "plan.json"]
    }
    return {
        "folder": folder,
        "notes": gitlab.notes,
        "files": files,
        "reviewed": files["plan.md"].split("checksum `")[1][:64],
    }


def job_base(api: str, sandbox: Path) -> dict[str, str]:
    """What every job here is given: GitLab's API at ``api``, docform against ``sandbox``."""
    return {
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "NO_COLOR": "1",
        "CI_API_V4_URL": api,
        "CI_PROJECT_ID": "7",
        "CI_JOB_URL": "https://gitlab.example/acme/docs/-/jobs/1000",
        "CI_PIPELINE_URL": "https://gitlab.example/acme/docs/-/pipelines/100",
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
    }


@pytest.fixture
def forge(tmp_path: Path, planned: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """GitLab with merge request !1 planned by its pipeline (a copy of `planned`: the
    checkout, the sandbox and the bot's note) and merged as MERGE into a main held by a bare
    repository; the checkout of main; what the plan showed."""
    gitlab = GitLab(
        tokens={"glpat-bot-reporter": Token(BOT, "reporter")},
        notes=copy.deepcopy(planned["notes"]),
    )
    checkout = tmp_path / "acme"
    shutil.copytree(planned["folder"] / "acme", checkout)
    sandbox = copy_sandbox(planned["folder"] / "sandbox.sqlite", tmp_path)
    with served(gitlab) as api:
        gitlab.finish_job(PLAN_JOB, MR_PIPELINE, PLAN_JOB_NAME, "success", planned["files"])
        gitlab.merge_requests[1] = {
            "iid": 1,
            "merge_commit_sha": MERGE,
            "head_pipeline": {"id": MR_PIPELINE, "ref": "refs/merge-requests/1/head"},
        }
        yield {
            "gitlab": gitlab,
            "checkout": checkout,
            "sandbox": sandbox,
            "base": job_base(api, sandbox) | git_origin(checkout, tmp_path),
            "reviewed": planned["reviewed"],
        }


def run_job(name: str, pipeline: Pipeline, checkout: Path, base: dict[str, str], after=False):
    """Job ``name`` of the example as ``pipeline`` runs it (its script, or its after_script),
    with the variables GitLab gives it there."""
    ci = gitlab_ci()
    job = ci[name]
    assert job_runs(job, pipeline), f"{name} does not run in {pipeline}"
    matrix = first_of_matrix(job, ci)
    env = base | job_environment(job, pipeline, SETTINGS, ci["variables"], matrix)
    return bash_step("\n".join(job["after_script" if after else "script"]), checkout, env)


def git_origin(checkout: Path, tmp_path: Path) -> dict[str, str]:
    """main on a bare repository standing in for GitLab's, the checkout its clone; what the
    apply job needs to push docform.lock there."""
    bare = tmp_path / "origin.git"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "config", "receive.advertisePushOptions", "true"])
    subprocess.run([*git, "init", "-q", "--initial-branch=main"], cwd=checkout, check=True)
    subprocess.run([*git, "add", "."], cwd=checkout, check=True)
    subprocess.run([*git, "commit", "-qm", "manifests"], cwd=checkout, check=True)
    subprocess.run([*git, "push", "-q", str(bare), "main"], cwd=checkout, check=True)
    return {
        "CI_SERVER_HOST": "gitlab.example",
        "CI_PROJECT_PATH": "acme/docs",
        "CI_COMMIT_SHA": MERGE,
        "CI_COMMIT_SHORT_SHA": MERGE[:8],
        "RETRY_SECONDS": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{bare}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://oauth2:glpat-push@gitlab.example/acme/docs.git",
    }


MAIN = Pipeline("push", "main", protected=True)

# What a branch pipeline's own job can do with the variables it gets (GITLAB_API_TOKEN, the
# bot's): edit the bot's plan note of !1 to show a checksum of its choosing, and try to put
# that checksum where the apply reads it now (the plan job's artifact).
FORGERY = r"""
api() {
  curl --silent --request "$1" --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" \
    "$CI_API_V4_URL/projects/7$2" "${@:3}"
}
note="$(api GET /merge_requests/1/notes \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')"
printf '<!-- docform-plan manifests -->\nPlan: checksum `%s`\n' "$FORGED" > forged.md
api PUT "/merge_requests/1/notes/$note" --data-urlencode body@forged.md
api PUT /jobs/1000/artifacts --data-urlencode body@forged.md
api DELETE /jobs/1000/artifacts
api POST /jobs/1000/retry
"""


def test_a_branch_pipeline_cannot_make_apply_accept_a_checksum(forge):
    gitlab, checkout, base = forge["gitlab"], forge["checkout"], forge["base"]
    # After the review, someone gives Hannah the admin role in the UI: the merged manifests
    # now plan to take it back, a change nobody reviewed.
    live_api(forge["sandbox"], "PATCH", "/orgs/org_acme/members/u_hannah", {"role": "admin"})
    forged = plan_json(checkout / "manifests", forge["sandbox"])["checksum"]
    assert forged != forge["reviewed"]

    # A branch's own pipeline writes the checksum of exactly that plan into the bot's note.
    branch = Pipeline("push", "mallory", protected=False)
    own_job = job_environment({"script": []}, branch, SETTINGS, {})
    attack = bash_step(FORGERY, checkout, base | own_job | {"FORGED": forged})
    assert attack.returncode == 0, attack.stderr
    note = gitlab.notes[1][0]
    assert forged in note["body"] and note["author"]["id"] == BOT  # the note is forged...
    assert gitlab.refused == [
        "PUT /api/v4/projects/7/jobs/1000/artifacts",
        "DELETE /api/v4/projects/7/jobs/1000/artifacts",
        "POST /api/v4/projects/7/jobs/1000/retry",
    ]  # ...the plan job's record is not

    applied = run_job("apply", MAIN, checkout, base)
    assert applied.returncode == 1
    assert (
        f"merge request !1: its plan note shows checksum {forged}, but its plan job 1000 "
        f"planned {forge['reviewed']}: the note was changed after that job wrote it, so what "
        "was reviewed is unknown; plan the merge request again: nothing applied.\n"
    ) in applied.stderr
    hannah = live_api(forge["sandbox"], "GET", "/orgs/org_acme/members/u_hannah")
    assert hannah["role"] == "admin"  # nothing applied

    # The result is posted on the merge request.
    posted = run_job("apply", MAIN, checkout, base | {"CI_JOB_STATUS": "failed"}, after=True)
    assert posted.returncode == 0, posted.stderr
    result = gitlab.notes[1][-1]
    assert result["author"]["id"] == BOT
    assert result["body"].startswith("### docform apply: manifests\n\n:x: **Not applied**")
    assert "its plan note shows checksum" in result["body"]


def test_the_apply_applies_what_the_merge_requests_pipeline_planned_and_posts_it(forge):
    gitlab, checkout, base = forge["gitlab"], forge["checkout"], forge["base"]
    applied = run_job("apply", MAIN, checkout, base)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "Apply complete" in applied.stdout
    posted = run_job("apply", MAIN, checkout, base | {"CI_JOB_STATUS": "success"}, after=True)
    assert posted.returncode == 0, posted.stderr
    assert gitlab.notes[1][-1]["body"].startswith(
        "### docform apply: manifests\n\n:white_check_mark: **Applied**: the reviewed plan is "
        "live. "
    )


@pytest.mark.parametrize(
    ("pipeline", "status", "message"),
    [
        (
            {"id": 99, "ref": "mallory"},
            "success",
            "no merge request pipeline ran on its last commit",
        ),
        (None, "success", "no merge request pipeline ran on its last commit"),
        (
            {"id": MR_PIPELINE, "ref": "refs/merge-requests/1/head"},
            "failed",
            "the plan job of its pipeline 100 is failed",
        ),
    ],
    ids=["branch-pipeline", "no-pipeline", "plan-failed"],
)
def test_the_apply_refuses_without_a_plan_of_the_merge_requests_last_commit(
    forge, pipeline, status, message
):
    gitlab = forge["gitlab"]
    gitlab.merge_requests[1]["head_pipeline"] = pipeline
    gitlab.jobs[PLAN_JOB]["status"] = status
    applied = run_job("apply", MAIN, forge["checkout"], forge["base"])
    assert applied.returncode == 1
    assert f"merge request !1: {message}" in applied.stderr


def test_a_refused_apply_names_what_differs_from_the_plan_its_merge_request_reviewed(forge):
    """The plan job saved its plan (plan.json, an artifact beside plan.md): the apply hands
    it to docform, which names the hand change the new plan would revert."""
    live_api(forge["sandbox"], "PATCH", "/orgs/org_acme/members/u_hannah", {"role": "admin"})
    applied = run_job("apply", MAIN, forge["checkout"], forge["base"])
    assert applied.returncode == 2  # refused, and the check finds what is left to do
    said = " ".join(applied.stdout.split())
    assert "Compared with the reviewed plan (plan.json): live objects changed since" in said
    assert "member.hannah.berg@acme.test" in said
    assert "keep it with 'docform adopt', or re-plan and review" in said
