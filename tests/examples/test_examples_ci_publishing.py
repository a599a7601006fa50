"""What the example CI posts and publishes around docform's Markdown, run in bash as the
platforms run it, with docform planning against the example's sandbox: a plan that breaks a
safety rail is posted with its rails (not as a bare failure), and a plan or drift report too
long for a comment or an issue is posted summarised, with the whole of it in the job summary
or the job's artifact and a link to it. `gh` and GitLab's API are stand-ins that keep what
would be posted."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from remembered_docform import distinct_inputs, docform_calls, remembered_docform
from test_examples_ci_tools import BIN, EXAMPLE, bash_step, left_stale, made_afresh, step

from planning import copy_sandbox, seeded_sandbox

MARKER = "<!-- docform-plan manifests -->"
RUN_URL = "https://github.example/acme/docs/actions/runs/42"
JOB_URL = "https://gitlab.example/acme/docs/-/jobs/7"
GITHUB_LIMIT = 65_536
HEAD_SHA = "0123456789abcdef0123456789abcdef01234567"
HEAD_LINE = (
    f"\nOrganization `manifests`, pull request head `{HEAD_SHA}`, planned by "
    f"[this run]({RUN_URL}).\n"
)
SHOW_PLAN = "Show the plan in the job summary and on the pull request (one comment, updated)"

FAKE_GH = """#!/bin/bash
# gh as the example workflows use it: no earlier comment or issue is found; the file a
# comment or an issue would be posted from is kept as $POSTED.
previous=""
for argument in "$@"; do
  if [ "$previous" = --body-file ]; then cp "$argument" "$POSTED"; fi
  previous="$argument"
done
"""

# GitLab's API as the example's jobs call it: no earlier note or issue; a note's body or an
# issue's description is kept as $POSTED, and each call is listed in $CALLS.
GITLAB_STANDINS = """
api() {
  echo "$1 $2" >> "$CALLS"
  for argument in "$@"; do
    case "$argument" in body@*|description@*) cp "${argument#*@}" "$POSTED" ;; esac
  done
  if [ "$1" = GET ]; then echo '[]'; fi
}
plan_note() { :; }
"""


@pytest.fixture
def acme(tmp_path: Path) -> Path:
    """A checkout of the example repository."""
    checkout = tmp_path / "acme"
    shutil.copytree(EXAMPLE, checkout)
    return checkout


@pytest.fixture
def ci_env(tmp_path: Path) -> dict[str, str]:
    """What the CI gives the steps: the sandbox, the run's coordinates, gh's stand-in."""
    bin_dir = tmp_path / "standins"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    sandbox = seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")
    return {
        "PATH": os.pathsep.join([str(bin_dir), str(BIN), os.environ["PATH"]]),
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "NO_COLOR": "1",
        "POSTED": str(tmp_path / "posted.md"),
        "CALLS": str(tmp_path / "calls"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/docs",
        "GITHUB_RUN_ID": "42",
        "PR": "7",
        "HEAD_SHA": HEAD_SHA,
        "BOT_LOGIN": "github-actions[bot]",
        "MARKER": MARKER,
        "FROM_FORK": "false",
        "VALIDATE_OUTCOME": "success",
        "CI_JOB_URL": JOB_URL,
        "CI_PIPELINE_URL": "https://gitlab.example/acme/docs/-/pipelines/5",
        "CI_MERGE_REQUEST_IID": "3",
        "PLAN_MARKER": MARKER,
        "DRIFT_LABEL": "docform-drift",
        "MANIFESTS": "manifests",
        "ARTIFACT": "docform-plan-manifests",
        "CI_DEFAULT_BRANCH": "main",
    }


def break_the_deletion_rail(acme: Path) -> None:
    """The plan deletes Dan (prune is on); no deletion is allowed any more."""
    organization = acme / "manifests" / "organization.yaml"
    text = organization.read_text(encoding="utf-8")
    organization.write_text(text.replace("maxDeletions: 5", "maxDeletions: 0"), encoding="utf-8")


def invite_many(acme: Path, count: int = 400) -> None:
    """Enough new members for a plan (and a drift report) longer than a comment allows."""
    members = "".join(f"  person{n:04}@acme.test: read\n" for n in range(count))
    (acme / "manifests" / "invites.yaml").write_text(f"members:\n{members}", encoding="utf-8")


def read(path: Path | str) -> str:
    return Path(path).read_text(encoding="utf-8")


def github_plan(acme: Path, env: dict[str, str]) -> int:
    """The plan workflow's Plan step, then the step that shows the plan, as after it."""
    planned = bash_step(step("docform-plan.yml", "Plan")["run"], acme, env)
    outcome = "success" if planned.returncode == 0 else "failure"
    shown = bash_step(
        step("docform-plan.yml", SHOW_PLAN)["run"], acme, env | {"PLAN_OUTCOME": outcome}
    )
    assert shown.returncode == 0, shown.stderr
    return planned.returncode


def test_github_posts_a_plan_that_fits_as_it_is(acme, ci_env, acme_planned_once):
    # What the Plan step (exit 0) writes for the example as it is: conftest's acme_planned_once.
    for name in ("plan.md", "plan-full.md", "plan.json"):
        shutil.copy(acme_planned_once / "acme" / name, acme / name)
    shown = bash_step(
        step("docform-plan.yml", SHOW_PLAN)["run"], acme, ci_env | {"PLAN_OUTCOME": "success"}
    )
    assert shown.returncode == 0, shown.stderr
    assert read(acme / "plan.md") == read(acme / "plan-full.md")
    assert read(ci_env["POSTED"]) == f"{MARKER}\n{read(acme / 'plan-full.md')}{HEAD_LINE}"
    assert read(ci_env["GITHUB_STEP_SUMMARY"]) == read(acme / "plan-full.md")


def gitlab_script(job: str) -> str:
    """A GitLab job's script with the API stand-ins defined after the job's own helpers, and
    without the merge of the target branch (the checkout here is no Git repository)."""
    document = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    helpers = document[".gitlab-api"]
    lines = [
        helpers + GITLAB_STANDINS if line == helpers else line
        for line in document[job]["script"]
        if "git fetch" not in line
    ]
    return "\n".join(lines)


# Each test below runs GitHub's step, then GitLab's job, on one checkout and organization,
# docform being remembered_docform: GitLab's docform line, word for word GitHub's (as it is now),
# gets what GitHub's real run of it gave instead of running again.


def test_a_plan_that_breaks_a_rail_is_posted_with_its_rails_and_fails_the_job(
    acme, ci_env, tmp_path
):
    break_the_deletion_rail(acme)
    env = remembered_docform(ci_env, tmp_path)
    # GitHub: the comment, and the whole plan in the job summary.
    assert github_plan(acme, env) == 1
    posted = read(env["POSTED"])
    assert posted == f"{MARKER}\n{read(acme / 'plan.md')}{HEAD_LINE}"
    assert "> **Apply will refuse this plan: it breaks 1 safety rail.**\n" in posted
    assert "- `max-deletions`: the plan deletes 1 objects, more than the 0 allowed" in posted
    assert "The plan failed" not in posted
    assert read(env["GITHUB_STEP_SUMMARY"]) == read(acme / "plan-full.md")
    # GitLab: the note, and the job fails.
    done = bash_step(gitlab_script("plan"), acme, env)
    assert done.returncode == 1
    assert read(env["CALLS"]) == "POST /merge_requests/3/notes\n"
    posted = read(env["POSTED"])
    assert posted == f"{MARKER}\n{read(acme / 'plan.md')}"
    assert "> **Apply will refuse this plan: it breaks 1 safety rail.**\n" in posted


def test_a_long_plan_is_posted_summarised_and_the_whole_published(acme, ci_env, tmp_path):
    invite_many(acme)
    env = remembered_docform(ci_env, tmp_path)
    # GitHub: the whole plan in the job summary and the artifact, the comment links both.
    assert github_plan(acme, env) == 0
    whole = read(acme / "plan-full.md")
    assert len(whole) > GITHUB_LIMIT
    posted = read(env["POSTED"])
    assert len(posted) < GITHUB_LIMIT
    assert posted == (
        f"{MARKER}\n{read(acme / 'plan.md')}{HEAD_LINE}\nThe whole plan: the job summary of "
        f"[this run]({RUN_URL}) (up to 1 MiB), and `plan-full.md` in its "
        "docform-plan-manifests artifact.\n"
    )
    assert "The whole plan is in `plan-full.md`." in posted
    assert read(env["GITHUB_STEP_SUMMARY"]) == whole
    # GitLab: the note links the job's artifact.
    done = bash_step(gitlab_script("plan"), acme, env)
    assert done.returncode == 0, done.stderr
    assert read(acme / "plan-full.md") == whole
    assert read(env["POSTED"]) == (
        f"{MARKER}\n{read(acme / 'plan.md')}\n"
        f"The whole plan: [plan-full.md]({JOB_URL}/artifacts/file/plan-full.md).\n"
    )


def test_a_drift_issue_of_a_long_report_links_the_whole(acme, ci_env, tmp_path):
    invite_many(acme)
    env = remembered_docform(ci_env, tmp_path)
    # GitHub: the whole report in the job summary and the artifact, the issue links both.
    detected = bash_step(step("docform-drift.yml", "Detect drift", "drift")["run"], acme, env)
    assert detected.returncode == 0, detected.stderr
    assert read(env["GITHUB_OUTPUT"]) == "status=2\n"
    whole = read(acme / "drift-full.md")
    assert len(whole) > GITHUB_LIMIT
    assert read(env["GITHUB_STEP_SUMMARY"]) == whole
    opened = bash_step(
        step("docform-drift.yml", "Open or update the drift issue", "drift")["run"], acme, env
    )
    assert opened.returncode == 0, opened.stderr
    issue = read(env["POSTED"])
    assert len(issue) < GITHUB_LIMIT
    assert issue.startswith(
        f"{read(acme / 'drift.md')}\nThe whole report: the job summary of [this run]({RUN_URL}) "
        "(up to 1 MiB), and `drift-full.md` in its docform-drift artifact.\n\n---\nLast checked "
        f"by [this run]({RUN_URL}) on "
    )
    # GitLab: the issue links the job's artifact.
    done = bash_step(gitlab_script("drift"), acme, env)
    assert done.returncode == 0, done.stderr
    assert read(env["CALLS"]) == (
        "GET /issues?state=opened&labels=docform-drift&per_page=100\nPOST /issues\n"
    )
    assert read(acme / "drift-full.md") == whole
    assert read(env["POSTED"]).endswith(
        f"\nThe whole report: [drift-full.md]({JOB_URL}/artifacts/file/drift-full.md).\n"
        f"\n---\nLast checked by {env['CI_PIPELINE_URL']}\n"
    )


# -- GitLab: an outdated note, and docform.lock written back -------------------------------------


def gitlab_job(job: str, standins: str) -> str:
    document = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    helpers = document[".gitlab-api"]
    return "\n".join(
        helpers + standins if line == helpers else line for line in document[job]["script"]
    )


# The bot's plan note of an earlier push exists (id 41).
EARLIER_NOTE = GITLAB_STANDINS.replace("plan_note() { :; }", "plan_note() { echo 41; }")


def test_gitlab_marks_the_plan_note_outdated_when_an_earlier_job_failed(acme, ci_env):
    done = bash_step(gitlab_job("plan-outdated", EARLIER_NOTE), acme, ci_env)
    assert done.returncode == 0, done.stderr
    assert read(ci_env["CALLS"]) == "PUT /merge_requests/3/notes/41\n"
    assert read(ci_env["POSTED"]) == (
        f"{MARKER}\n### docform plan: manifests\n\n:warning: **Outdated**: no plan was made "
        "for the last commit (the install, validation or plan failed: see "
        "https://gitlab.example/acme/docs/-/pipelines/5), so no earlier plan of this merge "
        "request applies.\n"
    )


def test_gitlab_leaves_the_note_the_plan_job_posted(acme, ci_env):
    # The plan job's artifact: it posted what happened on this organization's note.
    (acme / "note-posted" / "manifests").mkdir(parents=True)
    (acme / "note-posted" / "manifests" / "posted").touch()
    done = bash_step(gitlab_job("plan-outdated", EARLIER_NOTE), acme, ci_env)
    assert done.returncode == 0, done.stderr
    assert not Path(ci_env["CALLS"]).exists()


def write_lock_script() -> str:
    document = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    return next(line for line in document["apply"]["script"] if "docform pin" in line)


@pytest.fixture
def gitlab_origin(
    acme: Path, ci_env: dict[str, str], tmp_path: Path, acme_applied_once: tuple[Path, Path]
) -> dict[str, str]:
    """The default branch on a bare repository standing in for GitLab; the organization as
    the apply job's `docform apply` leaves it (the example applied, arranged once per test
    process: a copy of its sandbox, and the docform.lock that apply wrote in the checkout);
    and the job's environment (its push URL mapped onto the bare repository)."""
    bare = tmp_path / "origin.git"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
    # GitLab takes push options (-o ci.skip)
    subprocess.run(
        ["git", "-C", str(bare), "config", "receive.advertisePushOptions", "true"], check=True
    )
    subprocess.run([*git, "init", "-q", "--initial-branch=main"], cwd=acme, check=True)
    subprocess.run([*git, "add", "."], cwd=acme, check=True)
    subprocess.run([*git, "commit", "-qm", "manifests"], cwd=acme, check=True)
    subprocess.run([*git, "push", "-q", str(bare), "main"], cwd=acme, check=True)
    applied_manifests, applied_sandbox = acme_applied_once
    shutil.copy(applied_manifests / "docform.lock", acme / "manifests" / "docform.lock")
    (tmp_path / "applied").mkdir()
    sandbox = copy_sandbox(applied_sandbox, tmp_path / "applied")
    url = "https://oauth2:glpat-push@gitlab.example/acme/docs.git"
    return ci_env | {
        "GITLAB_PUSH_TOKEN": "glpat-push",
        "CI_SERVER_HOST": "gitlab.example",
        "CI_PROJECT_PATH": "acme/docs",
        "CI_COMMIT_BRANCH": "main",
        "CI_COMMIT_SHORT_SHA": "abc1234",
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_API_TOKEN": "tok_gitlab_lock_0123456789",
        "RETRY_SECONDS": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{bare}.insteadOf",
        "GIT_CONFIG_VALUE_0": url,
        "ORIGIN": str(bare),
    }


@pytest.fixture(scope="module")
def pins_on_main(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What remembered_docform keeps for the write-back tests below: each pins main as the
    apply left it (`gitlab_origin`, unchanged), with the apply's docform.lock (then, when the
    push is rejected, without it), and gets back what the real docform gave the first test
    that pinned the same input."""
    return tmp_path_factory.mktemp("pins-on-main")


def test_gitlab_writes_docform_lock_back_to_the_default_branch(
    acme, gitlab_origin, tmp_path, pins_on_main
):
    env = remembered_docform(gitlab_origin, tmp_path, pins_on_main)
    # The lock is made again on the default branch, never the checkout's carried over.
    left_stale(acme / "manifests" / "docform.lock")
    done = bash_step(write_lock_script(), acme, env)
    assert done.returncode == 0, done.stdout + done.stderr
    log = subprocess.run(
        ["git", "--git-dir", gitlab_origin["ORIGIN"], "log", "-1", "--format=%s", "main"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert log == "manifests/docform.lock: live objects after applying abc1234 [skip ci]\n"
    pushed = subprocess.run(
        ["git", "--git-dir", gitlab_origin["ORIGIN"], "show", "main:manifests/docform.lock"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert made_afresh(pushed), pushed


def test_gitlab_fails_loudly_when_docform_lock_cannot_be_pushed(
    acme, gitlab_origin, tmp_path, pins_on_main
):
    hook = Path(gitlab_origin["ORIGIN"]) / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'You are not allowed to push' >&2\nexit 1\n")
    hook.chmod(0o755)
    # Each attempt pins the same branch again: only two inputs (with the apply's
    # docform.lock, then without it).
    env = remembered_docform(gitlab_origin, tmp_path, pins_on_main)
    done = bash_step(write_lock_script(), acme, env)
    assert done.returncode == 1
    assert "Another push came first; pinning again on the newest main." in done.stdout
    assert (
        "docform.lock could not be pushed to main after 5 attempts; run docform pin manifests "
        "on it and commit the result.\n"
    ) in done.stderr
    assert docform_calls(env) == ["pin manifests"] * 5 and distinct_inputs(env) == 2
