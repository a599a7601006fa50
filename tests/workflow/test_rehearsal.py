"""The rehearsal of a plan on a twin of the live organization (`docform.workflow.rehearsal`):
everyday edits of examples/acme rehearse as converged, a call the service refuses is caught on
the twin, naming it, before any live call, and the recording and the twin hold what planning
read."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from docform.manifest import ManifestSet, load_manifest_set
from docform.render.rehearsal import rehearsal_line
from docform.workflow.connect import Client
from docform.workflow.rehearsal import rehearse, twin_maker
from docform.workflow.run import apply_changes, plan_manifests
from docform.workflow.twin_fidelity import kinds_of_paths, unlike_kinds
from planning import (
    SERVE_TOKEN,
    planned_in_process,
    prune_too,
    replace_text,
    run,
    served_in_thread,
    write_manifests,
)

EVERYDAY_EDITS = {
    "rename a team": [("people.yaml", "title: Platform\n", "title: Platform engineering\n")],
    "rename and move a collection": [
        ("content.yaml", "{title: Guides, parent: product}", "{title: How-tos, parent: company}")
    ],
    "move a space": [
        (
            "content.yaml",
            'ci-cd: {title: CI/CD pipelines, emoji: "🚦", collection: platform-eng}',
            'ci-cd: {title: CI/CD pipelines, emoji: "🚦", collection: engineering}',
        )
    ],
    "swap two section paths": [
        ("sites.yaml", "        path: api\n", "        path: sdks-swap\n"),
        ("sites.yaml", "        path: sdks\n", "        path: api\n"),
        ("sites.yaml", "        path: sdks-swap\n", "        path: sdks\n"),
    ],
    "hand a team over to another owner": [
        ("people.yaml", "maria.garcia@acme.test: owner", "maria.garcia@acme.test: member"),
        ("people.yaml", "tom.walker@acme.test: member", "tom.walker@acme.test: owner"),
    ],
}


def live_rows(sandbox: Path) -> str:
    """A digest of everything the sandbox file holds: unchanged means nothing was written."""
    with closing(sqlite3.connect(sandbox)) as db:
        rows = db.execute("SELECT kind, id, data, rank FROM objects ORDER BY seq").fetchall()
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


@pytest.mark.parametrize("edit", sorted(EVERYDAY_EDITS))
def test_an_everyday_edit_of_acme_rehearses_as_converged(
    applied_acme: tuple[Path, Path], edit: str
) -> None:
    directory, sandbox = applied_acme
    for file, old, new in EVERYDAY_EDITS[edit]:
        replace_text(directory / file, old, new)
    before = live_rows(sandbox)

    result = run(["plan", directory, "--rehearse", "--json"], sandbox)

    assert result.exit_code == 0, result.output
    rehearsal = json.loads(result.stdout)["rehearsal"]
    assert rehearsal["converged"], rehearsal
    assert rehearsal["refused"] == [] and rehearsal["kinds_not_loaded"] == []
    assert rehearsal["calls"] == rehearsal["accepted"] > 0
    assert live_rows(sandbox) == before


def test_a_delete_allowed_rehearses_and_applies(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    prune_too(directory, "spaces")
    replace_text(
        directory / "content.yaml",
        '  postmortems: {title: Postmortems, emoji: "🔍", collection: incidents}\n',
        "",
    )

    result = run(["apply", directory, "--yes", "--allow", "cascade:space.postmortems"], sandbox)

    assert result.exit_code == 0, result.output
    assert "Rehearsed on a twin: " in result.stdout and ", converged" in result.stdout
    again = run(["plan", directory, "--detailed-exitcode"], sandbox)
    assert again.exit_code == 0, again.output


def test_a_text_plan_says_in_one_line_how_the_rehearsal_went(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    replace_text(directory / "people.yaml", "title: Payments\n", "title: Payments team\n")

    result = run(["plan", directory, "--rehearse"], sandbox)

    assert result.exit_code == 0, result.output
    assert "Rehearsed on a twin: 1 call accepted, converged\n" in result.stdout


def test_calls_out_of_order_are_refused_on_the_twin_before_any_live_call(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planner's order broken on purpose: a space moved into a collection created by the
    same plan, its move sent first (the collection's id not known yet, the path names none)."""
    directory, sandbox = applied_acme
    replace_text(
        directory / "content.yaml",
        "  company: {title: Company}\n",
        "  company: {title: Company}\n  legal: {title: Legal, parent: company}\n",
    )
    replace_text(
        directory / "content.yaml",
        'ci-cd: {title: CI/CD pipelines, emoji: "🚦", collection: platform-eng}',
        'ci-cd: {title: CI/CD pipelines, emoji: "🚦", collection: legal}',
    )
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    manifests = load_manifest_set(directory)
    before = live_rows(sandbox)

    async def rehearsed() -> object:
        plan, _ = await plan_manifests(manifests)
        backwards = [replace(c, depends_on=[]) for c in reversed(plan.changes)]
        return await rehearse(manifests, replace(plan, changes=backwards), parallelism=1)

    rehearsal = asyncio.run(rehearsed())

    assert not rehearsal.converged  # type: ignore[attr-defined]
    (refused,) = rehearsal.refused  # type: ignore[attr-defined]
    assert refused.change == "space.ci-cd#move"
    assert refused.call["path"].startswith("/spaces/")
    assert any(entry.endswith(" space.ci-cd") for entry in refused.entries)
    assert live_rows(sandbox) == before


@pytest.mark.contract_exempt("sends the twin a title the definition refuses, on purpose")
def test_a_value_the_definition_refuses_is_caught_on_the_twin_naming_the_call(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call whose body the service refuses (a team title over the definition's 64
    characters, put into the planned call past the manifests' own check)."""
    directory, sandbox = applied_acme
    replace_text(directory / "people.yaml", "title: Payments\n", "title: Payments team\n")
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    manifests = load_manifest_set(directory)
    before = live_rows(sandbox)

    async def rehearsed() -> object:
        plan, _ = await plan_manifests(manifests)
        (rename,) = plan.changes
        call = replace(rename.calls[0], body={"title": "P" * 65})
        return await rehearse(
            manifests, replace(plan, changes=[replace(rename, calls=[call])]), parallelism=8
        )

    rehearsal = asyncio.run(rehearsed())

    (refused,) = rehearsal.refused  # type: ignore[attr-defined]
    assert (refused.change, refused.status) == ("team.payments#update", 400)
    assert refused.call["method"] == "PATCH" and "title" in refused.message
    assert "people.yaml:" in refused.entries[0]
    assert refused.entries[0].endswith(" team.payments")
    line = rehearsal_line(rehearsal)
    assert line.startswith("Rehearsal on a twin failed: team.payments#update: PATCH ")
    assert "(400 " in line
    assert live_rows(sandbox) == before


def test_the_twin_answers_every_field_docform_reads_as_the_live_organization_did(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every recorded answer read again from the twin: the same objects, in the same order,
    with the same values in each field a kind reads; and it names what it could not load."""
    plan, _ = planned_in_process(applied_acme, monkeypatch)
    twin = twin_maker().build(plan.reads)

    async def unlike() -> list[str]:
        async with Client(twin.root_url, twin.token, transport=twin.transport()) as client:
            return await unlike_kinds(client, plan.reads)

    try:
        assert asyncio.run(unlike()) == []
        assert twin.not_loaded == []
    finally:
        twin.close()
    assert kinds_of_paths(["/orgs/org_acme/teams", "/spaces/s1/permissions/users"]) == [
        "team",
        "access",
    ]


@pytest.mark.parametrize("edit", sorted(EVERYDAY_EDITS))
def test_every_answer_the_twin_keeps_after_the_calls_is_one_it_would_give_as_recorded(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """The second plan of a rehearsal takes the answers no call changed as recorded
    (`Twin.kept`): each of them, read again from the twin after the edit's calls, holds what
    was recorded in every field docform reads; and the answers the calls changed are not
    among them."""
    directory, sandbox = applied_acme
    for file, old, new in EVERYDAY_EDITS[edit]:
        replace_text(directory / file, old, new)
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")

    kept, unlike, reads = kept_after_the_calls(load_manifest_set(directory))

    assert unlike == []
    assert 0 < kept < reads


def kept_after_the_calls(manifests: ManifestSet) -> tuple[int, list[str], int]:
    """Plan ``manifests``, run the plan's calls on a twin, then read every answer the twin
    keeps again from it: how many it keeps, the kinds any of them answers otherwise in, and
    how many answers planning read."""
    plan, _ = asyncio.run(plan_manifests(manifests))
    twin = twin_maker().build(plan.reads)

    def connect(read_only: bool) -> Client:
        return Client(twin.root_url, twin.token, transport=twin.transport(), read_only=read_only)

    async def kept_then_unlike() -> tuple[int, list[str]]:
        report = await apply_changes(manifests, plan, parallelism=4, connect=connect,
                                     verify=False)  # fmt: skip
        assert report.ok, report.failed
        async with connect(True) as client:
            return len(twin.kept()), await unlike_kinds(client, twin.kept())

    try:
        kept, unlike = asyncio.run(kept_then_unlike())
    finally:
        twin.close()
    return kept, unlike, len(plan.reads)


def test_the_recording_keeps_every_read_answer_in_order_and_nothing_printed(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, stats = planned_in_process(applied_acme, monkeypatch)

    paths = [r.path for r in plan.reads]
    assert paths[0] == "/orgs/org_acme" and not plan.reads.reads[0].listed
    assert "/orgs/org_acme/members" in paths
    assert len(plan.reads) <= stats.by_method["GET"]
    assert all("page" not in r.query for r in plan.reads)  # each list whole, its pages joined
    assert "reads" not in plan.to_json()


def test_apply_rehearses_first_unless_told_not_to(applied_acme: tuple[Path, Path]) -> None:
    directory, sandbox = applied_acme
    replace_text(directory / "people.yaml", "title: Payments\n", "title: Payments team\n")

    skipped = run(["apply", directory, "--yes", "--no-rehearse", "--target", "team.payments"],
                  sandbox)  # fmt: skip
    replace_text(directory / "people.yaml", "title: Payments team\n", "title: Payments crew\n")
    rehearsed = run(["apply", directory, "--yes"], sandbox)

    assert skipped.exit_code == 0 and rehearsed.exit_code == 0, rehearsed.output
    assert "Rehearsed on a twin" not in skipped.output
    line = "Rehearsed on a twin: 1 call accepted, converged\n"
    assert rehearsed.stdout.index(line) < rehearsed.stdout.index("Apply complete")


def test_the_markdown_comment_holds_the_rehearsal_in_one_line(
    applied_acme: tuple[Path, Path],
) -> None:
    directory, sandbox = applied_acme
    replace_text(directory / "people.yaml", "title: Payments\n", "title: Payments team\n")

    result = run(["plan", directory, "--rehearse", "--markdown"], sandbox)

    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "twin" in line]
    assert lines == ["Rehearsed on a twin: 1 call accepted, converged"]


def test_each_organization_of_a_directory_is_rehearsed(sandbox: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_manifests(root / "acme", "organization: {id: org_acme}\nteams: {core: {title: Core}}\n")
    write_manifests(root / "other", "organization: {id: org_other}\nteams: {ops: {title: Ops}}\n")

    planned = run(["plan", root, "--rehearse"], sandbox)
    applied = run(["apply", root, "--yes"], sandbox)

    assert planned.exit_code == 0, planned.output
    assert planned.stdout.count("Rehearsed on a twin: 1 call accepted, converged\n") == 2
    assert applied.exit_code == 0, applied.output
    for org in ("org_acme", "org_other"):
        line = f"{org} ({org.removeprefix('org_')}/): Rehearsed on a twin: 1 call accepted"
        assert line in applied.stdout


def test_without_the_sandbox_a_rehearsal_says_what_to_install(
    sandbox: Path, tmp_path: Path
) -> None:
    """docform installed without its sandbox package (a stand-in that fails to import shadows
    it), planning a served organization over HTTP."""
    absent = tmp_path / "without" / "docform_sandbox"
    absent.mkdir(parents=True)
    (absent / "__init__.py").write_text("raise ImportError('not installed')\n", encoding="utf-8")
    manifests = write_manifests(tmp_path / "m", "organization: {id: org_acme}\n")
    with served_in_thread(sandbox) as root:
        env = {**os.environ, "PYTHONPATH": str(absent.parent), "DOCFORM_API_URL": root,
               "DOCFORM_API_TOKEN": SERVE_TOKEN}  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "docform", "plan", str(manifests), "--rehearse"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip

    assert done.returncode == 1, done.stderr
    assert "install docform with its sandbox (pip install 'docform[sandbox]')" in done.stderr
    assert SERVE_TOKEN not in done.stdout + done.stderr
