"""The example GitOps repository (examples/acme) works: its manifests validate, and the exact
`docform ...` lines of its CI files (GitHub workflows, GitLab CI, the composite action, the
pre-commit hook) run against a sandbox seeded from its sandbox-seed.yaml, in the order a pull
request, its merge and the scheduled drift check would run them.

Command lines are read from the files, not copied here, so an example that stops working
fails this test. The line grammar understood is deliberately small (`docform ARGS`,
`> FILE`, `|| status=$?`, `"$VARIABLE"`); anything else fails, so the CI files stay plain.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from remembered_docform import distinct_inputs, docform_calls, real_runs, remembered_docform
from test_examples_ci_tools import left_stale, made_afresh

from canary import CANARY_TOKEN
from planning import copy_sandbox, in_ui, live_api, plan_json, run, seeded_sandbox, write_manifests

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
WORKFLOWS = EXAMPLE / ".github" / "workflows"
CHECKSUM_IN_MARKDOWN = re.compile(r"checksum `([0-9a-f]{64})`")
EVENT_CONDITION = re.compile(r"github\.event_name == '(\w+)'")
TOLERANT = ["||", "status=$?"]


@dataclass
class Command:
    """One `docform` line of a CI file, where it came from, and how it is run."""

    source: str
    line: str
    args: list[str]
    stdout_file: str | None = None
    tolerant: bool = False  # `|| status=$?`: a non-zero exit is the script's to handle


def parse_line(source: str, line: str, variables: dict[str, str]) -> Command:
    tokens = shlex.split(line)
    assert tokens[0] == "docform", line
    command = Command(source, line, [])
    rest = tokens[1:]
    if rest[-2:] == TOLERANT:
        command.tolerant, rest = True, rest[:-2]
    if rest[-1:] == ["2>&1"]:
        rest = rest[:-1]
    if len(rest) >= 2 and rest[-2] == ">":
        command.stdout_file, rest = rest[-1], rest[:-2]
    for token in rest:
        assert not set(token) & set("<>|;&`"), f"{source}: shell syntax not understood: {line}"
        if token.startswith("${") and token.endswith("[@]}"):  # a bash array: its words
            command.args += variables.get(token[2:-1], "").split()
            continue
        if token.startswith("$"):
            name = token.strip("${}")
            assert name in variables, f"{source}: unknown variable {token} in {line!r}"
            token = variables[name]
        command.args.append(token)
    return command


def docform_lines(script: str) -> list[str]:
    """The `docform` lines of a shell script, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("docform ")]


def is_docform_action(step: dict[str, Any]) -> bool:
    return "/docform@" in step.get("uses", "")


def workflow(name: str) -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(document: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the key `on` as the boolean True.
    return document.get("on", document.get(True))


def github_commands(name: str, event: str, variables: dict[str, str] | None = None) -> list:
    """The docform commands of workflow ``name`` that run on ``event``, in order, for the
    example's one organization (its matrix jobs' MANIFESTS)."""
    variables = {"MANIFESTS": "manifests", **(variables or {})}
    document = workflow(name)
    assert event in triggers(document), f"{name} does not run on {event}"
    found = []
    for job_name, job in document["jobs"].items():
        for step in job["steps"]:
            wanted = EVENT_CONDITION.findall(step.get("if", ""))
            if wanted and event not in wanted:
                continue
            source = f"{name}: {job_name}: {step.get('name', step.get('uses'))}"
            lines = docform_lines(step.get("run", ""))
            if is_docform_action(step) and step.get("with", {}).get("command"):
                lines.append(f"docform {step['with']['command']}")
            found += [parse_line(source, line, variables) for line in lines]
    return found


def gitlab_ci() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))


def gitlab_commands(job: str, variables: dict[str, str] | None = None) -> list[Command]:
    """The docform commands of GitLab job ``job``, for the example's one organization."""
    variables = {"MANIFESTS": "manifests", **(variables or {})}
    script = "\n".join(gitlab_ci()[job]["script"])
    return [parse_line(f".gitlab-ci.yml: {job}", line, variables) for line in docform_lines(script)]


def execute(commands: list[Command], sandbox: Path) -> list[int]:
    """Run each command as the CI would (stdout redirected where the line says); a command
    whose failure the script does not handle must exit 0. Returns the exit codes."""
    codes = []
    for command in commands:
        result = run(command.args, sandbox)
        assert not isinstance(result.exception, (AssertionError, TypeError, KeyError)), (
            f"{command.source}: {command.line} crashed: {result.exception!r}"
        )
        if command.stdout_file:
            Path(command.stdout_file).write_text(result.stdout, encoding="utf-8")
        if not command.tolerant:
            assert result.exit_code == 0, f"{command.source}: {command.line}\n{result.output}"
        codes.append(result.exit_code)
    return codes


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout of the example repository; the CI commands run in its root."""
    checkout = tmp_path / "acme"
    shutil.copytree(EXAMPLE, checkout)
    monkeypatch.chdir(checkout)
    return checkout


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    return seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")


def lock_live_space(sandbox: Path, title: str, edit_mode: str) -> None:
    """Someone changes a space in the UI."""
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces?limit=1000")["items"]
    space = next(s for s in spaces if s["title"] == title)
    live_api(sandbox, "PATCH", f"/spaces/{space['id']}", {"editMode": edit_mode})


def test_example_manifests_validate():
    result = run(["validate", EXAMPLE / "manifests"], EXAMPLE / "unused.sqlite")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Valid: 1 organization, 20 members, 5 teams, 8 collections, 15 spaces, 2 sites, "
        "2 section groups, 4 sections, 7 site spaces, 3 redirects, 2 OpenAPI specs, "
        "1 SAML provider in 6 files.\n"
    )


def test_github_pull_request_then_merge_then_schedule(repo, sandbox):
    # Pull request: validate, plan as Markdown with the saved plan beside it.
    execute(github_commands("docform-plan.yml", "pull_request"), sandbox)
    comment = Path("plan.md").read_text(encoding="utf-8")
    created = re.search(r"(\d+) to create, (\d+) to update, (\d+) to delete", comment)
    assert created and int(created.group(1)) > 0 and int(created.group(3)) == 1, comment
    assert "member.~u_dan" in comment and "<details><summary>Structure" in comment
    reviewed = CHECKSUM_IN_MARKDOWN.search(comment)
    assert reviewed, "the comment must show the checksum the apply reads from it"

    # Merge to main: the plan with the reviewed checksum is applied, docform.lock is pinned,
    # and a new plan finds nothing to do.
    merged = github_commands("docform-apply.yml", "push", {"REVIEWED_CHECKSUM": reviewed.group(1)})
    assert [c.args[0] for c in merged] == ["apply", "plan", "pin"]
    execute(merged, sandbox)

    # Schedule: in sync, then drift after someone unlocks a space in the UI.
    drift = github_commands("docform-drift.yml", "schedule", {"MANIFESTS": "manifests"})
    assert execute(drift, sandbox)[-1] == 0
    lock_live_space(sandbox, "Ledger", "live")
    assert execute(drift, sandbox)[-1] == 2
    assert "space.ledger" in Path("drift.md").read_text(encoding="utf-8")

    # By hand: a reviewer approves the plan that repairs it, by its checksum.
    approved = plan_json(repo / "manifests", sandbox)["checksum"]
    dispatch = github_commands(
        "docform-apply.yml", "workflow_dispatch", {"REVIEWED_CHECKSUM": approved}
    )
    assert any("--checksum" in c.args for c in dispatch)
    execute(dispatch, sandbox)
    assert execute(drift, sandbox)[-1] == 0


def test_github_apply_refuses_a_checksum_nobody_reviewed(repo, sandbox):
    dispatch = github_commands(
        "docform-apply.yml", "workflow_dispatch", {"REVIEWED_CHECKSUM": "0" * 64}
    )
    apply_line = next(c for c in dispatch if "--checksum" in c.args)
    result = run(apply_line.args, sandbox)
    assert result.exit_code == 1
    assert "not the approved " + "0" * 64 in result.output
    assert run(["plan", "manifests", "--detailed-exitcode"], sandbox).exit_code == 2


def test_gitlab_merge_request_then_merge_then_schedule(repo, sandbox):
    execute(gitlab_commands("validate") + gitlab_commands("plan"), sandbox)
    reviewed = CHECKSUM_IN_MARKDOWN.search(Path("plan.md").read_text(encoding="utf-8"))
    assert reviewed, "the merge request note must show the checksum the apply job reads"

    execute(gitlab_commands("apply", {"REVIEWED_CHECKSUM": reviewed.group(1)}), sandbox)

    drift = gitlab_commands("drift", {"MANIFESTS": "manifests"})
    assert execute(drift, sandbox) == [0]
    lock_live_space(sandbox, "Engineering handbook", "locked")
    assert execute(drift, sandbox) == [2]


def test_every_apply_runs_one_at_a_time_in_order():
    apply_workflow = workflow("docform-apply.yml")
    # One group for all applies would cancel a waiting run when a third arrives: the group is
    # per commit, never cancelling, and the first step waits for every earlier run.
    assert apply_workflow["concurrency"] == {
        "group": "docform-apply-${{ github.sha }}",
        "cancel-in-progress": False,
    }
    first = apply_workflow["jobs"]["apply"]["steps"][0]
    assert first["name"] == "Wait for the applies of earlier merges"
    # Each organization is its own queue.
    assert gitlab_ci()["apply"]["resource_group"] == "docform-apply-$MANIFESTS"
    assert gitlab_ci()["apply-approved"]["resource_group"] == "docform-apply-$MANIFESTS"


def test_gitlab_apply_refuses_a_plan_that_changed_since_review_then_the_manual_job_applies_it(
    repo, sandbox
):
    execute(gitlab_commands("plan"), sandbox)
    reviewed = CHECKSUM_IN_MARKDOWN.search(Path("plan.md").read_text(encoding="utf-8"))
    assert reviewed
    # Meanwhile someone changed a role in the UI, and another merge request added a team.
    live_api(sandbox, "PATCH", "/orgs/org_acme/members/u_hannah", {"role": "admin"})
    write_manifests(repo / "manifests", "teams: {qa: {title: QA}}\n", name="qa.yaml")
    apply_job = gitlab_commands("apply", {"REVIEWED_CHECKSUM": reviewed.group(1)})
    assert execute(apply_job[:1], sandbox) == [1]
    assert run(["plan", "manifests", "--detailed-exitcode"], sandbox).exit_code == 2

    approved = plan_json(repo / "manifests", sandbox)["checksum"]
    execute(gitlab_commands("apply-approved", {"APPROVED_CHECKSUM": approved}), sandbox)


def github_tokens() -> dict[str, tuple[str, str | None]]:
    """Per job of every workflow: the secret its DOCFORM_API_TOKEN comes from, and the job's
    environment."""
    found = {}
    for path in WORKFLOWS.glob("*.yml"):
        for name, job in workflow(path.name)["jobs"].items():
            envs = [job.get("env", {})] + [step.get("env", {}) for step in job["steps"]]
            for env in envs:
                if "DOCFORM_API_TOKEN" in env:
                    found[f"{path.name}: {name}"] = (
                        env["DOCFORM_API_TOKEN"],
                        job.get("environment"),
                    )
    return found


@pytest.fixture
def applied(repo: Path, tmp_path: Path, acme_applied_once: tuple[Path, Path]) -> Path:
    """The organization as an apply of the checkout leaves it (the example applied, arranged
    once per test process: a copy of its sandbox, and the docform.lock that apply wrote put
    in the checkout); the sandbox's path."""
    applied_manifests, applied_sandbox = acme_applied_once
    shutil.copy(applied_manifests / "docform.lock", repo / "manifests" / "docform.lock")
    (tmp_path / "applied").mkdir()
    return copy_sandbox(applied_sandbox, tmp_path / "applied")


def hand_change_then_adopt(sandbox: Path, adopt: list[Command]) -> str:
    """In the organization the checkout was applied to, Maria (an admin) unlocks the Ledger
    space in the UI; the adopt commands run; returns the description they wrote."""
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces?limit=1000")["items"]
    ledger = next(s for s in spaces if s["title"] == "Ledger")
    change = {"editMode": "live"}
    in_ui(sandbox, "maria.garcia@acme.test", "PATCH", f"/spaces/{ledger['id']}", change)
    before = {p: p.read_text(encoding="utf-8") for p in Path("manifests").glob("*.yaml")}
    assert execute(adopt, sandbox) == [0] * len(adopt)
    changed = [p for p, text in before.items() if p.read_text(encoding="utf-8") != text]
    assert len(changed) == 1, changed
    assert "editMode: live" in changed[0].read_text(encoding="utf-8")
    assert run(["plan", "manifests", "--detailed-exitcode"], sandbox).exit_code == 0
    return Path("adopt.md").read_text(encoding="utf-8")


def test_github_adopts_a_change_made_in_the_ui_naming_who_made_it(applied):
    description = hand_change_then_adopt(applied, github_commands("docform-adopt.yml", "schedule"))
    assert "changed outside the manifests by Maria Garcia (maria.garcia@acme.test)" in description
    assert "`space.ledger`: wrote editMode" in description


def test_gitlab_adopts_a_change_made_in_the_ui_naming_who_made_it(applied):
    description = hand_change_then_adopt(applied, gitlab_commands("adopt"))
    assert "by Maria Garcia (maria.garcia@acme.test)" in description


def test_github_gives_the_admin_token_only_to_the_protected_apply_job():
    assert github_tokens() == {
        "docform-apply.yml: apply": ("${{ secrets.DOCFORM_APPLY_TOKEN }}", "production"),
        "docform-plan.yml: plan": ("${{ secrets.DOCFORM_PLAN_TOKEN }}", "docform-read"),
        "docform-drift.yml: drift": ("${{ secrets.DOCFORM_PLAN_TOKEN }}", "docform-read"),
        # The audit log, which names who made each change, is an admin's to read.
        "docform-adopt.yml: adopt": ("${{ secrets.DOCFORM_AUDIT_TOKEN }}", "docform-audit"),
    }


def test_github_gives_secrets_only_to_the_steps_that_use_them():
    for path in WORKFLOWS.glob("*.yml"):
        document = workflow(path.name)
        assert "secrets." not in str(document.get("env", {})), path.name
        for name, job in document["jobs"].items():
            assert "secrets." not in str(job.get("env", {})), f"{path.name}: {name}"
            for step in job["steps"]:
                if "secrets." in str(step.get("env", {})):
                    assert "docform " in step.get("run", ""), f"{path.name}: {step.get('name')}"


def test_gitlab_gives_plans_the_plan_token_and_only_applies_the_protected_one():
    ci = gitlab_ci()
    for job in ("plan", "drift"):
        assert ci[job]["variables"]["DOCFORM_API_TOKEN"] == "$DOCFORM_PLAN_TOKEN", job
    for job in ("apply", "apply-approved"):
        assert ci[job]["variables"]["DOCFORM_API_TOKEN"] == "$DOCFORM_APPLY_TOKEN", job
        assert ci[job]["environment"] == "production", job
    assert ci["adopt"]["variables"]["DOCFORM_API_TOKEN"] == "$DOCFORM_AUDIT_TOKEN"
    assert ci["adopt"]["environment"] == "docform-audit"


def test_no_token_is_ever_printed():
    for path in [*WORKFLOWS.glob("*.yml"), EXAMPLE / ".gitlab-ci.yml", ROOT / "action.yml"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"echo|printf|cat ", line):
                assert "TOKEN" not in line, f"{path.name}: {line.strip()}"


def test_pre_commit_hook_validates_the_manifests(repo, sandbox):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    config = yaml.safe_load(Path(".pre-commit-config.yaml").read_text(encoding="utf-8"))
    (used,) = config["repos"][0]["hooks"]
    assert used["id"] == hook["id"] and not hook["pass_filenames"]
    line = shlex.join([*shlex.split(hook["entry"]), *used.get("args", hook["args"])])
    execute([parse_line(".pre-commit-hooks.yaml", line, {})], sandbox)


def action_step(step_id: str) -> dict[str, Any]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return next(s for s in action["runs"]["steps"] if s.get("id") == step_id)


def run_action(
    repo: Path, sandbox: Path, command: str, allowed: str, docform: dict[str, str]
) -> tuple[int, str, str]:
    """The action's run step, in bash, with ``docform`` (the PATH that finds it and what it
    needs)."""
    output = repo / "github-output"
    output.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        **docform,
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_COMMAND": command,
        "ALLOWED_EXIT_CODES": allowed,
        "STDOUT_FILE": "",
        "GITHUB_OUTPUT": str(output),
        "NO_COLOR": "1",
    }
    env.pop("DOCFORM_API_TOKEN", None)
    script = action_step("run")["run"]
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True
    )
    return done.returncode, output.read_text(encoding="utf-8"), done.stdout


def test_action_passes_allowed_exit_codes_and_reports_them(sandbox, tmp_path):
    # A one-line manifest keeps docform quick. The step runs the same command on the same
    # manifests twice, only its allowed exit codes changed: the second run is what the real
    # docform's first gave (remembered_docform).
    repo = tmp_path / "small"
    write_manifests(repo / "manifests", "organization: {id: org_acme, title: Acme Renamed}\n")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    docform = remembered_docform({"PATH": path}, tmp_path)
    command = "plan manifests --detailed-exitcode"
    code, outputs, _ = run_action(repo, sandbox, command, "0 2", docform)
    assert (code, outputs) == (0, "exit-code=2\n")
    code, outputs, stdout = run_action(repo, sandbox, command, "0", docform)
    assert (code, outputs) == (2, "exit-code=2\n")
    assert f"::error::docform {command} exited with 2" in stdout
    assert docform_calls(docform) == [command] * 2 and real_runs(docform) == 1


def git(*args: str) -> str:
    result = subprocess.run(["git", *args], capture_output=True, text=True, check=True)
    return result.stdout.strip()


WRITE_BACK = "Write docform.lock back to main"


def write_back_step() -> str:
    steps = workflow("docform-apply.yml")["jobs"]["apply"]["steps"]
    return next(step["run"] for step in steps if step.get("name") == WRITE_BACK)


@pytest.fixture
def origin(
    repo: Path, tmp_path: Path, acme_applied_once: tuple[Path, Path]
) -> tuple[Path, Path, dict[str, str]]:
    """main of the example on a bare repository standing in for GitHub; the organization as
    the apply job's apply step leaves it (the example applied, arranged once per test process:
    a copy of its sandbox, and the docform.lock that apply wrote in the checkout); and the
    environment the write-back step gets (its https remote mapped onto the bare repository)."""
    bare = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    git("init", "--quiet", "--initial-branch=main")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "manifests")
    git("push", "--quiet", str(bare), "main")
    applied_manifests, applied_sandbox = acme_applied_once
    shutil.copy(applied_manifests / "docform.lock", repo / "manifests" / "docform.lock")
    (tmp_path / "applied").mkdir()
    sandbox = copy_sandbox(applied_sandbox, tmp_path / "applied")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_API_TOKEN": CANARY_TOKEN,
        "NO_COLOR": "1",
        "GITHUB_SHA": git("rev-parse", "HEAD"),
        "GITHUB_REF_NAME": "main",
        "MANIFESTS": "manifests",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/docs",
        "PUSH_TOKEN": "ghs_push_token",
        "RETRY_SECONDS": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{bare}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://x-access-token:ghs_push_token@github.example/acme/docs.git",
    }
    return bare, sandbox, env


def another_merge(bare: Path, tmp_path: Path) -> str:
    """Someone else's merge lands on main meanwhile (a new team): its commit."""
    other = tmp_path / "other"
    git("clone", "--quiet", str(bare), str(other))
    write_manifests(other / "manifests", "teams: {qa: {title: QA}}\n", name="qa.yaml")
    git("-C", str(other), "add", ".")
    git("-C", str(other), "-c", "user.name=o", "-c", "user.email=o@o", "commit", "-qm", "qa")
    git("-C", str(other), "push", "--quiet", "origin", "main")
    return git("-C", str(other), "rev-parse", "HEAD")


def reject_pushes(bare: Path, times: int | None) -> None:
    """GitHub refuses the next ``times`` pushes (None: every one), as when another push
    came first or a protected branch does not let the bot push."""
    hook = bare / "hooks" / "pre-receive"
    count = bare / "rejected"
    limit = "" if times is None else f'[ "$(wc -l < {count})" -gt {times} ] && exit 0\n'
    hook.write_text(f"#!/bin/sh\necho x >> {count}\n{limit}echo rejected >&2\nexit 1\n")
    hook.chmod(0o755)


def test_github_writes_docform_lock_back_pinned_on_the_newest_main(repo, origin, tmp_path):
    bare, sandbox, env = origin
    newest = another_merge(bare, tmp_path)
    # The lock is made again on the newest main, never the checkout's carried over.
    left_stale(repo / "manifests" / "docform.lock")

    done = subprocess.run(["bash", "-e", "-c", write_back_step()], env=env, text=True,
                          capture_output=True)  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr
    assert git("--git-dir", str(bare), "log", "-1", "--format=%s %an %P") == (
        f"manifests/docform.lock: live objects after applying {env['GITHUB_SHA']} [skip ci] "
        f"github-actions[bot] {newest}"
    )
    assert git("--git-dir", str(bare), "show", "--name-only", "--format=", "main") == (
        "manifests/docform.lock"
    )
    pushed = git("--git-dir", str(bare), "show", "main:manifests/docform.lock")
    assert made_afresh(pushed), pushed
    again = subprocess.run(["bash", "-e", "-c", write_back_step()], env=env, text=True,
                           capture_output=True)  # fmt: skip
    assert "docform.lock on main is current." in again.stdout
    assert git("--git-dir", str(bare), "rev-list", "--count", "main") == "3"
    content = repo / "manifests" / "content.yaml"
    text = content.read_text(encoding="utf-8").replace("title: Help center,", "title: Help Center,")
    content.write_text(text.replace("parent: product}", "parent: company}"), encoding="utf-8")
    summary = plan_json(repo / "manifests", sandbox)["summary"]
    # The other merge's team is for its own apply to create.
    assert (summary["create"], summary["delete"], summary["move"]) == (1, 0, 1)


@pytest.fixture(scope="module")
def pins_on_main(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What remembered_docform keeps for the tests below whose pushes are rejected: each pins
    main as the apply left it (`origin`, unchanged), with the apply's docform.lock, then
    without it after the rejection, and gets back what the real docform gave the first test
    that pinned the same input: their claim is the step's loop."""
    return tmp_path_factory.mktemp("pins-on-main")


def test_github_write_back_pins_again_when_another_push_came_first(
    repo, origin, tmp_path, pins_on_main
):
    bare, _, env = origin
    reject_pushes(bare, times=1)
    env = remembered_docform(env, tmp_path, pins_on_main)
    done = subprocess.run(["bash", "-e", "-c", write_back_step()], env=env, text=True,
                          capture_output=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Another push came first; pinning again on the newest main." in done.stdout
    assert "docform.lock" in git("--git-dir", str(bare), "log", "-1", "--format=%s")
    assert docform_calls(env) == ["pin manifests"] * 2 and distinct_inputs(env) == 2


def test_github_write_back_fails_loudly_when_it_cannot_push(repo, origin, tmp_path, pins_on_main):
    bare, _, env = origin
    reject_pushes(bare, times=None)
    # Each attempt pins the same main again: only two inputs (with the apply's docform.lock,
    # then without it).
    env = remembered_docform(env, tmp_path, pins_on_main)
    done = subprocess.run(["bash", "-e", "-c", write_back_step()], env=env, text=True,
                          capture_output=True)  # fmt: skip
    assert done.returncode == 1
    assert (
        "::error::docform.lock could not be pushed to main after 5 attempts; run docform pin "
        "manifests on it and commit the result."
    ) in done.stdout
    assert docform_calls(env) == ["pin manifests"] * 5 and distinct_inputs(env) == 2
    assert (bare / "rejected").read_text().splitlines() == ["x"] * 5
