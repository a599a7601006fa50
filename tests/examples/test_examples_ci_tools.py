"""The example repository's CI and pre-commit definitions, read by the tools a user's platform
applies to them: check-jsonschema with the GitHub and GitLab schemas it ships (no network),
pre-commit (`validate-config`, `validate-manifest`, `try-repo`), and the shell steps the CI
runs around docform (annotations, the job summary, paging through merge request notes), run in
bash. test_examples_workflows.py runs the docform lines of the same files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from click.testing import CliRunner
from pinned_release import is_next_release, pinned_tag, tag_commit

from docform.manifest import schema_text
from loopback import serving
from planning import run, seeded_sandbox

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"
WORKFLOWS = sorted((EXAMPLE / ".github" / "workflows").glob("*.yml"))
# docform's own CI on a schedule (make explore), linted by the same tools as the example's.
OWN_WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
READER_TOKEN = "tok_hannah_reader_0123456789"
ADMIN_TOKEN = "tok_ci_tools_admin_5e6f7a8b"


def tool(name: str, *args: Any, cwd: Path = ROOT, env: dict[str, str] | None = None):
    """A console script of this environment (installed with the dev dependencies)."""
    return subprocess.run(
        [str(BIN / name), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


# -- the platforms' schemas ----------------------------------------------------------------------


PLATFORM_SCHEMAS = {
    "vendor.github-workflows": WORKFLOWS + OWN_WORKFLOWS,
    "custom.github-workflows-require-timeout": WORKFLOWS + OWN_WORKFLOWS,
    "vendor.github-actions": [ROOT / "action.yml"],
    "vendor.gitlab-ci": [EXAMPLE / ".gitlab-ci.yml"],
}
"""The files each schema applies to, checked in one run (check-jsonschema names each file
that does not fit)."""


@pytest.mark.parametrize("schema", PLATFORM_SCHEMAS)
def test_ci_files_fit_the_schemas_of_their_platforms(schema: str):
    # check-jsonschema's own command, run in this process: its imports are made once, not
    # by a process for each schema.
    from check_jsonschema.cli.main_command import main as check_jsonschema

    files = PLATFORM_SCHEMAS[schema]
    assert files and all(path.is_file() for path in files)
    arguments = ["--builtin-schema", schema, *map(str, files)]
    done = CliRunner().invoke(check_jsonschema, arguments, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert done.stdout == "ok -- validation done\n"


def ci_shell_scripts() -> dict[str, str]:
    """Every shell script the example's CI runs, by where it is: each `run:` of the GitHub
    workflows and the action (expressions `${{ ... }}` made plain words), and each GitLab
    job's script after the helpers it uses."""
    scripts = {}
    for path in [*WORKFLOWS, ROOT / "action.yml"]:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        jobs = document.get("jobs") or {"runs": document["runs"]}
        for job_name, job in jobs.items():
            for number, step in enumerate(job["steps"]):
                if "run" in step:
                    script = re.sub(r"\$\{\{[^}]*\}\}", "EXPRESSION", step["run"])
                    scripts[f"{path.name}: {job_name}: step {number + 1}"] = script
    gitlab = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text(encoding="utf-8"))
    for job_name, job in gitlab.items():
        if isinstance(job, dict) and "script" in job:
            script = "\n".join([*job.get("before_script", []), *job["script"]])
            scripts[f".gitlab-ci.yml: {job_name}"] = script
            if "after_script" in job:
                scripts[f".gitlab-ci.yml: {job_name}: after"] = "\n".join(job["after_script"])
    return scripts


@pytest.mark.parametrize(("where", "script"), ci_shell_scripts().items())
def test_ci_shell_passes_shellcheck(where: str, script: str):
    done = subprocess.run(
        [str(BIN / "shellcheck"), "--severity=warning", "--shell=bash", "-"],
        input=script,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{where}\n{done.stdout}"


def test_ci_and_hook_files_pass_yamllint():
    files = [*WORKFLOWS, EXAMPLE / ".gitlab-ci.yml", EXAMPLE / ".pre-commit-config.yaml"]
    files += [ROOT / "action.yml", ROOT / ".pre-commit-hooks.yaml"]
    done = tool("yamllint", "--config-data", "relaxed", "--no-warnings", *files)
    assert (done.returncode, done.stdout) == (0, "")


def test_pre_commit_reads_the_hook_definition_and_the_example_config():
    manifest = tool("pre-commit", "validate-manifest", ".pre-commit-hooks.yaml")
    assert (manifest.returncode, manifest.stdout, manifest.stderr) == (0, "", "")
    config = tool("pre-commit", "validate-config", ".pre-commit-config.yaml", cwd=EXAMPLE)
    assert (config.returncode, config.stdout, config.stderr) == (0, "", "")


def test_the_pinned_release_has_this_hook_definition():
    """Every example file pins one release tag (pinned_release.py), whose hook definition
    pre-commit reads: this one."""
    shown = subprocess.run(
        ["git", "show", f"{pinned_revision()}:.pre-commit-hooks.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("manifests", "link"),
    [
        (EXAMPLE / "manifests", EXAMPLE / "schemas"),
        (ROOT / "examples" / "quickstart", ROOT / "examples" / "quickstart" / "schemas"),
    ],
    ids=["acme", "quickstart"],
)
def test_each_example_links_the_one_schema_that_its_manifests_point_to(manifests: Path, link: Path):
    """So that editors in an example read the generated schema, and a copy of the example
    (copytree follows the link) keeps the file itself."""
    schema = link / "docform.schema.json"
    assert schema.is_symlink()
    assert schema.resolve() == (ROOT / "schemas" / "docform.schema.json").resolve()
    # When this fails: make schema
    assert schema.read_text(encoding="utf-8") == schema_text()
    for manifest in manifests.glob("*.yaml"):
        first_line = manifest.read_text(encoding="utf-8").splitlines()[0]
        target = first_line.removeprefix("# yaml-language-server: $schema=")
        assert os.path.normpath(manifest.parent / target) == str(schema), manifest.name


def test_a_copied_example_holds_the_schema_itself(tmp_path: Path):
    copy = example_as_repository(tmp_path) / "schemas" / "docform.schema.json"
    assert not copy.is_symlink()
    assert copy.read_text(encoding="utf-8") == schema_text()


# -- pre-commit try-repo -----------------------------------------------------------------------


@pytest.fixture
def example_repository(tmp_path: Path) -> Path:
    return example_as_repository(tmp_path)


def example_as_repository(tmp_path: Path) -> Path:
    """A copy of examples/acme as a Git repository of its own, as a user would start one."""
    repository = tmp_path / "acme"
    shutil.copytree(EXAMPLE, repository)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.test"]
    subprocess.run([*git, "init", "--quiet"], cwd=repository, check=True)
    subprocess.run([*git, "add", "--all"], cwd=repository, check=True)
    subprocess.run([*git, "commit", "--quiet", "-m", "acme"], cwd=repository, check=True)
    return repository


@pytest.mark.network
def test_pre_commit_try_repo_runs_the_hook_on_the_example_layout(example_repository, tmp_path):
    """pre-commit installs docform at the revision the example pins, from this repository,
    into an environment of its own (that takes the package index, as it does for a user) and
    runs the hook with its default args."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("DOCFORM_API_URL", None)
    command = ["try-repo", ROOT, "docform-validate", "--ref", pinned_revision(), "--all-files"]
    passed = tool("pre-commit", *command, cwd=example_repository, env=env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "docform validate" in passed.stdout and "Passed" in passed.stdout

    (example_repository / "manifests" / "qa.yaml").write_text("teams: {qa: {titel: QA}}\n")
    failed = tool("pre-commit", *command, cwd=example_repository, env=env)
    assert failed.returncode == 1
    assert (
        "manifests/qa.yaml:1:14: teams.qa.titel: unknown key 'titel' (did you mean 'title'?)\n"
    ) in failed.stdout


# -- GitHub: the shell around docform ------------------------------------------------------------


def step(workflow: str, name: str, job: str = "plan") -> dict[str, Any]:
    document = yaml.safe_load((EXAMPLE / ".github" / "workflows" / workflow).read_text())
    return next(s for s in document["jobs"][job]["steps"] if s.get("name") == name)


def bash_step(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A GitHub `run:` step as the runner runs it (bash -e), with docform on the PATH."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed here (GitHub's runners have it)")
    full_env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=full_env, capture_output=True, text=True
    )


STALE_ADDRESS = "team.merged-away"


def left_stale(lock: Path) -> None:
    """Adds to ``lock`` the line of an entry the manifests do not hold, as a lock left in a
    checkout from before another merge would hold one: a lock made again by `docform pin`
    drops it, one carried over keeps it."""
    text = lock.read_text(encoding="utf-8")
    assert "\nids:\n" in text, text
    stale = f"\nids:\n  {STALE_ADDRESS}: t_merged_away\n"
    lock.write_text(text.replace("\nids:\n", stale, 1), encoding="utf-8")


def made_afresh(pushed: str) -> bool:
    """Whether a lock pushed after `left_stale` is one `docform pin` made again (it keeps the
    example's entries, never the stale line)."""
    return STALE_ADDRESS not in pushed and "team.platform:" in pushed


def test_github_validation_problems_become_annotations_on_their_lines(example_repository):
    (example_repository / "manifests" / "qa, 100%.yaml").write_text(
        "# a comment\nteams: {qa: {titel: QA}}\n"
    )
    done = bash_step(
        step("docform-plan.yml", "Validate the manifests")["run"],
        example_repository,
        {"MANIFESTS": "manifests"},
    )
    assert done.returncode == 1
    # In a property, "," ":" and "%" are escaped.
    assert done.stdout == (
        "::error file=manifests/qa%2C 100%25.yaml,line=2,col=14,title=docform "
        "validate::teams.qa.titel: unknown key 'titel' (did you mean 'title'?)\n"
    )


def test_github_fork_gets_the_validation_failure_in_the_job_summary(example_repository):
    (example_repository / "problems.json").write_text(
        json.dumps(
            [
                {
                    "file": "manifests/people.yaml",
                    "line": 3,
                    "column": 5,
                    "path": "teams.qa.titel",
                    "message": "unknown key 'titel' (did you mean 'title'?)",
                }
            ]
        )
    )
    summary = example_repository / "summary.md"
    env = {
        "FROM_FORK": "true",
        "VALIDATE_OUTCOME": "failure",
        "PLAN_OUTCOME": "skipped",
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/docs",
        "GITHUB_RUN_ID": "42",
        "PR": "7",
        "MANIFESTS": "manifests",
    }
    script = step(
        "docform-plan.yml",
        "Show the plan in the job summary and on the pull request (one comment, updated)",
    )["run"]
    done = bash_step(script, example_repository, env)
    assert done.returncode == 0, done.stderr
    assert summary.read_text(encoding="utf-8") == (
        "### docform plan: manifests\n\n:x: **The manifests are not valid**, so nothing was "
        "planned ([log](https://github.example/acme/docs/actions/runs/42)):\n\n```text\n"
        "manifests/people.yaml:3:5: teams.qa.titel: unknown key 'titel' (did you mean "
        "'title'?)\n```\n\n:warning: **Outdated**: no plan was made for the last commit, so "
        "no earlier plan of this pull request applies.\n"
    )


# -- GitLab: the plan note, found on any page ----------------------------------------------------


BOT_ID = 77


class FakeNotes(BaseHTTPRequestHandler):
    """GitLab's merge request notes API, newest first, 100 a page, with X-Next-Page; and
    ``/user``, the bot the token belongs to."""

    notes: ClassVar[list[dict[str, Any]]] = []
    tokens_seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        if self.path == "/api/v4/user":
            self.answer({"id": BOT_ID, "username": "project_7_bot"}, "")
            return
        query = parse_qs(urlsplit(self.path).query)
        assert urlsplit(self.path).path == "/api/v4/projects/7/merge_requests/3/notes"
        assert query["sort"] == ["desc"] and query["per_page"] == ["100"]
        page = int(query["page"][0])
        self.tokens_seen.append(self.headers["PRIVATE-TOKEN"])
        items = self.notes[(page - 1) * 100 : page * 100]
        self.answer(items, str(page + 1) if page * 100 < len(self.notes) else "")

    def answer(self, value: Any, next_page: str) -> None:
        body = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Next-Page", next_page)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def fake_gitlab() -> Iterator[str]:
    with serving(ThreadingHTTPServer(("127.0.0.1", 0), FakeNotes)) as root:
        yield f"{root}/api/v4"


def note(number: int, body: str, author: int = 5) -> dict[str, Any]:
    return {"id": number, "body": body, "author": {"id": author}}


def test_gitlab_finds_the_bots_plan_note_behind_hundreds_of_newer_notes(fake_gitlab, tmp_path):
    """Found by its marker AND its author: a note someone else wrote with the marker and a
    checksum (newer, on the first page) is not the plan note."""
    marker = "<!-- docform-plan -->"
    FakeNotes.notes = [note(1000 - n, f"looks good {n}") for n in range(250)]
    FakeNotes.notes.insert(3, note(990, f"{marker}\nPlan ... checksum `evil`"))
    FakeNotes.notes.insert(230, note(17, f"{marker}\nPlan ... checksum `abc`", author=BOT_ID))
    FakeNotes.tokens_seen = []
    helpers = yaml.safe_load((EXAMPLE / ".gitlab-ci.yml").read_text())[".gitlab-api"]
    env = {
        **os.environ,
        "CI_API_V4_URL": fake_gitlab,
        "CI_PROJECT_ID": "7",
        "GITLAB_API_TOKEN": "glpat-test",
        "PLAN_MARKER": marker,
    }
    for field, expected in [("id", "17\n"), ("body", f"{marker}\nPlan ... checksum `abc`\n")]:
        done = subprocess.run(
            ["bash", "-e", "-c", f"{helpers}\nplan_note 3 {field}"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert FakeNotes.tokens_seen == ["glpat-test"] * 6  # three pages, twice (and /user)


# -- the two tokens ------------------------------------------------------------------------------


def reader_sandbox(directory: Path) -> Path:
    """The example's sandbox, seeded with a token of a member who has the read role too (a
    user's token acts as that user; any other token, as an admin of every organization)."""
    seed = directory / "seed.yaml"
    reader = f"  - {{token: {READER_TOKEN}, user: u_hannah}}  # Hannah has the read role\n"
    seed.write_text((EXAMPLE / "sandbox-seed.yaml").read_text(encoding="utf-8") + reader)
    return seeded_sandbox(directory, seed)


def test_a_reader_token_plans_all_but_what_it_may_not_read_and_says_so(tmp_path: Path):
    """Least privilege: the plan token may be a reader's. The SAML providers, which only
    admins may read, are reported as not planned (exit 3 with --detailed-exitcode), apply
    refuses such a partial plan, an admin's token applies it whole, and drift with the
    reader's token says what it could not check."""
    sandbox = reader_sandbox(tmp_path)
    manifests = EXAMPLE / "manifests"
    planned = run(["plan", manifests, "--detailed-exitcode"], sandbox, READER_TOKEN)
    assert planned.exit_code == 3, planned.stderr
    assert (
        "Not planned: the token may not read these, so what they would change is unknown"
    ) in planned.stdout
    assert "  SAML providers: the token may not read them (GET /orgs/org_acme/saml failed: 403" in (
        planned.stdout
    )
    assert "saml.okta" not in planned.stdout
    assert "+ team.platform" in planned.stdout  # the rest is planned
    markdown = run(["plan", manifests, "--markdown"], sandbox, READER_TOKEN)
    assert markdown.exit_code == 0
    assert "> **Not planned: the token may not read these" in markdown.stdout
    refused = run(["apply", manifests, "--yes"], sandbox, READER_TOKEN)
    assert refused.exit_code == 1
    assert "nothing was applied: the token may not read everything" in refused.stderr
    applied = run(["apply", manifests, "--yes", "--no-lock-file"], sandbox, ADMIN_TOKEN)
    assert applied.exit_code == 0, applied.stderr
    drift = run(["drift", manifests, "--markdown"], sandbox, READER_TOKEN)
    assert drift.exit_code == 3, drift.stderr  # in sync in what it may read
    assert ": in sync, except what was not checked" in drift.stdout
    assert "> **Not checked: the token may not read these" in drift.stdout
    assert "> - SAML providers: the token may not read them" in drift.stdout
    admin = run(["plan", manifests, "--detailed-exitcode"], sandbox, ADMIN_TOKEN)
    assert admin.exit_code == 0, admin.stderr
    assert "Not planned" not in admin.stdout


# -- GitHub's own linters --------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["regular", "auditor"])
def test_workflows_and_action_pass_zizmor(persona: str):
    """zizmor, offline (no lookups of the pinned commits): nothing above informational, in
    its default persona and in the auditor's."""
    done = tool(
        "zizmor", "--offline", "--no-progress", "--persona", persona, "--min-severity", "low",
        "--config", ".github/zizmor.yml", ".github/workflows", ROOT / "action.yml", cwd=EXAMPLE,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report." in done.stdout


@pytest.mark.parametrize("persona", ["regular", "auditor"])
def test_own_workflows_pass_zizmor(persona: str):
    """docform's own scheduled CI, every action pinned by commit (no configuration)."""
    done = tool(
        "zizmor", "--offline", "--no-progress", "--persona", persona, "--min-severity", "low",
        ".github/workflows",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report." in done.stdout


def test_own_ci_explores_the_property_tests_on_a_schedule():
    """The scheduled job's command is `make explore`, and make resolves it to the random
    exploration (the explore profile, the number of examples it asks for)."""
    assert [path.name for path in OWN_WORKFLOWS] == ["explore.yml"]
    document = yaml.safe_load(OWN_WORKFLOWS[0].read_text(encoding="utf-8"))
    assert document[True]["schedule"], "explore.yml runs on a schedule"
    commands = [step["run"] for step in document["jobs"]["explore"]["steps"] if "run" in step]
    assert commands == ["make explore EXPLORE_EXAMPLES=2000"]
    dry = subprocess.run(
        ["make", "-n", *commands[0].split()[1:]],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    assert "DOCFORM_FUZZ_EXAMPLES=2000" in dry.stdout
    assert "--hypothesis-profile=explore" in dry.stdout


# -- the pinned docform runs the example -----------------------------------------------------


def pinned_revision() -> str:
    """The commit of the release the examples pin; until that release is cut (the version
    after the current one), this checkout's HEAD, which it is cut from."""
    tag = pinned_tag()
    commit = tag_commit(tag)
    if commit is None:
        assert is_next_release(tag), f"the examples pin {tag}, which is not a release"
        return "HEAD"
    return commit


# -- GitHub: the apply's queue (what it trusts: test_examples_ci_github_status.py) --------

FAKE_GH_API = r"""#!/bin/bash
# gh as docform-apply.yml calls it: `gh api PATH --jq EXPR` and `gh run list ... --jq EXPR`
# answer the JSON in $ANSWERS/<PATH with / as _>.json (for `run list`: run-list-N.json, N the
# call's number, the last one repeated), through the real jq.
previous="" jq="" path=""
for argument in "$@"; do
  if [ "$previous" = --jq ]; then jq="$argument"; fi
  case "$argument" in repos/*) path="${argument//\//_}" ;; esac
  previous="$argument"
done
if [ "$1 $2" = "run list" ]; then
  echo x >> "$ANSWERS/calls"
  n="$(wc -l < "$ANSWERS/calls")"
  while [ ! -e "$ANSWERS/run-list-$n.json" ]; do n=$((n - 1)); done
  path="run-list-$n"
fi
jq -r "$jq" "$ANSWERS/$path.json"
"""


def apply_step(name: str) -> str:
    return step("docform-apply.yml", name, job="apply")["run"]


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    """GitHub's answers for the fake gh, and gh (and sleep, made instant) on the PATH."""
    folder = tmp_path / "answers"
    folder.mkdir()
    standins = tmp_path / "standins"
    standins.mkdir()
    for name, script in (("gh", FAKE_GH_API), ("sleep", "#!/bin/sh\nexit 0\n")):
        (standins / name).write_text(script, encoding="utf-8")
        (standins / name).chmod(0o755)
    return folder


def answer(folder: Path, path: str, value: Any) -> None:
    (folder / (path.replace("/", "_") + ".json")).write_text(json.dumps(value))


APPLY_JOB = {"name": "Apply manifests", "status": "in_progress"}
LISTING_JOB = {"name": "List the organizations this merge touches", "status": "in_progress"}


def jobs(folder: Path, run: int, *listed: dict[str, str]) -> None:
    answer(folder, f"repos/acme/docs/actions/runs/{run}/jobs", {"jobs": list(listed)})


def queue_env(answers: Path, attempt: str) -> dict[str, str]:
    return {
        "PATH": f"{answers.parent / 'standins'}{os.pathsep}{os.environ['PATH']}",
        "ANSWERS": str(answers),
        "GITHUB_REPOSITORY": "acme/docs",
        "GITHUB_RUN_ID": "30",
        "GITHUB_RUN_ATTEMPT": attempt,
        "GITHUB_SHA": "abc123",
        "MANIFESTS": "manifests",
        "JOB": "Apply manifests",
        "LISTING": "List the organizations this merge touches",
    }


def test_github_apply_waits_for_every_earlier_apply_of_its_organization_then_runs(answers):
    """A queue per organization, not `concurrency`: run 30 waits while 28 applies this
    organization or 29 is still listing what it will apply, whatever the order they finish
    in; never for 27, which applies another organization only, nor for a later run (31)."""
    answer(answers, "run-list-1", [
        {"databaseId": 27, "status": "in_progress"}, {"databaseId": 28, "status": "in_progress"},
        {"databaseId": 29, "status": "queued"}, {"databaseId": 31, "status": "queued"},
    ])  # fmt: skip
    answer(answers, "run-list-2", [
        {"databaseId": 27, "status": "in_progress"}, {"databaseId": 28, "status": "completed"},
        {"databaseId": 29, "status": "in_progress"},
    ])  # fmt: skip
    answer(answers, "run-list-3", [
        {"databaseId": 27, "status": "in_progress"}, {"databaseId": 29, "status": "completed"},
        {"databaseId": 31, "status": "waiting"},
    ])  # fmt: skip
    done_listing = LISTING_JOB | {"status": "completed"}
    jobs(answers, 27, done_listing, APPLY_JOB | {"name": "Apply organizations/globex"})
    jobs(answers, 28, done_listing, APPLY_JOB)
    jobs(answers, 29, LISTING_JOB)
    done = bash_step(
        apply_step("Wait for the applies of earlier merges"), answers, queue_env(answers, "1")
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "Waiting for 2 earlier apply run(s) of manifests to finish.\n"
        "Waiting for 1 earlier apply run(s) of manifests to finish.\n"
    )


@pytest.mark.parametrize("later", ["same-organization", "other-organization", "newest"])
def test_github_refuses_a_re_run_of_an_apply_that_a_later_apply_followed(answers, later):
    """A re-run keeps its run's id: re-running the apply of run 30 after run 31 applied a
    later merge to the same organization would apply 30's older commit over it. A later run
    that applied other organizations only changes nothing, and the re-run of the newest
    apply waits for earlier runs as a first run does."""
    runs = [{"databaseId": 29, "status": "completed"}, {"databaseId": 30, "status": "in_progress"}]
    if later != "newest":
        runs.append({"databaseId": 31, "status": "completed"})
        other = APPLY_JOB | {"name": "Apply organizations/globex"}
        jobs(answers, 31, APPLY_JOB if later == "same-organization" else other)
    answer(answers, "run-list-1", runs)
    done = bash_step(
        apply_step("Wait for the applies of earlier merges"), answers, queue_env(answers, "2")
    )
    if later == "same-organization":
        assert done.returncode == 1
        assert done.stdout == (
            "::error::this is a re-run (attempt 2) of the apply of manifests at abc123, which 1 "
            "later apply run(s) of it followed: applying it again would undo what they applied. "
            "Nothing applied. To apply main as it is now, run this workflow by hand "
            "(docs/ci.md).\n"
        )
    else:
        assert (done.returncode, done.stdout) == (0, "")


# -- GitHub: one drift job per organization ------------------------------------------------------


def test_github_drift_checks_each_folder_of_manifests_in_a_job_of_its_own(example_repository):
    """The matrix is the folders holding an organization.yaml, whatever their depth; each
    organization's issue is found by its title, which names its folder."""
    for name in ["globex", "initech"]:
        folder = example_repository / "organizations" / name
        folder.mkdir(parents=True)
        (folder / "organization.yaml").write_text(f"organization: {{id: org_{name}}}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.test"]
    subprocess.run([*git, "add", "--all"], cwd=example_repository, check=True)
    outputs = example_repository / "github-output"
    listed = bash_step(
        step("docform-drift.yml", "List the folders of manifests", "organizations")["run"],
        example_repository,
        {"GITHUB_OUTPUT": str(outputs)},
    )
    assert listed.returncode == 0, listed.stderr
    folders = ["manifests", "organizations/globex", "organizations/initech"]
    assert outputs.read_text() == f"folders={json.dumps(folders, separators=(',', ':'))}\n"
    document = yaml.safe_load((EXAMPLE / ".github/workflows/docform-drift.yml").read_text())
    job = document["jobs"]["drift"]
    assert job["strategy"]["matrix"] == {
        "manifests": "${{ fromJSON(needs.organizations.outputs.folders) }}"
    }
    assert job["concurrency"]["group"] == "docform-drift-${{ matrix.manifests }}"
    assert job["env"] == {"MANIFESTS": "${{ matrix.manifests }}"}
    issue = step("docform-drift.yml", "Open or update the drift issue", "drift")["run"]
    assert 'title="docform: the live organization of $MANIFESTS drifted from main"' in issue
