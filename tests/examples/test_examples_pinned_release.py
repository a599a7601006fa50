"""Every job of the example CI runs under the docform release the examples pin (installed
from this repository's tag: pinned_release.py), against the service: the sandbox of this
checkout, served over HTTP as the real one would be. A pin of a release that lacks what the
jobs rely on fails here (issue 43: a pinned docform that said "No drift" for a SAML provider
changed by hand, which the read-role token may not read, closed the drift issue).

The docform lines are read from the CI files (test_examples_workflows.py's reader), run with
the token each job holds: the plan's and drift's a reader's, the apply's and adopt's an
admin's. Both CI systems' jobs run in one organization, stage by stage; a GitLab line that
is word for word a GitHub line of the same stage is run once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pinned_release import pinned_docform, pinned_tag
from test_examples_ci_tools import READER_TOKEN, reader_sandbox
from test_examples_workflows import CHECKSUM_IN_MARKDOWN, Command, github_commands, gitlab_commands

from planning import SERVE_TOKEN, copy_sandbox, in_ui, live_api, served_in_thread

EXAMPLE = Path(__file__).parents[2] / "examples" / "acme"
ADMIN = SERVE_TOKEN


@pytest.fixture(scope="session")
def pinned_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pinned_docform(tmp_path_factory)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The example's organization as the service holds it before docform (a reader's token
    known too), served over HTTP: its root URL and its database."""
    sandbox = reader_sandbox(tmp_path)
    with served_in_thread(sandbox) as root:
        yield root, sandbox


class Runner:
    """Runs CI docform lines in a checkout with the pinned release first on the PATH."""

    def __init__(self, checkout: Path, bin_folder: Path, root: str) -> None:
        self.checkout = checkout
        self.env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}
        self.env |= {"DOCFORM_API_URL": root, "NO_COLOR": "1"}
        self.env.pop("DOCFORM_API_TOKEN", None)

    def __call__(self, commands: list[Command], token: str | None) -> list[int]:
        codes = []
        for command in commands:
            env = self.env | ({"DOCFORM_API_TOKEN": token} if token else {})
            done = subprocess.run(
                ["docform", *command.args], cwd=self.checkout, env=env,
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if command.stdout_file:
                (self.checkout / command.stdout_file).write_text(done.stdout, encoding="utf-8")
            if not command.tolerant:
                assert done.returncode == 0, f"{command.source}: {command.line}\n{done.stderr}"
            assert "Traceback" not in done.stderr, done.stderr
            codes.append(done.returncode)
        return codes

    def read(self, name: str) -> str:
        return (self.checkout / name).read_text(encoding="utf-8")


def manifests_of(checkout: Path) -> dict[Path, bytes]:
    files = (checkout / "manifests").rglob("*")
    return {path: path.read_bytes() for path in files if path.is_file()}


Jobs = dict[str, Callable[..., list[Command]]]
GITHUB: Jobs = {
    "plan": lambda: github_commands("docform-plan.yml", "pull_request"),
    "apply": lambda checksum: github_commands(
        "docform-apply.yml", "push", {"REVIEWED_CHECKSUM": checksum}
    ),
    "drift": lambda: github_commands("docform-drift.yml", "schedule", {"MANIFESTS": "manifests"}),
    "adopt": lambda: github_commands("docform-adopt.yml", "schedule"),
}
GITLAB: Jobs = {
    "plan": lambda: gitlab_commands("validate") + gitlab_commands("plan"),
    "apply": lambda checksum: gitlab_commands("apply", {"REVIEWED_CHECKSUM": checksum}),
    "drift": lambda: gitlab_commands("drift", {"MANIFESTS": "manifests"}),
    "adopt": lambda: gitlab_commands("adopt"),
}


def only_gitlabs(gitlab: list[Command], github: list[Command]) -> list[Command]:
    """The lines of a GitLab job that no line of GitHub's job for the same stage has word for
    word: run at the same stage on the same organization and manifests, those would prove
    nothing GitHub's did not."""
    ran = [command.args for command in github]
    return [command for command in gitlab if command.args not in ran]


def test_every_example_job_runs_under_the_pinned_release(
    pinned_bin: Path, service: tuple[str, Path], tmp_path: Path
) -> None:
    """The jobs of both CI systems, stage by stage: GitHub's, then the lines of GitLab's that
    differ from them."""
    root, sandbox = service
    checkout = tmp_path / "acme"
    shutil.copytree(EXAMPLE, checkout)
    run = Runner(checkout, pinned_bin, root)
    version = subprocess.run(
        ["docform", "--version"], env=run.env, capture_output=True, text=True, check=True
    ).stdout
    assert version == f"docform, version {pinned_tag().removeprefix('v')}\n"

    # The merge request: validated and planned (an admin's token here: the reader's plan
    # leaves out the SAML provider, which this first apply creates).
    run(GITHUB["plan"]() + only_gitlabs(GITLAB["plan"](), GITHUB["plan"]()), ADMIN)
    reviewed = CHECKSUM_IN_MARKDOWN.search(run.read("plan.md"))
    assert reviewed, run.read("plan.md")
    # The merge: applied with the reviewed checksum, checked, docform.lock written; GitLab's
    # apply (which hands docform the reviewed plan.json) on a copy of the organization and
    # checkout as they were before, so that it too applies.
    checksum = reviewed.group(1)
    github_apply, gitlab_apply = GITHUB["apply"](checksum), GITLAB["apply"](checksum)
    before = tmp_path / "before-apply"
    shutil.copytree(checkout, before / "acme")
    with served_in_thread(copy_sandbox(sandbox, before)) as before_root:
        assert run(github_apply, ADMIN) == [0, 0, 0]
        on_copy = Runner(before / "acme", pinned_bin, before_root)
        assert set(on_copy(only_gitlabs(gitlab_apply, github_apply), ADMIN)) == {0}

    # The schedule, with the reader's token: no drift in what it may read, SAML not checked.
    drift = GITHUB["drift"]() + only_gitlabs(GITLAB["drift"](), GITHUB["drift"]())
    assert run(drift, READER_TOKEN)[-1] == 3
    validated = manifests_of(checkout)  # what the job's validate line read
    # A hand change to the SAML provider, which the reader may not read: still "not checked"
    # (exit 3), never "no drift" (exit 0), so the job never closes the issue as in sync. (The
    # job's validate line reads the manifests only, unchanged since it ran.)
    providers = live_api(sandbox, "GET", "/orgs/org_acme/saml")["items"]
    live_api(
        sandbox, "PATCH", f"/orgs/org_acme/saml/{providers[0]['id']}",
        {"ssoURL": "https://idp.evil.test/sso"},
    )  # fmt: skip
    drift_lines = [command for command in drift if command.args[0] == "drift"]
    assert run(drift_lines, READER_TOKEN)[-1] == 3
    assert "SAML providers" in run.read("drift.md")
    assert run(drift_lines, ADMIN)[-1] == 2

    # The adopt pull request: a change made in the UI is written into the manifests, naming
    # who made it.
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces?limit=1000")["items"]
    ledger = next(s for s in spaces if s["title"] == "Ledger")
    unlocked = {"editMode": "live"}
    in_ui(sandbox, "maria.garcia@acme.test", "PATCH", f"/spaces/{ledger['id']}", unlocked)
    adopt = GITHUB["adopt"]() + only_gitlabs(GITLAB["adopt"](), GITHUB["adopt"]())
    # Its validate line is word for word the drift job's, and reads the manifests only,
    # unchanged since that one ran: not run again.
    assert manifests_of(checkout) == validated
    adopt = only_gitlabs(adopt, [command for command in drift if command.args[0] == "validate"])
    assert set(run(adopt, ADMIN)) == {0}
    assert "Maria Garcia" in run.read("adopt.md")
    assert "editMode: live" in run.read("manifests/content.yaml")
