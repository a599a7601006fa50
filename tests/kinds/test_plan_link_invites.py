"""End to end: the organization's link invites (``linkInvites:``), tied to their live invite by
a keyed fingerprint of its id, which is never shown: created, changed, refused a new target,
reported when nobody declared them, pruned, exported."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from docform.kinds.link_invite import fingerprint
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

INVITES = "/orgs/org_acme/link-invites"
READER = "tok_erin_0123456789"  # erin@acme.test, an editor: a member, not an admin


def written(directory: Path, invites: dict[str, object] | None, **settings: object) -> Path:
    """Manifests with these ``linkInvites`` (None: no such section)."""
    doc: dict[str, object] = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
    }
    if invites is not None:
        doc["linkInvites"] = invites
    if settings:
        doc["docform"] = settings
    return write_manifests(directory, yaml.safe_dump(doc, sort_keys=False))


def test_invites_are_created_tied_by_fingerprint_and_changed(
    sandbox: Path, manifests: Path
) -> None:
    written(
        manifests, {"join": {"role": "read"}, "guests": {"level": "guest", "space": "handbook"}}
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "linkInvite.join")) == [("POST", INVITES, {"role": "read"})]
    output = apply(manifests, sandbox).output
    assert "Note: ways in read back: 2 objects open and closed as the plan predicted" in output
    (joining,) = [i for i in live_api(sandbox, "GET", INVITES)["items"] if "level" not in i]
    lock = (manifests / "docform.lock").read_text()
    assert "linkInvite.join: li_" in lock and joining["id"] not in lock
    assert_converged(manifests, sandbox)
    written(
        manifests, {"join": {"role": "edit"}, "guests": {"level": "guest", "space": "handbook"}}
    )
    update = change(plan_json(manifests, sandbox), "linkInvite.join")
    (call,) = update["calls"]
    assert call["path"].startswith(f"{INVITES}/${{secret.li_")
    assert joining["id"] not in call["path"]
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", f"{INVITES}/{joining['id']}")["role"] == "edit"
    assert_converged(manifests, sandbox)


def test_an_invite_keeps_its_target(sandbox: Path, manifests: Path) -> None:
    written(manifests, {"guests": {"level": "guest", "space": "handbook"}})
    apply(manifests, sandbox)
    written(manifests, {"guests": {"role": "guest"}})
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert "linkInvite.guests: target: a link invite's target never changes" in result.output


def test_an_undeclared_open_invite_is_reported_then_pruned(sandbox: Path, manifests: Path) -> None:
    made = live_api(sandbox, "POST", INVITES, {"role": "admin"})
    declared = {"join": {"role": "read"}}
    apply(written(manifests, declared), sandbox)
    plan = plan_json(manifests, sandbox)
    (unmanaged,) = [u for u in plan["unmanaged"] if u["kind"] == "link_invite"]
    assert unmanaged["id"].startswith("li_") and unmanaged["title"] == (
        "joins the organization as admin"
    )
    text = run(["plan", manifests], sandbox).output
    assert made["id"] not in text and unmanaged["id"] in text
    written(manifests, declared, prune={"linkInvites": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"linkInvite.~{unmanaged['id']}", "delete")]
    assert plan["audience"] == [
        {
            "on": "organization",
            "changes": [
                {
                    "change": "-",
                    "who": f"anyone holding linkInvite.~{unmanaged['id']}, joining as admin",
                    "before": None,
                    "after": None,
                }
            ],
        }
    ]
    apply(manifests, sandbox)
    assert [i["role"] for i in live_api(sandbox, "GET", INVITES)["items"]] == ["read"]


def test_drift_reports_an_undeclared_invite_without_its_id(sandbox: Path, manifests: Path) -> None:
    written(manifests, {"join": {"role": "read"}})
    apply(manifests, sandbox)
    made = live_api(sandbox, "POST", INVITES, {"role": "admin"})
    result = run(["drift", manifests], sandbox)
    assert result.exit_code == 2
    held = fingerprint("org_acme", made["id"])
    assert f"    linkInvite.~{held} (joins the organization as admin)\n" in result.output
    assert made["id"] not in result.output


def test_export_locks_fingerprints_and_plans_no_change(sandbox: Path, tmp_path: Path) -> None:
    made = live_api(sandbox, "POST", INVITES, {"role": "read"})
    out = tmp_path / "exported"
    assert run(["export", "org_acme", out], sandbox).exit_code == 0
    text = (out / "link-invites.yaml").read_text()
    lock = (out / "docform.lock").read_text()
    assert made["id"] not in text + lock
    ((name, entry),) = yaml.safe_load(text)["linkInvites"].items()
    assert entry == {"role": "read"}
    locked = yaml.safe_load(lock)["ids"][f"linkInvite.{name}"]
    assert locked == fingerprint("org_acme", made["id"]) and locked.startswith("li_")
    assert_converged(out, sandbox)


def test_manifests_without_invites_do_not_read_them(sandbox: Path, manifests: Path) -> None:
    """Listing invites needs the admin role: a plan that manages none does not ask."""
    live_api(sandbox, "POST", INVITES, {"role": "admin"})
    written(manifests, None)
    plan = plan_json(manifests, sandbox)
    assert [u for u in plan["unmanaged"] if u["kind"] == "link_invite"] == []


def test_an_empty_section_says_no_invite_should_exist(sandbox: Path, manifests: Path) -> None:
    """``linkInvites: {}`` manages invites with none declared: every open one is reported
    (drift exits 2), and pruned when pruning is on."""
    made = live_api(sandbox, "POST", INVITES, {"level": "edit", "space": _space(sandbox)})
    held = fingerprint("org_acme", made["id"])
    apply(written(manifests, {}), sandbox)
    assert "linkInvites: {}" in (manifests / "main.yaml").read_text()
    plan = plan_json(manifests, sandbox)
    assert [u["id"] for u in plan["unmanaged"] if u["kind"] == "link_invite"] == [held]
    result = run(["drift", manifests], sandbox)
    assert result.exit_code == 2, result.output
    assert held in result.output and made["id"] not in result.output
    written(manifests, {}, prune={"linkInvites": True})
    assert actions(plan_json(manifests, sandbox)) == [(f"linkInvite.~{held}", "delete")]
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", INVITES)["items"] == []
    assert_converged(manifests, sandbox)


def test_a_readers_plan_lists_invites_as_not_planned(sandbox: Path, manifests: Path) -> None:
    """Listing invites needs the admin role: a member's token still plans the rest and says
    which kind it could not read, rather than failing."""
    live_api(sandbox, "POST", INVITES, {"role": "admin"})
    written(manifests, {})
    result = run(["plan", manifests, "--json"], sandbox, token=READER)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    reasons = {item["kind"]: item["reason"] for item in plan["not_planned"]}
    assert reasons["link_invite"].startswith("link invites: the token may not read them")
    assert "admin role" in reasons["link_invite"]
    text = run(["plan", manifests], sandbox, token=READER).output
    assert "link invites: the token may not read them" in text


def _space(sandbox: Path) -> str:
    return str(live_api(sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Guides"})["id"])
