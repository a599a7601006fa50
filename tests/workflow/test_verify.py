"""engine/verify.py: an apply whose calls all succeeded reads back the kinds it changed, and
reports what still differs from the manifests instead of "Apply complete"."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from canary import CANARY_TOKEN
from docform.cli import cli
from docform.kind_registry import build_kinds
from docform.manifest import load_manifest_set
from docform.render.apply import render_report
from docform.workflow.run import apply_changes, plan_manifests
from docform.workflow.verify import earlier_read
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import apply, assert_converged, live_api, run, served_app, write_manifests

DOCS = "/orgs/org_acme/sites/site_docs"
TOKEN = "tok_verify_admin_0123456789"
REQUEST_LINE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE) (\S+) -> ")


def sections_doc(order: list[str]) -> str:
    spaces = "\n".join(f"  s-{name}: {{title: Space {name}}}" for name in "abc")
    sections = "\n".join(
        f"      {name}: {{title: Section {name}, path: {name}, "
        f"spaces: {{main: {{space: s-{name}, path: main}}}}}}"
        for name in order
    )
    return (
        "organization: {id: org_acme}\n"
        f"spaces:\n{spaces}\n"
        "sites:\n  docs:\n    id: site_docs\n    sections:\n"
        f"{sections}\n"
    )


def live_paths(sandbox: Path) -> list[str]:
    return [s["path"] for s in live_api(sandbox, "GET", f"{DOCS}/sections")["items"]]


def test_apply_reports_an_order_the_service_did_not_end_with(
    sandbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifests = write_manifests(tmp_path / "manifests", sections_doc(["a", "b", "c"]))
    apply(manifests, sandbox)
    write_manifests(manifests, sections_doc(["b", "a", "c"]))
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    monkeypatch.setenv("DOCFORM_API_TOKEN", CANARY_TOKEN)
    manifest_set = load_manifest_set(manifests)
    plan, _ = asyncio.run(plan_manifests(manifest_set))
    # Someone moves c first between the plan and its calls: the plan's one sort no longer
    # gives the manifest's order.
    [a, _, c] = live_api(sandbox, "GET", f"{DOCS}/sections")["items"]
    sort = {"item": {"type": "site-section", "id": c["id"]}}
    sort["position"] = {"before": {"type": "site-section", "id": a["id"]}}
    live_api(sandbox, "PATCH", f"{DOCS}/structure/sort", sort)

    report = asyncio.run(apply_changes(manifest_set, plan, parallelism=1))

    assert len(report.done) == 1 and live_paths(sandbox) == ["c", "b", "a"]
    assert [(c.address, c.action) for c in report.verification.remaining] == [
        ("site.docs.section.b", "reorder"),
        ("site.docs.section.a", "reorder"),
    ]
    assert render_report(report).split("\n\n")[-1] == (
        "Apply made all 1 change, but the live organization still differs from the "
        "manifests:\n"
        "  ~ site.docs.section.b  (reorder)\n"
        '      position: "after site.docs.section.c" -> "before site.docs.section.c"\n'
        "  ~ site.docs.section.a  (reorder)\n"
        '      position: "after site.docs.section.c" -> "after site.docs.section.b"\n'
        "Run 'docform plan' to see what remains; apply again to make it."
    )
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_paths(sandbox) == ["b", "a", "c"]


def test_apply_reads_back_only_the_kinds_it_changed(
    sandbox: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    team = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Support"})
    manifests = write_manifests(
        tmp_path / "manifests",
        f"""
        organization: {{id: org_acme}}
        teams:
          support: {{id: {team["id"]}, title: Customer support}}
        """,
    )
    caplog.clear()
    result = apply(manifests, sandbox)
    assert result.output.endswith("Apply complete: 1 change made.\n")
    requests = [m.groups() for r in caplog.records if (m := REQUEST_LINE.match(r.getMessage()))]
    last_write = max(i for i, (method, _) in enumerate(requests) if method != "GET")
    # Teams are matched by the members they hold, so members are read too; nothing else is.
    assert sorted(requests[last_write + 1 :]) == [
        ("GET", "/orgs/org_acme/members"),
        ("GET", "/orgs/org_acme/teams"),
        ("GET", f"/orgs/org_acme/teams/{team['id']}/members"),
    ]


def test_apply_reads_back_the_members_of_the_teams_it_changed_only(
    sandbox: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The teams the apply left alone keep their members as planning read them; the members,
    which the read after the apply lists whole again, are not kept for it."""
    teams = "".join(
        f"  t{n}: {{title: Team {n}, members: {{alice@acme.test: owner}}}}\n" for n in range(5)
    )
    head = "organization: {id: org_acme}\nmembers:\n  alice@acme.test: admin\n"
    head += "  erin@acme.test: edit\nteams:\n"
    manifests = write_manifests(tmp_path / "manifests", head + teams)
    apply(manifests, sandbox)
    changed = teams.replace(
        "t2: {title: Team 2, members: {alice@acme.test: owner}}",
        "t2: {title: Team 2, members: {alice@acme.test: owner, erin@acme.test: member}}",
    )
    write_manifests(manifests, head + changed)
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    plan, _ = asyncio.run(plan_manifests(load_manifest_set(manifests)))
    kinds = build_kinds("org_acme")
    earlier = earlier_read(load_manifest_set(manifests), kinds, plan.live_objects, plan.changes)
    assert earlier is not None
    assert set(earlier.objects) == {plan.live_objects[f"team.t{n}"]["id"] for n in (0, 1, 3, 4)}
    caplog.clear()

    result = apply(manifests, sandbox)

    assert result.output.endswith("Apply complete: 1 change made.\n")
    requests = [m.groups() for r in caplog.records if (m := REQUEST_LINE.match(r.getMessage()))]
    last_write = max(i for i, (method, _) in enumerate(requests) if method != "GET")
    read_back = [path for _, path in requests[last_write + 1 :] if path.endswith("/members")]
    team = next(t for t in live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
                if t["title"] == "Team 2")  # fmt: skip
    assert sorted(read_back) == [
        "/orgs/org_acme/members",
        f"/orgs/org_acme/teams/{team['id']}/members",
    ]
    assert_converged(manifests, sandbox)


def test_a_targeted_apply_reads_back_only_what_it_applied(sandbox: Path, tmp_path: Path) -> None:
    manifests = write_manifests(
        tmp_path / "manifests",
        """
        organization: {id: org_acme}
        teams:
          support: {title: Support}
          sales: {title: Sales}
        """,
    )

    result = run(["apply", manifests, "--yes", "--target", "team.support"], sandbox)

    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("Apply complete: 1 change made.\n")
    teams = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    assert [team["title"] for team in teams] == ["Support"]


def test_apply_reads_back_an_entry_through_the_id_it_was_matched_by(
    sandbox: Path, tmp_path: Path
) -> None:
    doc = "organization: {{id: org_acme}}\nspaces:\n  notes: {{title: Notes, emoji: '{}'}}\n"
    manifests = write_manifests(tmp_path / "manifests", doc.format("1f4dd"))
    apply(manifests, sandbox)
    # A second live space of the same title: only docform.lock tells which one is the entry's.
    live_api(sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Notes"})
    write_manifests(manifests, doc.format("1f4da"))

    result = apply(manifests, sandbox)

    assert result.stdout.endswith("Apply complete: 1 change made.\n")
    assert_converged(manifests, sandbox)


def apply_while_the_service(
    sandbox: Path,
    manifests: Path,
    *,
    after: Callable[[str, str], bool],
    changes: Callable[[], object],
) -> Result:
    """``docform apply --yes`` against the sandbox served so that, for each request
    ``after(method, path)`` picks, it ``changes`` something more once the request is done, as a
    side effect of its own: before it answers, so that docform never reads before the change
    (made after the answer, it raced docform's read after the apply)."""
    store = Store(sandbox)
    app = create_app(store, SandboxConfig(admin_tokens=(TOKEN,)))

    async def with_a_side_effect(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not after(scope["method"], scope["path"]):
            await app(scope, receive, send)
            return

        async def changed_before_the_answer(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":  # the request's own work is done
                await asyncio.to_thread(changes)
            await send(message)

        await app(scope, receive, changed_before_the_answer)

    env = {"DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    try:
        with served_app(with_a_side_effect) as root:
            return CliRunner().invoke(
                cli, ["apply", str(manifests), "--yes"], env={**env, "DOCFORM_API_URL": root}
            )
    finally:
        store.close()


def test_apply_reports_a_kind_it_did_not_change_that_no_longer_matches(
    sandbox: Path, tmp_path: Path
) -> None:
    """The read-back judges every kind it reads, not only those the apply changed: a section's
    ``default`` that moved when a section group was created (here the server moves it, as a
    side effect of the create) is not "Apply complete"."""
    doc = sections_doc(["a", "b", "c"]).replace(
        "{title: Section a,", "{title: Section a, default: true,"
    )
    manifests = write_manifests(tmp_path / "manifests", doc)
    apply(manifests, sandbox)
    b = next(s for s in live_api(sandbox, "GET", f"{DOCS}/sections")["items"] if s["path"] == "b")
    grouped = doc.replace(
        "    sections:\n",
        "    sectionGroups:\n      more: {title: More, sections: [c]}\n    sections:\n",
    )
    write_manifests(manifests, grouped)
    move = {"defaultSiteSection": b["id"]}

    result = apply_while_the_service(
        sandbox,
        manifests,
        after=lambda method, path: method == "POST",
        changes=lambda: live_api(sandbox, "PATCH", DOCS, move),
    )

    assert result.exit_code == 1, result.output
    assert "Apply complete" not in result.output
    assert "  ~ site.docs.section.a  (update)\n      default: false -> true\n" in result.stderr
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_apply_reads_back_what_refers_to_an_object_it_moved(sandbox: Path, tmp_path: Path) -> None:
    """A kind the apply did not change but that refers to an object it moved is read back
    too: here the server drops the space's grant as a side effect of the move, and the apply
    does not say "complete"."""
    doc = """
        organization: {{id: org_acme}}
        teams:
          platform: {{title: Platform}}
        collections:
          a: {{title: A}}
          b: {{title: B}}
        spaces:
          guide: {{title: Guide, collection: {where}, access: {{teams: {{platform: edit}}}}}}
        """
    manifests = write_manifests(tmp_path / "manifests", doc.format(where="a"))
    apply(manifests, sandbox)
    write_manifests(manifests, doc.format(where="b"))
    [space] = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    [team] = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    grant = f"/spaces/{space['id']}/permissions/teams/{team['id']}"

    result = apply_while_the_service(
        sandbox,
        manifests,
        after=lambda method, path: method == "POST" and "move" in path,
        changes=lambda: live_api(sandbox, "DELETE", grant),
    )

    assert "POST /orgs/org_acme/spaces" not in result.output  # a move, not a new space
    assert result.exit_code == 1, result.output
    assert "Apply complete" not in result.output
    assert "  + space.guide.access.team.platform  (create)\n" in result.stderr
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
