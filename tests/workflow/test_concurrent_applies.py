"""Two applies to one organization (engine/apply_lock.py, engine/duplicates.py): from one
machine they never overlap; a create whose object appeared since the plan is not sent; and
duplicates left by an earlier race are reported with the way out."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

from canary import CANARY_TOKEN
from docform.api import ApiClient
from docform.manifest import load_manifest_set
from docform.workflow.apply_lock import ApplyLockError, apply_lock, holder_path, lock_path
from docform.workflow.run import apply_changes, plan_manifests
from planning import SERVE_TOKEN, live_api, run, served_in_thread, write_manifests

TEAMS = """\
organization: {id: org_acme}
teams:
  platform: {title: Platform}
  docs: {title: Docs}
collections:
  handbook: {title: Handbook}
"""


def titles(sandbox_or_root: Path, route: str) -> list[str]:
    items = live_api(sandbox_or_root, "GET", f"/orgs/org_acme/{route}")["items"]
    return sorted(item["title"] for item in items)


HOLD = """
import sys, time
from docform.workflow.apply_lock import apply_lock
with apply_lock(sys.argv[1], "org_acme"):
    print("held", flush=True)
    time.sleep(600)
"""


def holding_process(sandbox: Path) -> subprocess.Popen[str]:
    """Another process holding the apply lock of org_acme at ``sandbox`` (until killed)."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, f"sandbox:{sandbox}"],
                              stdout=subprocess.PIPE, text=True, env=os.environ.copy())  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_an_apply_refuses_to_start_while_another_one_runs(tmp_path, sandbox, monkeypatch):
    monkeypatch.setenv("DOCFORM_LOCK_DIR", str(tmp_path / "locks"))
    holder = holding_process(sandbox)
    try:
        manifests = write_manifests(tmp_path / "m", TEAMS)
        result = run(["apply", manifests, "--yes"], sandbox)
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"Error: another docform apply (pid {holder.pid} on {socket.gethostname()}, started "
    )
    assert result.stderr.endswith(
        f") is changing organization org_acme at sandbox:{sandbox}; nothing was applied. Wait "
        "for it to finish and run apply again (plan first: it changes what is left to do).\n"
    )
    assert titles(sandbox, "teams") == []


def test_the_lock_of_an_apply_that_was_killed_does_not_block_the_next(
    tmp_path, sandbox, monkeypatch
):
    """The kernel lets go of a killed holder's lock: the next apply takes it, whatever the
    holder left on disk."""
    monkeypatch.setenv("DOCFORM_LOCK_DIR", str(tmp_path / "locks"))
    holder = holding_process(sandbox)
    holder.kill()
    holder.wait()
    assert holder_path(lock_path(f"sandbox:{sandbox}", "org_acme")).exists()  # left behind
    manifests = write_manifests(tmp_path / "m", TEAMS)
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 0, result.output
    assert titles(sandbox, "teams") == ["Docs", "Platform"]


def test_of_many_takers_at_once_one_holds_the_lock_at_a_time(tmp_path, monkeypatch):
    """Threads taking the lock at once (each its own open file, as separate processes have):
    never two inside at the same moment, and every one either held it or was refused."""
    monkeypatch.setenv("DOCFORM_LOCK_DIR", str(tmp_path / "locks"))
    inside, most, outcomes = [0], [0], []
    guard = threading.Lock()
    start = threading.Barrier(8)

    def take() -> None:
        start.wait()
        for _ in range(20):
            try:
                with apply_lock("https://api.example.test", "org_acme"):
                    with guard:
                        inside[0] += 1
                        most[0] = max(most[0], inside[0])
                    with guard:
                        inside[0] -= 1
                outcomes.append("held")
            except ApplyLockError:
                outcomes.append("refused")

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1
    assert len(outcomes) == 160 and "held" in outcomes


def test_a_create_whose_object_appeared_after_the_plan_is_not_sent(tmp_path, sandbox, monkeypatch):
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    manifests = load_manifest_set(write_manifests(tmp_path / "m", TEAMS))
    plan, _ = asyncio.run(plan_manifests(manifests))
    # Another apply creates the team between this apply's plan and its creates.
    raced = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Platform"})["id"]
    report = asyncio.run(apply_changes(manifests, plan, parallelism=1))
    assert [(c.key, message) for c, message in report.failed] == [
        (
            "team.platform#create",
            f"team.platform#create: not created: a live team matching it ({raced}) appeared "
            "after the plan was made, so another apply (or someone) created it meanwhile. "
            "Nothing was created twice; run docform plan again to see the organization as it "
            "is now, and make applies to one organization run one at a time (see "
            "docs/security.md).",
        )
    ]
    assert titles(sandbox, "teams").count("Platform") == 1


SIX_TEAMS = "organization: {id: org_acme}\nteams:\n" + "".join(
    f"  t{n}: {{title: Team {n}}}\n" for n in range(6)
)


def test_creates_that_run_side_by_side_share_the_reads_around_them(tmp_path, sandbox, monkeypatch):
    """Each create is checked against a read started after it asked (before) and after it
    was made (after); creates of one wave share those reads, and an object's parts (a team's
    members) are read once, the first time it is seen."""
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    manifests = load_manifest_set(write_manifests(tmp_path / "m", SIX_TEAMS))
    plan, _ = asyncio.run(plan_manifests(manifests))
    routes: dict[str, int] = {}
    original = ApiClient.__aexit__

    async def keep_counts(self: ApiClient, *exc_info: object) -> None:
        if not self.read_only:
            routes.update(self.stats.by_route)
        await original(self, *exc_info)

    monkeypatch.setattr(ApiClient, "__aexit__", keep_counts)
    report = asyncio.run(apply_changes(manifests, plan, parallelism=8))
    assert report.ok and report.notes == []
    # Twelve reads if each create read alone: one before the wave, a few after it.
    assert 2 <= routes["GET /orgs/{id}/teams"] <= 4, routes
    assert routes["GET /orgs/{id}/teams/{id}/members"] == 6
    assert titles(sandbox, "teams") == [f"Team {n}" for n in range(6)]


def test_two_applies_started_at_once_create_nothing_twice(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", TEAMS)
    env = {**os.environ, "DOCFORM_API_TOKEN": SERVE_TOKEN, "NO_COLOR": "1",
           "DOCFORM_LOCK_DIR": str(tmp_path / "locks")}  # fmt: skip
    # Two docform processes are the subject; the sandbox serves them from a thread.
    with served_in_thread(sandbox, latency_ms=100) as root:
        env["DOCFORM_API_URL"] = root
        command = [sys.executable, "-m", "docform", "apply", str(manifests), "--yes"]
        applies = [
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)
        ]
        outcomes = [
            (p.wait(timeout=120), p.stderr.read().decode(), p.stdout.read().decode())
            for p in applies
        ]
        teams = live(root, "teams")
        collections = live(root, "collections")
    assert teams == ["Docs", "Platform"], outcomes
    assert collections == ["Handbook"], outcomes
    codes = sorted(code for code, _, _ in outcomes)
    if codes == [0, 0]:
        # On a loaded machine the second apply may only start planning once the first is done:
        # then it has nothing to do, which is no race at all.
        assert any("No changes" in out for _, _, out in outcomes), outcomes
    else:
        assert codes == [0, 1], outcomes
        refused = next(err for code, err, _ in outcomes if code == 1)
        assert "another docform apply" in refused or "not created: a live" in refused, refused
    assert CANARY_TOKEN not in "".join(err + out for _, err, out in outcomes)


def live(root: str, route: str) -> list[str]:
    import httpx

    headers = {"Authorization": f"Bearer {SERVE_TOKEN}"}
    answer = httpx.get(f"{root}/v1/orgs/org_acme/{route}", headers=headers).json()
    return sorted(item["title"] for item in answer["items"])


def test_every_spelling_of_one_service_shares_one_apply_lock(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCFORM_LOCK_DIR", str(tmp_path / "locks"))
    spellings = [
        "http://127.0.0.1:8080",
        "http://localhost:8080/",
        "http://127.0.0.1:8080/v1",
        "http://LOCALHOST:8080/v1/",
        "http://[::1]:8080",
        "http://bot:pw@127.0.0.1:8080/v1?x=1#f",
    ]
    assert len({lock_path(url, "org_acme") for url in spellings}) == 1
    https = [
        "https://API.example.test",
        "https://api.example.test:443/v1",
        "https://api.example.test./",
    ]
    assert len({lock_path(url, "org_acme") for url in https}) == 1
    others = [
        "http://127.0.0.1:8081",
        "https://api.example.test/tenant-b",
        "https://api.example.test",
    ]
    assert len({lock_path(url, "org_acme") for url in others}) == 3
    assert lock_path(spellings[0], "org_acme") != lock_path(spellings[0], "org_other")
