"""GitHub: the reviewed checksum travels from the plan job to the apply job as a commit
status, `docform/plan/FOLDER` (here `docform/plan/manifests`) on the pull request's
head, and the apply takes it only from a status
the plan workflow's bot set (a status cannot be edited, and one set by anyone else is
ignored). The workflows' own steps run in bash with docform planning and applying against
the example's sandbox, and `gh` is a stand-in for GitHub's statuses API that keeps what is
posted and answers it back, with the creator of each status the identity of the token.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_examples_ci_publishing import break_the_deletion_rail
from test_examples_ci_tools import BIN, EXAMPLE, bash_step, step

from planning import copy_sandbox, live_api

BOT = "github-actions[bot]"
HEAD = "0123456789abcdef0123456789abcdef01234567"
MERGE = "fedcba9876543210fedcba9876543210fedcba98"
RECORD_STATUS = "Record the reviewed checksum as the commit status docform/plan/FOLDER"
CONTEXT = "docform/plan/manifests"
ARTIFACT = "docform-plan-manifests"
FIND_CHECKSUM = "Find the checksum reviewed in the pull request"

FAKE_GH = r"""#!/usr/bin/env python3
# gh as the workflows call GitHub's commit statuses: `gh api --method POST
# repos/O/R/statuses/SHA -f k=v ...` creates a status whose creator is $GH_LOGIN (the token's
# identity), refusing what GitHub refuses (422); `gh api [--paginate] PATH --jq EXPR` answers
# a commit's statuses, newest first, and any other PATH from $FORGE/<PATH, / as _>.json,
# through the real jq; `gh run download RUN --name NAME --dir DIR` copies the artifact NAME
# of run RUN that $FORGE/artifacts/RUN/NAME holds. (The workflows call it dozens of times in
# a run of these tests: it imports little, and becomes jq for the answer.)
import os, sys

forge = os.environ["FORGE"]
args = sys.argv[1:]
if args[:2] == ["run", "download"]:  # gh run download RUN --repo R --name NAME --dir DIR
    options = dict(zip(args[3::2], args[4::2]))
    kept = os.path.join(forge, "artifacts", args[2], options["--name"])
    if not os.path.isdir(kept):
        print(f"no artifact matches {options['--name']}", file=sys.stderr)
        sys.exit(1)
    import shutil
    shutil.copytree(kept, options["--dir"])
    sys.exit(0)
assert args[0] == "api", args
method, fields, jq, path = "GET", {}, ".", None
i = 1
while i < len(args):
    if args[i] == "--method":
        method, i = args[i + 1], i + 2
    elif args[i] == "-f":
        key, _, value = args[i + 1].partition("=")
        fields[key], i = value, i + 2
    elif args[i] == "--jq":
        jq, i = args[i + 1], i + 2
    elif args[i] == "--paginate":
        i += 1
    else:
        path, i = args[i], i + 1
parts = path.split("/")
if method == "POST" and parts[3] == "statuses":
    import json

    statuses = os.path.join(forge, f"statuses-{parts[4]}.json")
    known = []
    if os.path.exists(statuses):
        with open(statuses) as kept:
            known = json.load(kept)
    if fields.get("state") not in ("error", "failure", "pending", "success") or len(
        fields.get("description", "")
    ) > 140:
        print(f"gh: Validation Failed (HTTP 422): {fields}", file=sys.stderr)
        sys.exit(1)
    status = {**fields, "id": len(known) + 1, "creator": {"login": os.environ["GH_LOGIN"]}}
    with open(statuses, "w") as kept:
        kept.write(json.dumps([status, *known]))
    print(json.dumps(status))
    sys.exit(0)
assert method == "GET", args
if parts[3:4] == ["commits"] and parts[5:] == ["statuses"]:
    answer = os.path.join(forge, f"statuses-{parts[4]}.json")
    if not os.path.exists(answer):  # no status yet: an empty list
        os.execvp("jq", ["jq", "-r", "-n", f"[] | ({jq})"])
else:
    answer = os.path.join(forge, path.replace("/", "_") + ".json")
    if not os.path.exists(answer):
        sys.exit(f"gh: no stand-in answer for GET {path}")
os.execvp("jq", ["jq", "-r", jq, answer])
"""


@pytest.fixture
def github(tmp_path: Path, acme_planned_once: Path) -> dict[str, str]:
    """A copy of the example's checkout after the plan workflow's Plan step (every test here
    starts from that plan of the pull request's head: conftest's acme_planned_once), its
    sandbox, and what GitHub gives the steps: pull request #7 with head HEAD, merged as MERGE,
    and the stand-in gh acting as the workflow's bot."""
    checkout = tmp_path / "acme"
    shutil.copytree(acme_planned_once / "acme", checkout)
    sandbox = copy_sandbox(acme_planned_once / "sandbox.sqlite", tmp_path)
    forge = tmp_path / "forge"
    forge.mkdir()
    (forge / f"repos_acme_docs_commits_{MERGE}_pulls.json").write_text(json.dumps([{"number": 7}]))
    (forge / "repos_acme_docs_pulls_7.json").write_text(json.dumps({"head": {"sha": HEAD}}))
    standins = tmp_path / "standins"
    standins.mkdir()
    (standins / "gh").write_text(FAKE_GH, encoding="utf-8")
    (standins / "gh").chmod(0o755)
    return {
        "CHECKOUT": str(checkout),
        "PATH": os.pathsep.join([str(standins), str(BIN), os.environ["PATH"]]),
        "FORGE": str(forge),
        "GH_LOGIN": BOT,
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "NO_COLOR": "1",
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
        # A runner's temporary files go with its job; the step's mktemp ones go with the test.
        "TMPDIR": str(tmp_path),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/docs",
        "GITHUB_RUN_ID": "42",
        "GITHUB_SHA": MERGE,
        "HEAD_SHA": HEAD,
        "BOT_LOGIN": BOT,
        "FROM_FORK": "false",
        "EVENT": "push",
        "MANIFESTS": "manifests",
        "CONTEXT": CONTEXT,
    }


def run(workflow: str, job: str, name: str, env: dict[str, str], **more: str):
    return bash_step(step(workflow, name, job=job)["run"], Path(env["CHECKOUT"]), env | more)


def record(env: dict[str, str], outcome: str = "success", sha: str = HEAD) -> None:
    """The end of a run of the plan workflow on commit ``sha`` (run 42) after a Plan step
    with that outcome: its artifact (GitHub keeps it for the run), its status step, and the
    run's conclusion."""
    plan = Path(env["CHECKOUT"]) / "plan.md"
    artifact = Path(env["FORGE"]) / "artifacts" / "42" / ARTIFACT
    if plan.exists():
        shutil.rmtree(artifact, ignore_errors=True)
        artifact.mkdir(parents=True)
        shutil.copy(plan, artifact / "plan.md")
        shutil.copy(plan.with_name("plan.json"), artifact / "plan.json")
    recorded = run("docform-plan.yml", "plan", RECORD_STATUS, env, PLAN_OUTCOME=outcome)
    assert recorded.returncode == 0, recorded.stderr
    conclusion = "success" if outcome == "success" else "failure"
    plan_run(env, sha, {"id": 42, "status": "completed", "conclusion": conclusion})


def plan_run(env: dict[str, str], sha: str, newest: dict[str, Any]) -> None:
    """GitHub's list of the plan workflow's runs on pull requests at ``sha``, ``newest``
    added first."""
    path = (
        f"repos/acme/docs/actions/workflows/docform-plan.yml/runs?event=pull_request&head_sha={sha}"
    )
    listed = Path(env["FORGE"]) / (path.replace("/", "_") + ".json")
    runs = json.loads(listed.read_text())["workflow_runs"] if listed.exists() else []
    listed.write_text(json.dumps({"workflow_runs": [newest, *runs]}))


def plan_and_record(env: dict[str, str]) -> int:
    """The plan workflow's Plan step, then its status step with the Plan step's outcome."""
    planned = run("docform-plan.yml", "plan", "Plan", env)
    record(env, "success" if planned.returncode == 0 else "failure")
    return planned.returncode


def statuses(env: dict[str, str], sha: str = HEAD) -> list[dict[str, Any]]:
    return json.loads((Path(env["FORGE"]) / f"statuses-{sha}.json").read_text())


def reviewed_checksum(env: dict[str, str]) -> str:
    plan = (Path(env["CHECKOUT"]) / "plan.md").read_text(encoding="utf-8")
    return plan.split("checksum `")[1][:64]


def find_checksum(env: dict[str, str]):
    Path(env["GITHUB_OUTPUT"]).write_text("")
    done = run("docform-apply.yml", "apply", FIND_CHECKSUM, env)
    return done, Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8")


def post_status(env: dict[str, str], login: str, state: str, description: str, sha: str = HEAD):
    """A status someone else sets through the API with a token of their own."""
    fields = ["-f", f"state={state}", "-f", f"context={CONTEXT}"]
    fields += ["-f", f"description={description}"]
    command = f"gh api --method POST repos/acme/docs/statuses/{sha} " + " ".join(
        f"'{field}'" for field in fields
    )
    done = bash_step(command, Path(env["CHECKOUT"]), env | {"GH_LOGIN": login})
    assert done.returncode == 0, done.stderr


def test_the_apply_applies_the_plan_whose_checksum_the_plan_job_set_as_a_status(github):
    """The whole chain: plan, status, merge, apply; a newer status with another checksum by
    someone else (anyone with write access can add one) changes nothing. The plan is
    acme_planned_once's."""
    record(github)
    checksum = reviewed_checksum(github)
    run_url = "https://github.example/acme/docs/actions/runs/42"
    assert statuses(github) == [
        {
            "state": "success", "context": CONTEXT, "description": f"checksum {checksum}",
            "target_url": run_url, "id": 1, "creator": {"login": BOT},
        }
    ]  # fmt: skip
    post_status(github, "mallory", "success", f"checksum {'b' * 64}")

    found, outputs = find_checksum(github)
    assert found.returncode == 0, found.stdout + found.stderr
    assert outputs == f"pr=7\nchecksum={checksum}\n"
    applied = run(
        "docform-apply.yml", "apply", "Apply the reviewed plan", github, REVIEWED_CHECKSUM=checksum
    )
    assert applied.returncode == 0, applied.stdout
    assert "Apply complete" in applied.stdout
    check = "Check that the organization matches what was merged"
    checked = run("docform-apply.yml", "apply", check, github)
    assert checked.returncode == 0, checked.stdout


def test_a_status_someone_else_set_is_never_the_reviewed_checksum(github):
    post_status(github, "mallory", "success", f"checksum {'b' * 64}")
    found, outputs = find_checksum(github)
    assert found.returncode == 1
    assert found.stdout == (
        f"::error::pull request #7 has no docform/plan/manifests status by {BOT} on its last "
        f"commit {HEAD}, so no plan of it was reviewed: nothing applied.\n"
    )
    assert outputs == "pr=7\n"


def test_a_status_of_an_earlier_commit_of_the_pull_request_is_not_the_reviewed_one(github):
    record(github | {"HEAD_SHA": "e" * 40}, sha="e" * 40)
    found, _ = find_checksum(github)
    assert found.returncode == 1
    assert (
        f"has no docform/plan/manifests status by {BOT} on its last commit {HEAD}" in found.stdout
    )


@pytest.mark.parametrize("outcome", ["failure", "skipped"])
def test_a_plan_not_made_replaces_the_status_and_the_apply_refuses(github, outcome):
    """A plan of the same commit made again that breaks a safety rail (the Plan step fails),
    or not made at all (validation or the install failed, so the Plan step was skipped): the
    bot's newest status says so, and the earlier success no longer counts."""
    record(github)
    if outcome == "failure":
        break_the_deletion_rail(Path(github["CHECKOUT"]))
        assert plan_and_record(github) == 1
    else:
        record(github, "skipped")
    newest = statuses(github)[0]
    assert (newest["state"], newest["creator"]) == ("failure", {"login": BOT})
    found, outputs = find_checksum(github)
    assert found.returncode == 1
    assert found.stdout == (
        f"::error::the docform/plan/manifests status of pull request #7's last commit {HEAD} is "
        '"failure no plan was made for this commit: nothing can be applied", not a plan: '
        "nothing applied.\n"
    )
    assert "checksum=" not in outputs


# -- run by hand: a reviewed checksum, or an override that is logged ----------------------------


def dispatch(env: dict[str, str], checksum: str, **inputs: str):
    """The apply workflow's checksum step when run by hand with these inputs."""
    Path(env["GITHUB_OUTPUT"]).write_text("")
    summary = Path(env["GITHUB_OUTPUT"]).with_name("summary.md")
    more = {"EVENT": "workflow_dispatch", "APPROVED_CHECKSUM": checksum, "GITHUB_ACTOR": "maria"}
    more |= {"REVIEWED_IN": "", "OVERRIDE": "", "GITHUB_STEP_SUMMARY": str(summary), **inputs}
    done = run("docform-apply.yml", "apply", FIND_CHECKSUM, env, **more)
    written = summary.read_text(encoding="utf-8") if summary.exists() else ""
    return done, Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"), written


def test_a_manual_apply_takes_a_checksum_the_pull_request_given_reviewed(github):
    record(github)
    checksum = reviewed_checksum(github)
    done, outputs, _ = dispatch(github, checksum, REVIEWED_IN="7")
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs == f"pr=7\nchecksum={checksum}\n"

    other = "c" * 64
    done, outputs, _ = dispatch(github, other, REVIEWED_IN="7")
    assert done.returncode == 1
    assert done.stdout == (
        f"::error::pull request #7 reviewed the plan {checksum}, not {other}: nothing applied.\n"
    )
    assert outputs == ""


def test_a_manual_apply_of_an_unreviewed_plan_needs_a_reason_and_logs_it(github):
    checksum = "d" * 64
    done, outputs, _ = dispatch(github, checksum)
    assert done.returncode == 1
    assert done.stdout == (
        f"::error::a manual apply needs the pull request whose plan has checksum {checksum} "
        "(input pull-request) or, to apply a plan nobody reviewed, a reason (input override), "
        "which is logged: nothing applied.\n"
    )
    assert outputs == ""

    reason = "SAML certificate rotation, reviewed in the apply log of run 41\n::error::x"
    done, outputs, summary = dispatch(github, checksum, OVERRIDE=reason)
    assert done.returncode == 0, done.stderr
    flat = reason.replace("\n", "")
    assert done.stdout == (
        f"::warning::maria applies the plan {checksum}, which no pull request reviewed, "
        f"because: {flat}\n"
    )  # one line: the reason cannot start a workflow command of its own
    assert summary == (
        f"### docform apply: review overridden\n\nmaria applied the plan `{checksum}`, which "
        f"no pull request reviewed, because: {flat}\n\n"
    )
    assert outputs == f"checksum={checksum}\n"


def test_the_apply_job_runs_on_the_default_branch_only():
    import yaml

    workflow = yaml.safe_load(
        (EXAMPLE / ".github" / "workflows" / "docform-apply.yml").read_text(encoding="utf-8")
    )
    assert workflow["jobs"]["organizations"]["if"] == (
        "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)"
    )


def test_a_status_another_run_set_as_the_bot_is_not_the_reviewed_checksum(github):
    """Any run of a workflow with statuses: write sets statuses as the bot, on any commit of
    the repository: another branch's pull request can change the plan workflow to set a
    status of its choosing on this pull request's head. The apply takes the checksum only
    when the plan workflow's own run on that commit planned it (its artifact)."""
    record(github)
    checksum = reviewed_checksum(github)
    forged = "f" * 64
    post_status(github, BOT, "success", f"checksum {forged}")
    found, outputs = find_checksum(github)
    assert found.returncode == 1
    assert found.stdout == (
        f"::error::the docform/plan/manifests status of pull request #7's last commit {HEAD} says "
        f"checksum {forged}, but the plan workflow's run on that commit (42) planned "
        f"{checksum}: the status was set by another run, so what was reviewed is unknown; "
        "plan the pull request again: nothing applied.\n"
    )
    assert outputs == "pr=7\n"


def test_a_refused_apply_names_what_differs_from_the_plan_the_pull_request_reviewed(github):
    """The plan job keeps its plan.json in its artifact; the apply takes it from there (never
    from a file of the merge's own checkout) and hands it to docform, which names the hand
    change made after the review that the new plan would revert."""
    record(github)
    checksum = reviewed_checksum(github)
    found, _ = find_checksum(github)
    assert found.returncode == 0, found.stdout + found.stderr
    checkout = Path(github["CHECKOUT"])
    assert (checkout / "reviewed-plan.json").read_text() == (checkout / "plan.json").read_text()
    sandbox = Path(github["DOCFORM_API_URL"].removeprefix("sandbox:"))
    live_api(sandbox, "PATCH", "/orgs/org_acme/members/u_hannah", {"role": "admin"})
    applied = run(
        "docform-apply.yml", "apply", "Apply the reviewed plan", github, REVIEWED_CHECKSUM=checksum
    )
    assert applied.returncode == 1
    said = " ".join((checkout / "apply.txt").read_text().split())
    assert (
        "Compared with the reviewed plan (reviewed-plan.json): live objects changed since" in said
    )
    assert "member.hannah.berg@acme.test" in said
