"""End to end: a site's agent channels (``sites.<site>.channels``), made from the manifests and by
hand through the sandbox's API as an admin would, exported, planned, edited, drifted, adopted
and pruned."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    denied_by_policy,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

SITE = "/orgs/org_acme/sites/site_docs"
LIST = f"{SITE}/channels"
ADDRESS = "site.docs.channel.slack"
SLACK = """\
    organization: {id: org_acme, title: Acme}
    sites:
      docs:
        id: site_docs
        title: Acme Docs
        channels:
          slack:
            type: builtin:slack
            setupSettings: {allowedChannels: [support-*, docs]}
"""


def test_a_channel_is_made_with_its_full_values_and_converges(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, SLACK)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(ADDRESS, "create")]
    made = change(plan, ADDRESS)
    assert made["after"] == {
        "type": "builtin:slack",
        "role": "support",
        "setupSettings": {"allowedChannels": ["docs", "support-*"]},
    }
    assert calls(made) == [
        (
            "POST",
            LIST,
            {
                "type": "builtin:slack",
                "setupSettings": {"allowedChannels": ["support-*", "docs"]},
                "role": "support",
            },
        )
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", LIST)["items"]
    assert (live["type"], live["role"], live["status"]) == ("builtin:slack", "support", "pending")


def test_the_places_are_compared_as_a_set(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SLACK)
    apply(manifests, sandbox)
    write_manifests(manifests, SLACK.replace("[support-*, docs]", "[docs, support-*, docs]"))
    assert actions(plan_json(manifests, sandbox)) == []


def test_a_hand_made_channel_exports_plans_empty_edits_and_drifts_with_who(
    sandbox: Path, tmp_path: Path
) -> None:
    body = {"type": "builtin:linear", "setupSettings": {"allowedTeams": ["DOC"]}}
    made = in_ui(sandbox, "alice@acme.test", "POST", LIST, body)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text())["sites"]
    assert sites["acme-docs"]["channels"] == {
        "linear": {
            "type": "builtin:linear",
            "role": "support",
            "setupSettings": {"allowedTeams": ["DOC"]},
        }
    }
    assert_converged(exported, sandbox)

    text = (exported / "sites.yaml").read_text().replace("role: support", "role: collaborator")
    (exported / "sites.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [("site.acme-docs.channel.linear", "update")]
    edited = change(plan, "site.acme-docs.channel.linear")
    assert [(f["path"], f["before"], f["after"]) for f in edited["fields"]] == [
        ("role", "support", "collaborator")
    ]
    assert calls(edited) == [("PATCH", f"{LIST}/{made['id']}", {"role": "collaborator"})]

    apply(exported, sandbox)
    hand = {"type": "builtin:linear", "setupSettings": {"allowedTeams": ["DOC", "API"]}}
    in_ui(sandbox, "alice@acme.test", "PATCH", f"{LIST}/{made['id']}", hand)
    drift = run(["drift", exported, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    (drifted,) = json.loads(drift.stdout)["organizations"][0]["changes"]
    assert drifted["kind"] == "channel"
    assert [f["path"] for f in drifted["fields"]] == ["setupSettings.allowedTeams"]
    newest = drifted["changed_by"][0]
    assert (newest["actor"]["email"], newest["action"]) == (
        "alice@acme.test",
        "site.channel.updated",
    )


def test_a_new_type_is_sent_with_its_setup(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SLACK)
    apply(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", LIST)["items"]
    write_manifests(
        manifests,
        SLACK.replace("builtin:slack", "builtin:discord")
        + "            formerly: [builtin:slack]\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, ADDRESS)) == [
        (
            "PATCH",
            f"{LIST}/{live['id']}",
            {
                "type": "builtin:discord",
                "setupSettings": {"allowedChannels": ["support-*", "docs"]},
            },
        )
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_a_setup_list_its_type_does_not_take_is_refused_at_its_line(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, SLACK.replace("allowedChannels", "allowedTeams"))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:7:" in result.output
    assert "setupSettings.allowedTeams: a builtin:slack channel takes allowedChannels" in (
        result.output
    )


def test_an_unlisted_channel_is_listed_then_deleted_only_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    made = live_api(
        sandbox, "POST", LIST, {"type": "builtin:github", "setupSettings": {}, "role": "support"}
    )
    bare = SLACK.split("        channels:")[0] + "        channels: {}\n"
    write_manifests(manifests, bare)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert made["id"] in [u["id"] for u in plan["unmanaged"]]
    write_manifests(manifests, bare + "    docform: {prune: {channels: true}}\n")
    (gone,) = [c for c in plan_json(manifests, sandbox)["changes"] if c["action"] == "delete"]
    assert calls(gone) == [("DELETE", f"{LIST}/{made['id']}", None)]
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", LIST)["items"] == []


SUPPORT_ONLY = """\
    policies:
      support-only:
        description: The agent answers in outside tools, it opens no change requests there.
        each: change
        rule: "!(change.kind == 'channel' && change.after.role == 'collaborator')"
        message: "change.human_key + ' would open change requests'"
"""


def test_a_policy_sees_a_channels_change(sandbox: Path, manifests: Path) -> None:
    write_manifests(
        manifests,
        SLACK.replace("type: builtin:slack", "type: builtin:slack\n            role: collaborator")
        + SUPPORT_ONLY,
    )
    assert denied_by_policy(manifests, sandbox)[:2] == ("support-only", ADDRESS)


def test_adopt_writes_a_hand_change_into_the_entry_and_keeps_comments(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(
        manifests,
        SLACK.replace(
            "        channels:\n", "        # Where the agent answers.\n        channels:\n"
        ),
    )
    apply(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", LIST)["items"]
    in_ui(sandbox, "alice@acme.test", "PATCH", f"{LIST}/{live['id']}", {"role": "collaborator"})
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    text = (manifests / "main.yaml").read_text()
    assert "# Where the agent answers." in text and "role: collaborator" in text
    assert_converged(manifests, sandbox)
