"""Applies from separate machines creating the same objects at once (engine/duplicates.py):
the object made first is kept, the later creator deletes its own and goes on with the first,
and applies run at the same moment from separate clones leave one object per entry."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from canary import CANARY_TOKEN
from conftest import slow_mode
from docform.cli import cli
from docform.manifest.lock import LOCK_NAME
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import (
    SERVE_TOKEN,
    apply,
    assert_converged,
    live_api,
    open_store,
    plan_json,
    run,
    served_app,
    served_sandbox,
    write_manifests,
)

TOKEN = "tok_races_admin_0123456789"
DOCS = "/orgs/org_acme/sites/site_docs"
TEAMS = ("PUT", "/v1/orgs/org_acme/teams")
PLATFORM = {"title": "Platform"}
PLATFORM_ONLY = "organization: {id: org_acme}\nteams:\n  platform: {title: Platform}\n"
ORGANIZATION = """\
organization: {id: org_acme}
teams:
  platform: {title: Platform}
  docs: {title: Docs}
collections:
  handbook: {title: Handbook}
spaces:
  guide:
    title: Guide
    collection: handbook
    access: {teams: {platform: edit}}
sites:
  docs:
    id: site_docs
    sectionGroups:
      more: {title: More, sections: [start]}
    sections:
      start:
        title: Start here
        path: start
        spaces: {main: {space: guide, path: guide}}
"""


def apply_with_twin(
    sandbox: Path,
    manifests: Path,
    route: tuple[str, str],
    body: dict[str, Any],
    *,
    first: bool,
    gives_way: bool = False,
) -> tuple[Any, str]:
    """``docform apply`` through the sandbox served with, at the first ``route`` (method,
    path) docform calls, the same object made by "another apply" just before (``first``) or
    just after docform's own create; with ``gives_way``, that apply deletes its object (as
    its creator does on seeing docform's older one) before docform's second read of the
    list after the create. Returns the apply's result and the other object's id."""
    store = Store(sandbox)
    app = create_app(store, SandboxConfig(admin_tokens=(TOKEN,)))
    made: list[str] = []
    asked: list[bool] = []

    lists_after: list[bool] = []

    async def other_apply_too(scope: dict, receive: Any, send: Any) -> None:
        call = (scope.get("method"), scope.get("path"))
        ours = scope["type"] == "http" and call == route
        twin = ours and not asked and not asked.append(True)
        if twin and first:
            made.append(await asyncio.to_thread(create_twin, sandbox, route, body))
        listed = made and call == ("GET", route[1]) and not lists_after.append(True)
        if gives_way and listed and len(lists_after) == 2:
            await asyncio.to_thread(live_api, sandbox, "DELETE", f"{route[1][3:]}/{made[0]}")
        if not twin or first:
            await app(scope, receive, send)
            return

        async def twin_before_the_answer(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":  # docform's object is made by now
                made.append(await asyncio.to_thread(create_twin, sandbox, route, body))
            await send(message)

        await app(scope, receive, twin_before_the_answer)

    env = {"DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    env["DOCFORM_LOCK_DIR"] = str(manifests.parent / "locks")
    try:
        with served_app(other_apply_too) as root:
            result = CliRunner().invoke(
                cli, ["apply", str(manifests), "--yes"], env={**env, "DOCFORM_API_URL": root}
            )
    finally:
        store.close()
    [twin] = made
    return result, twin


def create_twin(sandbox: Path, route: tuple[str, str], body: dict[str, Any]) -> str:
    method, path = route
    return str(live_api(sandbox, method, path.removeprefix("/v1"), body)["id"])


def live_titles(sandbox: Path, route: str) -> list[tuple[str, str]]:
    return sorted((o["title"], o["id"]) for o in live_api(sandbox, "GET", route)["items"])


def test_a_create_newer_than_another_applys_twin_is_deleted_and_the_twin_used(
    sandbox: Path, tmp_path: Path
) -> None:
    manifests = write_manifests(tmp_path / "m", ORGANIZATION)
    result, twin = apply_with_twin(sandbox, manifests, TEAMS, {"title": "Platform"}, first=True)

    assert result.exit_code == 0, result.output
    assert "Apply complete" in result.stdout
    [deleted] = [
        line.split("deleted its own (")[1].split(")")[0]
        for line in result.output.splitlines()
        if "another apply created this team at the same time" in line
    ]
    assert deleted != twin
    assert [t for t in live_titles(sandbox, "/orgs/org_acme/teams") if t[0] == "Platform"] == [
        ("Platform", twin)
    ]
    assert f"team.platform: {twin}" in (manifests / LOCK_NAME).read_text()
    # What depends on the team (the space's grant) went to the twin, not to the deleted one.
    space = next(s for s in live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"])
    grants = live_api(sandbox, "GET", f"/spaces/{space['id']}/permissions/teams")["items"]
    assert [g["team"]["id"] for g in grants] == [twin]
    assert_converged(manifests, sandbox)


def test_a_create_older_than_another_applys_twin_is_kept_once_the_twin_goes(
    sandbox: Path, tmp_path: Path
) -> None:
    manifests = write_manifests(tmp_path / "m", ORGANIZATION)
    result, twin = apply_with_twin(
        sandbox, manifests, TEAMS, {"title": "Platform"}, first=False, gives_way=True
    )

    assert result.exit_code == 0, result.output
    assert "at the same time" not in result.output
    [(_, ours)] = [t for t in live_titles(sandbox, "/orgs/org_acme/teams") if t[0] == "Platform"]
    assert ours != twin
    assert f"team.platform: {ours}" in (manifests / LOCK_NAME).read_text()
    assert_converged(manifests, sandbox)


def test_a_create_older_than_a_twin_that_stays_gives_way_to_it(
    sandbox: Path, tmp_path: Path, instant_backoff: list[float]
) -> None:
    """The twin's creator read the list before docform's team showed in it and went on with
    its own: docform's, though older, is deleted, and one team is left."""
    manifests = write_manifests(tmp_path / "m", ORGANIZATION)
    result, twin = apply_with_twin(sandbox, manifests, TEAMS, {"title": "Platform"}, first=False)

    assert result.exit_code == 0, result.output
    assert "another apply created this team at the same time" in result.output
    platforms = [t for t in live_titles(sandbox, "/orgs/org_acme/teams") if t[0] == "Platform"]
    assert platforms == [("Platform", twin)]
    assert f"team.platform: {twin}" in (manifests / LOCK_NAME).read_text()
    assert instant_backoff == [0.5, 1.0, 2.0]  # it waited for the twin to go, all three times
    assert_converged(manifests, sandbox)


def test_of_twins_without_a_creation_time_one_is_left(
    sandbox: Path, tmp_path: Path, instant_backoff: list[float]
) -> None:
    """Section groups have no ``createdAt``: whichever of the two holds the lower id, the
    apply ends with one group, the one the other apply made (which never saw docform's). The
    section joins the group by its own PATCH, sent with the id the apply went on with, so the
    one apply converges."""
    manifests = write_manifests(tmp_path / "m", ORGANIZATION)
    groups = ("POST", f"/v1{DOCS}/section-groups")
    result, twin = apply_with_twin(sandbox, manifests, groups, {"title": "More"}, first=True)

    assert result.exit_code == 0, result.output
    assert "another apply created this section_group at the same time" in result.output
    assert live_titles(sandbox, f"{DOCS}/section-groups") == [("More", twin)]
    [section] = live_api(sandbox, "GET", f"{DOCS}/sections")["items"]
    assert section["sectionGroup"] == twin
    assert_converged(manifests, sandbox)
    assert live_titles(sandbox, f"{DOCS}/section-groups") == [("More", twin)]


def test_applies_at_once_from_separate_clones_leave_one_object_per_entry(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    """Three clones (three machines: each its own lock directory, so the local apply lock
    cannot serialise them) apply at the same moment, against the served sandbox with some
    latency; twice. Each time every entry has one live object and a fresh clone has nothing
    left to do.

    Only with ``--slow``: its outcome depends on how the three processes interleave, and
    some interleavings still leave a twin or none (two teams made in the same instant, or
    groups whose deletes outlast the wait); scripts/attack_loops.py runs it in numbers."""
    if not slow_mode(pytestconfig):
        pytest.skip("a timing-dependent race of three processes: run with --slow")
    source = write_manifests(tmp_path / "source", ORGANIZATION)
    for round_number in range(2):
        data = tmp_path / f"served-{round_number}.sqlite"
        with served_sandbox(data, "--latency-ms", "40") as (root, _):
            env = {**os.environ, "DOCFORM_API_TOKEN": SERVE_TOKEN, "NO_COLOR": "1"}
            env["DOCFORM_API_URL"] = root
            applies = []
            for clone in range(3):
                directory = tmp_path / f"r{round_number}-clone{clone}"
                shutil.copytree(source, directory)
                command = [sys.executable, "-m", "docform", "apply", str(directory), "--yes"]
                own = {**env, "DOCFORM_LOCK_DIR": str(directory.parent / f"{directory}.locks")}
                applies.append(subprocess.Popen(command, env=own, stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True))  # fmt: skip
            outputs = [p.communicate(timeout=300)[0] for p in applies]
            assert not any("Traceback" in out for out in outputs), outputs
            assert CANARY_TOKEN not in "".join(outputs)
            assert SERVE_TOKEN not in "".join(outputs)
            counted = {
                route: served_titles(root, route)
                for route in ("teams", "collections", "spaces", "sites/site_docs/section-groups")
            }
            assert counted == {
                "teams": ["Docs", "Platform"],
                "collections": ["Handbook"],
                "spaces": ["Guide"],
                "sites/site_docs/section-groups": ["More"],
            }, outputs
            fresh = tmp_path / f"r{round_number}-fresh"
            shutil.copytree(source, fresh)
            env["DOCFORM_LOCK_DIR"] = str(tmp_path / "fresh.locks")
            final = docform(["apply", fresh, "--yes"], env)
            assert final.returncode == 0, (final.stdout, final.stderr, outputs)
            again = docform(["plan", fresh, "--json", "--detailed-exitcode"], env)
            assert again.returncode == 0, (again.stdout, again.stderr, outputs)
            left = {u["kind"] for u in json.loads(again.stdout)["unmanaged"]}
            assert left == {"member"}, (again.stdout, outputs)  # the seed's members only


def docform(args: list[Any], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "docform", *map(str, args)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def served_titles(root: str, route: str) -> list[str]:
    headers = {"Authorization": f"Bearer {SERVE_TOKEN}"}
    answer = httpx.get(f"{root}/v1/orgs/org_acme/{route}", headers=headers).json()
    return sorted(item["title"] for item in answer["items"])


def test_a_twin_of_an_object_the_lock_ties_is_deleted_by_the_next_plan(
    sandbox: Path, tmp_path: Path
) -> None:
    """An apply stopped between its create and the delete of its newer twin leaves two
    objects of one key, docform.lock tying the entry to the older: the next plan deletes the
    newer, saying why, and the apply after it leaves one."""
    manifests = write_manifests(tmp_path / "m", PLATFORM_ONLY)
    apply(manifests, sandbox)
    [ours] = [team_id for _, team_id in live_titles(sandbox, "/orgs/org_acme/teams")]
    twin = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Platform"})["id"]

    plan = plan_json(manifests, sandbox)

    assert plan["notes"] == [settled(ours, [twin])]
    assert [(c["address"], c["action"], c["action_reason"]) for c in plan["changes"]] == [
        (f"team.~{twin}", "delete", twin_reason(ours))
    ]
    assert apply(manifests, sandbox).exit_code == 0
    assert live_titles(sandbox, "/orgs/org_acme/teams") == [("Platform", ours)]
    assert_converged(manifests, sandbox)


def test_twins_a_crash_left_with_no_lock_are_settled_by_the_next_plan(
    sandbox: Path, tmp_path: Path
) -> None:
    """Three teams of one title made within the twin window, no lock naming any (the clone
    that plans now lost every race): not a dead end. The plan keeps the oldest, deletes the
    other two (whatever their ids' order), and the next plan is empty."""
    moments = [datetime(2030, 1, 1, 0, 3, tzinfo=UTC), datetime(2030, 1, 1, 0, 0, tzinfo=UTC),
               datetime(2030, 1, 1, 0, 4, 59, tzinfo=UTC)]  # fmt: skip
    made = []
    for moment in moments:
        with open_store(sandbox) as store:
            store.set_now(moment)
        made.append(live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Platform"})["id"])
    oldest, newer = made[1], [made[0], made[2]]
    manifests = write_manifests(tmp_path / "m", PLATFORM_ONLY)

    plan = plan_json(manifests, sandbox)

    assert plan["notes"] == [settled(oldest, newer)]
    assert sorted((c["address"], c["action_reason"]) for c in plan["changes"]) == sorted(
        (f"team.~{twin}", twin_reason(oldest)) for twin in newer
    )
    assert apply(manifests, sandbox).exit_code == 0
    assert live_titles(sandbox, "/orgs/org_acme/teams") == [("Platform", oldest)]
    assert f"team.platform: {oldest}" in (manifests / LOCK_NAME).read_text()
    assert_converged(manifests, sandbox)


@pytest.mark.parametrize("pinned", [False, True], ids=["by key", "pinned id"])
def test_teams_of_one_title_made_apart_in_time_or_pinned_are_left_to_the_user(
    sandbox: Path, tmp_path: Path, pinned: bool
) -> None:
    """Past the window (a team a person made later with the same title) or beside an entry
    pinned by `id:` (the user's word), nothing is deleted: the plan says which to keep."""
    made = []
    for moment in (datetime(2030, 1, 1, tzinfo=UTC), datetime(2030, 1, 1, 0, 5, 1, tzinfo=UTC)):
        with open_store(sandbox) as store:
            store.set_now(moment)
        made.append(live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Platform"})["id"])
    pin = f"id: {made[0]}, " if pinned else ""
    manifests = write_manifests(
        tmp_path / "m",
        f"organization: {{id: org_acme}}\nteams:\n  platform: {{{pin}title: Platform}}\n",
    )
    if pinned:
        with open_store(sandbox) as store:
            store.set_now(datetime(2030, 1, 1, 0, 1, tzinfo=UTC))
        made.append(live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Platform"})["id"])

    if pinned:
        plan = plan_json(manifests, sandbox)
        assert plan["changes"] == []
        [note] = plan["notes"]
        assert f"but {made[2]} and {made[1]} have its natural key too" in note
    else:
        result = run(["plan", manifests], sandbox)
        assert result.exit_code == 1
        assert "2 live teams match 'Platform'" in result.stderr
    assert len(live_titles(sandbox, "/orgs/org_acme/teams")) == len(made)


def test_a_twin_deleted_while_its_members_are_read_is_skipped(
    sandbox: Path, tmp_path: Path
) -> None:
    """Another apply made the same team just after docform's and deletes it (seeing
    docform's older) while docform reads that twin's members to settle: the read answers 404.
    The vanished twin is skipped, the check goes on, docform keeps its own team."""
    manifests = write_manifests(tmp_path / "m", PLATFORM_ONLY)
    store = Store(sandbox)
    app = create_app(store, SandboxConfig(admin_tokens=(TOKEN,)))
    made: list[str] = []

    async def twin_goes_while_read(scope: dict, receive: Any, send: Any) -> None:
        call = (scope.get("method"), scope.get("path"))
        if scope["type"] == "http" and call == TEAMS and not made:
            made.append("")  # docform's own create is under way

            async def twin_after_ours(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    made[0] = await asyncio.to_thread(create_twin, sandbox, TEAMS, PLATFORM)
                await send(message)

            await app(scope, receive, twin_after_ours)
            return
        if made and made[0] and call == ("GET", f"{TEAMS[1]}/{made[0]}/members"):
            await asyncio.to_thread(live_api, sandbox, "DELETE", f"{TEAMS[1][3:]}/{made[0]}")
        await app(scope, receive, send)

    env = {"DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1", "DOCFORM_LOCK_DIR": str(tmp_path / "l")}
    try:
        with served_app(twin_goes_while_read) as root:
            result = CliRunner().invoke(
                cli, ["apply", str(manifests), "--yes"], env={**env, "DOCFORM_API_URL": root}
            )
    finally:
        store.close()

    assert result.exit_code == 0, result.output
    assert "failed" not in result.output
    [(_, ours)] = live_titles(sandbox, "/orgs/org_acme/teams")
    assert ours != made[0]
    assert f"team.platform: {ours}" in (manifests / LOCK_NAME).read_text()
    assert_converged(manifests, sandbox)


def settled(kept: str, twins: list[str]) -> str:
    listed = twins[0] if len(twins) == 1 else " and ".join(twins)
    return (
        f"main.yaml:3:3: team.platform: {len(twins) + 1} live teams match it, all created "
        "within 5 minutes of the oldest: twins that applies run at once left (one was stopped "
        f"before it deleted its own). The plan keeps {kept}, the oldest, and deletes {listed}; "
        "make applies to one organization run one at a time (see docs/security.md)"
    )


def twin_reason(kept: str) -> str:
    return (
        f"a twin of team {kept}, created with it by applies run at once (within 5 minutes): "
        "the older is kept"
    )


@pytest.mark.contract_exempt(
    "a twin takes the path first on purpose, and the sandbox answers that conflict with 409"
)
def test_a_twin_that_took_the_path_first_is_kept_and_the_apply_goes_on_with_it(
    sandbox: Path, tmp_path: Path
) -> None:
    """Paths are unique in a site: a section another apply made a moment earlier holds
    `start`, docform's own gets `start-2` and its PATCH to `start` is refused. docform deletes
    its own and goes on with the other's, leaving no orphan section."""
    manifests = write_manifests(tmp_path / "m", ORGANIZATION)
    other = live_api(sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Elsewhere"})
    sections = ("POST", f"/v1{DOCS}/sections")
    body = {"spaceId": other["id"], "title": "start"}
    result, twin = apply_with_twin(sandbox, manifests, sections, body, first=True)

    assert "another apply created this section at the same time" in result.output, result.output
    assert [s["id"] for s in live_api(sandbox, "GET", f"{DOCS}/sections")["items"]] == [twin]
    run(["apply", manifests, "--yes"], sandbox)
    assert_converged(manifests, sandbox)
    assert [s["id"] for s in live_api(sandbox, "GET", f"{DOCS}/sections")["items"]] == [twin]
