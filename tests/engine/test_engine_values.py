"""Comparing and diffing values (engine/values.py), through plans against the sandbox: a list
whose order means nothing, and nested values that show only the parts that change."""

from __future__ import annotations

from planning import apply, change, live_api, plan_json, run, write_manifests

PEOPLE = "members:\n  alice@acme.test: admin\n  erin@acme.test: edit\n  bob@acme.test: guest\n"
DOMAINS = "organization: {{id: org_acme, emailDomains: [{}]}}\n"


def test_email_domains_in_another_order_are_no_change(tmp_path, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"emailDomains": ["acme.test", "b.test"]})
    manifests = write_manifests(tmp_path / "m", DOMAINS.format("b.test, acme.test") + PEOPLE)
    result = run(["plan", manifests, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output


def test_an_added_email_domain_is_a_change(tmp_path, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"emailDomains": ["acme.test", "b.test"]})
    yaml = DOMAINS.format("b.test, c.test, acme.test") + PEOPLE
    plan = plan_json(write_manifests(tmp_path / "m", yaml), sandbox)
    assert change(plan, "organization")["fields"] == [
        {"path": "emailDomains", "before": ["acme.test", "b.test"],
         "after": ["b.test", "c.test", "acme.test"]}
    ]  # fmt: skip


def test_a_team_member_whose_role_changes_is_the_only_field_shown(tmp_path, sandbox):
    team = "organization: {id: org_acme}\n" + PEOPLE + "teams:\n  core:\n    title: Core\n"
    team += "    members: {alice@acme.test: owner, erin@acme.test: %s}\n"
    manifests = write_manifests(tmp_path / "m", team % "member")
    apply(manifests, sandbox)
    write_manifests(manifests, team % "owner")
    plan = plan_json(manifests, sandbox)
    assert change(plan, "team.core")["fields"] == [
        {"path": "members.erin@acme.test", "before": "member", "after": "owner"}
    ]  # fmt: skip
    text = run(["plan", manifests], sandbox).stdout
    assert '      ~ members.erin@acme.test: "member" -> "owner"\n' in text


def test_a_merge_rule_shows_only_the_list_that_changes(tmp_path, sandbox):
    rules = (
        "organization:\n  id: org_acme\n  mergeRules:\n    type: rules\n    rules:\n"
        "      - {rule: require_at_least_one_review}\n"
        "      - {rule: allow_bypass, users: [%s]}\n"
    )
    manifests = write_manifests(tmp_path / "m", rules % "alice@acme.test" + PEOPLE)
    apply(manifests, sandbox)
    write_manifests(manifests, rules % "alice@acme.test, erin@acme.test" + PEOPLE)
    plan = plan_json(manifests, sandbox)
    assert change(plan, "organization")["fields"] == [
        {"path": "mergeRules.rules[1].users",
         "before": [{"$ref": "member.alice@acme.test"}],
         "after": [{"$ref": "member.alice@acme.test"}, {"$ref": "member.erin@acme.test"}]}
    ]  # fmt: skip
