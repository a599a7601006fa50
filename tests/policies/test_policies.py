"""Policies (``policies:``, src/docform/policies): checked in plan, apply, validate and drift,
through the CLI against the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning import apply, live_api, run, write_manifests

HEAD = """\
organization: {id: org_acme}
members:
  alice@acme.test: admin
  erin@acme.test: edit
teams:
  platform: {title: Platform}
"""


def manifests_with(tmp_path: Path, policies: str, extra: str = "") -> Path:
    return write_manifests(tmp_path / "m", HEAD + extra + "policies:\n" + policies)


def plan(manifests: Path, sandbox: Path, *args: str) -> tuple[int, dict]:
    result = run(["plan", manifests, "--json", *args], sandbox)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def promote_erin(manifests: Path) -> None:
    main = manifests / "main.yaml"
    main.write_text(main.read_text().replace("erin@acme.test: edit", "erin@acme.test: admin"))


ADMINS = "  admins: {builtin: minimum-admins, params: {count: %d}}\n"


def results(doc: dict) -> list[tuple[str, str, str]]:
    return [(r["policy"], r["severity"], r["address"]) for r in doc["policies"]["results"]]


# -- built-in policies ---------------------------------------------------------------------------


def test_minimum_admins_denies_a_plan_that_leaves_too_few(tmp_path, sandbox):
    manifests = manifests_with(
        tmp_path, "  admins: {builtin: minimum-admins, params: {count: 2}}\n"
    )
    code, doc = plan(manifests, sandbox)
    assert code == 1
    assert results(doc) == [("admins", "deny", "organization")]
    message = doc["policies"]["results"][0]["message"]
    assert message == "the organization would have 1 admins, fewer than 2"
    rails = [v["rail"] for v in doc["rails"]["violations"]]
    assert rails == ["policy.admins"]


def test_minimum_admins_passes_once_the_plan_adds_one(tmp_path, sandbox):
    policies = "  admins: {builtin: minimum-admins, params: {count: 2}}\n"
    manifests = manifests_with(tmp_path, policies)
    promote_erin(manifests)
    code, doc = plan(manifests, sandbox)
    assert code == 0
    assert doc["policies"] == {"evaluated": ["admins"], "results": []}


def test_a_denied_policy_stops_apply_before_any_call(tmp_path, sandbox):
    manifests = manifests_with(
        tmp_path, "  admins: {builtin: minimum-admins, params: {count: 3}}\n"
    )
    result = run(["apply", manifests, "--yes", "--force"], sandbox)
    assert result.exit_code == 1
    assert "policy.admins" in result.stderr
    assert live_api(sandbox, "GET", "/orgs/org_acme/teams")["count"] == 0


def test_admins_use_sso_warns_without_failing_the_plan(tmp_path, sandbox):
    manifests = manifests_with(tmp_path, "  sso: {builtin: admins-use-sso, severity: warn}\n")
    code, doc = plan(manifests, sandbox)
    assert code == 0
    assert results(doc) == [("sso", "warn", "member.alice@acme.test")]
    text = run(["plan", manifests], sandbox)
    assert "Policies: 1 checked, 0 denied, 1 warned." in text.stdout
    assert "admin alice@acme.test does not sign in with SSO" in text.stdout


def test_admins_use_sso_passes_when_every_admin_has_sso(tmp_path, sandbox):
    manifests = manifests_with(tmp_path, "  sso: {builtin: admins-use-sso}\n")
    text = (manifests / "main.yaml").read_text()
    text = text.replace("alice@acme.test: admin", "alice@acme.test: {role: admin, sso: true}")
    (manifests / "main.yaml").write_text(text)
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])


def teams(count: int) -> str:
    return "".join(f"  t{i}: {{title: Team {i}}}\n" for i in range(count))


def test_max_deletion_share_denies_unless_the_label_is_given(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", HEAD.replace("teams:\n", "teams:\n" + teams(11)))
    apply(manifests, sandbox)
    pruned = "docform: {prune: {teams: true}, limits: {maxDeletions: 100}}\n" + HEAD
    policy = "policies:\n  share: {builtin: max-deletion-share, params: {kinds: {team: 0.2}}}\n"
    write_manifests(manifests, pruned.replace("teams:\n", "teams:\n" + teams(7)) + policy)
    code, doc = plan(manifests, sandbox, "--force")
    assert code == 1
    assert results(doc) == [("share", "deny", "organization")]
    assert "more than the allowed share of team" in doc["policies"]["results"][0]["message"]
    code, doc = plan(manifests, sandbox, "--force", "--label", "mass-delete")
    assert (code, doc["policies"]["results"]) == (0, [])


def test_public_sites_must_be_allowed(tmp_path, sandbox):
    site = "sites:\n  docs: {id: site_docs, visibility: public}\n"
    manifests = manifests_with(tmp_path, "  public: {builtin: public-sites-allowed}\n", site)
    code, doc = plan(manifests, sandbox)
    assert (code, results(doc)) == (1, [("public", "deny", "site.docs")])
    write_manifests(
        manifests,
        HEAD + site + "policies:\n  public:\n    builtin: public-sites-allowed\n"
        "    params: {allow: [site.docs]}\n",
    )
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])


def test_spaces_in_collections(tmp_path, sandbox):
    extra = "collections:\n  eng: {title: Engineering}\nspaces:\n  loose: {title: Loose}\n"
    manifests = manifests_with(tmp_path, "  homed: {builtin: spaces-in-collections}\n", extra)
    code, doc = plan(manifests, sandbox)
    assert (code, results(doc)) == (1, [("homed", "deny", "space.loose")])
    fixed = extra.replace("{title: Loose}", "{title: Loose, collection: eng}")
    write_manifests(
        manifests, HEAD + fixed + "policies:\n  homed: {builtin: spaces-in-collections}\n"
    )
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])


# -- rules of one's own --------------------------------------------------------------------------

NO_NEW_ADMINS = """\
  no-new-admins:
    description: Nobody becomes an admin through docform.
    each: change
    rule: >-
      !(change.kind == 'member' && has(change.after.role) && change.after.role == 'admin'
        && (!has(change.before.role) || change.before.role != 'admin'))
    message: "'would make ' + change.human_key + ' an admin'"
"""


def test_a_rule_over_a_change_before_and_after(tmp_path, sandbox):
    manifests = manifests_with(tmp_path, NO_NEW_ADMINS)
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])
    promote_erin(manifests)
    code, doc = plan(manifests, sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert (result["address"], result["message"]) == (
        "member.erin@acme.test",
        "would make erin@acme.test an admin",
    )
    assert result["location"] == "main.yaml:8:3"


def test_markdown_shows_policy_warnings_beside_the_rails(tmp_path, sandbox):
    manifests = manifests_with(
        tmp_path, NO_NEW_ADMINS.replace("each: change", "severity: warn\n    each: change")
    )
    promote_erin(manifests)
    result = run(["plan", manifests, "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    assert "> **Policies: 1 checked, 0 denied, 1 warned.**" in result.stdout
    assert (
        "`policy.no-new-admins`: member.erin@acme.test: would make erin@acme.test an admin"
        in result.stdout.replace("\\", "")
    )


# -- broken rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (
            "  p: {description: d, each: change, rule: \"change.acton == 'delete'\"}\n",
            "main.yaml:8:37: policies.p.rule: rule line 1 column 8: change has no field 'acton' "
            "(its fields: action, address, after, before, fields, human_key, id, kind, "
            "replacement)",
        ),
        (
            '  p: {description: d, rule: "desired.teams.size() > 0"}\n',
            "main.yaml:8:23: policies.p.rule: rule line 1 column 9: organization has no field "
            "'teams' (its fields: ",
        ),
        (
            '  p: {description: d, rule: "plan.changes.size( > 0"}\n',
            "main.yaml:8:23: policies.p.rule: rule line 1 column 20: Syntax error",
        ),
        (
            "  p: {description: d, rule: \"object.title == ''\"}\n",
            "main.yaml:8:23: policies.p.rule: rule line 1 column 7: undeclared reference to "
            "'object.title'",
        ),
        (
            "  p: {builtin: minimum-admin}\n",
            "policies.p: builtin: 'minimum-admin' is not a shipped policy (did you mean "
            "'minimum-admins'?)",
        ),
        (
            "  p: {builtin: minimum-admins, params: {cont: 2}}\n",
            "builtin minimum-admins has no parameter cont (its parameters: count)",
        ),
        ("  p: {rule: 'true'}\n", "description is required"),
        (
            "  p: {description: d, each: spaces, rule: 'true'}\n",
            "each: 'spaces' is not one of change",
        ),
    ],
)
def test_validate_locates_a_broken_rule_without_the_network(tmp_path, policy, expected):
    manifests = manifests_with(tmp_path, policy)
    result = run(["validate", manifests], Path("/nonexistent.sqlite"))
    assert result.exit_code == 1
    assert expected in result.output


def test_a_field_of_a_kind_is_checked_against_its_entries(tmp_path):
    rule = "  p: {description: d, each: space, rule: \"object.fields.colection != ''\"}\n"
    result = run(["validate", manifests_with(tmp_path, rule)], Path("/nonexistent.sqlite"))
    assert result.exit_code == 1
    assert "space fields has no field 'colection' (its fields: collection," in result.output


def test_a_rule_too_costly_is_stopped_and_fails_closed(tmp_path, sandbox):
    costly = (
        "  costly:\n    description: d\n    severity: warn\n"
        f"    params: {{xs: {list(range(100))}}}\n    rule: >-\n"
        "      params.xs.all(a, params.xs.all(b, params.xs.all(c, params.xs.all(d, a + b + c"
        " + d >= 0))))\n"
    )
    code, doc = plan(manifests_with(tmp_path, costly), sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert result["severity"] == "error"
    assert "the rule was not evaluated: it may take up to" in result["message"]


def test_a_rule_that_errs_fails_closed(tmp_path, sandbox):
    erring = "  p: {description: d, severity: warn, rule: \"desired.member[5].title == ''\"}\n"
    code, doc = plan(manifests_with(tmp_path, erring), sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert result["severity"] == "error"
    assert result["message"].startswith("the rule failed: ")


# -- drift -------------------------------------------------------------------------------------


def test_drift_reports_a_policy_a_hand_change_breaks(tmp_path, sandbox):
    policies = "  admins: {builtin: minimum-admins, params: {count: 1}}\n"
    manifests = manifests_with(tmp_path, policies)
    apply(manifests, sandbox)
    live_api(sandbox, "PATCH", "/orgs/org_acme/members/u_alice", {"role": "edit"})
    result = run(["drift", manifests, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    [org] = json.loads(result.stdout)["organizations"]
    [broken] = org["policies"]["results"]
    assert broken["message"] == "the organization would have 0 admins, fewer than 1"
    text = run(["drift", manifests], sandbox)
    assert "Policies the live organization does not meet (1):" in text.stdout


# -- the inputs as documented ----------------------------------------------------------------


def test_every_field_a_rule_can_read_is_declared(tmp_path_factory, monkeypatch):
    """The objects of a plan of every kind carry only the fields `docform validate` lets rules
    read, so a rule that validates never fails on a field the schema does not know."""
    import asyncio
    import shutil

    from docform.manifest.loader import load_manifest_set
    from docform.policies.objects import desired_records, live_records
    from docform.policies.schema import kind_fields
    from docform.workflow.run import plan_manifests
    from planning import FIXTURES, applied_rich_organization

    sandbox = applied_rich_organization(tmp_path_factory)
    manifests = tmp_path_factory.mktemp("again") / "m"
    shutil.copytree(FIXTURES / "rich-org", manifests)
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    monkeypatch.setenv("DOCFORM_API_TOKEN", "tok_alice_0123456789")
    the_plan, _ = asyncio.run(plan_manifests(load_manifest_set(manifests)))
    declared = kind_fields()
    seen = set()
    for kind, matching in the_plan.matchings:
        records = (*desired_records(kind, matching, set()), *live_records(kind, matching))
        for obj in (record.build() for record in records):
            unknown = set(obj["fields"]) - set(declared[kind])
            assert not unknown, f"{kind} objects carry undeclared fields {unknown}"
            seen.add(kind)
    assert {"member", "team", "space", "collection", "site", "section"} <= seen


def test_allow_accepts_a_denied_policy_for_one_object_only(tmp_path, sandbox):
    extra = "spaces:\n  loose: {title: Loose}\n  adrift: {title: Adrift}\n"
    manifests = manifests_with(tmp_path, "  homed: {builtin: spaces-in-collections}\n", extra)
    forced = run(["plan", manifests, "--force"], sandbox)
    assert forced.exit_code == 1, forced.output
    one = run(["plan", manifests, "--json", "--allow", "policy.homed:space.loose"], sandbox)
    assert one.exit_code == 1
    rails = json.loads(one.stdout)["rails"]
    assert [v["address"] for v in rails["accepted"]] == ["space.loose"]
    both = ["--allow", "policy.homed:space.loose", "--allow", "policy.homed:space.adrift"]
    result = run(["apply", manifests, "--yes", *both], sandbox)
    assert result.exit_code == 0, result.output
    assert live_api(sandbox, "GET", "/orgs/org_acme/spaces")["count"] == 2


def test_share_link_age_denies_an_old_active_link(tmp_path, sandbox):
    from datetime import UTC, datetime, timedelta

    from planning import open_store

    site = "sites:\n  docs:\n    id: site_docs\n"
    site += "    shareLinks:\n      partners: {title: Partners}\n"
    manifests = write_manifests(tmp_path / "m", HEAD + site)
    with open_store(sandbox) as store:
        store.set_now(datetime.now(UTC) - timedelta(days=100))
    apply(manifests, sandbox)
    with open_store(sandbox) as store:
        store.set_now(datetime.now(UTC))
    policy = "policies:\n  fresh: {builtin: share-link-age, params: {maxDays: 90}}\n"
    write_manifests(manifests, HEAD + site + policy)
    code, doc = plan(manifests, sandbox)
    assert (code, results(doc)) == (1, [("fresh", "deny", "site.docs.shareLink.partners")])
    message = doc["policies"]["results"][0]["message"]
    assert message.endswith("is older than 90 days: rotate it (delete it and create a new one)")
    inactive = site.replace("{title: Partners}", "{title: Partners, active: false}")
    write_manifests(manifests, HEAD + inactive + policy)
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])


def test_a_rule_past_the_runtimes_iteration_budget_says_what_to_use(tmp_path, sandbox):
    many = "  many:\n    description: d\n    severity: warn\n"
    ones = ", ".join(["1"] * 10_001)
    many += f"    params: {{xs: [{ones}]}}\n"
    # exists, not filter: the runtime's filter copies the list it builds at each step, so
    # 10,001 items took seconds of CPU before the budget stopped it.
    many += "    rule: params.xs.exists(x, x == 2)\n"
    code, doc = plan(manifests_with(tmp_path, many), sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert result["severity"] == "error"
    assert "Iteration budget exceeded" in result["message"]
    assert "use each: to check object by object, or tally and plan.deletions" in result["message"]


def test_tally_counts_a_field_as_the_plan_leaves_it(tmp_path, sandbox):
    rule = (
        "  p:\n    description: d\n    rule: >-\n"
        "      tally.desired.member.role['admin'] == 2 && tally.live.member.role['admin'] == 1"
        " && tally.desired.member.role['edit'] == 1\n"
    )
    head = HEAD.replace("erin@acme.test: edit\n", "erin@acme.test: edit\n  bob@acme.test: admin\n")
    manifests = write_manifests(tmp_path / "m", head + "policies:\n" + rule)
    code, doc = plan(manifests, sandbox)
    assert (code, doc["policies"]["results"]) == (0, [])


# -- bounded in time and memory ----------------------------------------------------------------

NESTED_NOT = "!" * 500 + "true"
AND_CHAIN = " && ".join(["true"] * 150)
REPLACES = "'a'" + (".replace('', '" + "b" * 32 + "')") * 5 + " != ''"


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "sets.contains(lists.range(100000), lists.range(100000))",
            "policies.p.rule: rule: even over the smallest plan it may take up to "
            "10,000,400,004 steps, more than the 5,000,000 allowed",
        ),
        (
            "size(lists.range(150000000)) > 0",
            "policies.p.rule: rule: even over the smallest plan it may take up to 150,000,006 "
            "steps, more than",
        ),
        (
            "lists.range(3000).map(x, lists.range(3000)).size() > 0",
            "policies.p.rule: rule: even over the smallest plan it may take up to",
        ),
        (
            "lists.range(plan.summary.delete).size() > 0",
            "policies.p.rule: rule line 1 column 7: lists.range() of a number that cannot be "
            "traced to a literal or a size cannot be bounded; write it with what can be",
        ),
        (
            "lists.range(3).sortBy(x, -x).size() > 0",
            "rule line 1 column 16: the cost of sortBy() cannot be bounded: sort a map() instead",
        ),
        (REPLACES, "policies.p.rule: rule: even over the smallest plan it may"),
        (NESTED_NOT, "policies.p.rule: rule: the rule nests deeper than 48 levels at offset 48"),
        (AND_CHAIN, "policies.p.rule: rule: the rule nests deeper than 100 levels"),
    ],
    ids=[
        "sets-of-ranges",
        "huge-range",
        "map-of-ranges",
        "range-of-input",
        "sortBy",
        "replace-growth",
        "500-not",
        "and-chain",
    ],
)
def test_validate_refuses_a_rule_that_cannot_be_bounded(tmp_path, rule, expected):
    policy = f"  p:\n    description: d\n    rule: {json.dumps(rule)}\n"
    result = run(["validate", manifests_with(tmp_path, policy)], Path("/nonexistent.sqlite"))
    assert result.exit_code == 1, result.output
    assert expected in result.output
    assert "Traceback" not in result.output and "RecursionError" not in result.output


def test_a_function_over_inputs_too_large_is_not_evaluated(tmp_path, sandbox):
    """Within validate's bounds over the smallest plan, past them over this one: the quadratic
    sets.contains of a 10,000-item list is refused before it runs, at the organization."""
    xs = ", ".join(map(str, range(10_000)))
    policy = (
        f"  p:\n    description: d\n    params: {{xs: [{xs}]}}\n"
        "    rule: sets.contains(params.xs, params.xs)\n"
    )
    code, doc = plan(manifests_with(tmp_path, policy), sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert (result["severity"], result["address"]) == ("error", "organization")
    assert result["message"].startswith(
        "the rule was not evaluated: it may take up to 100,020,005 steps over this plan"
    ), result["message"]


def test_a_policy_past_its_time_is_stopped_at_the_item_it_reached(tmp_path, sandbox, monkeypatch):
    """Between evaluations, a policy past `POLICY_SECONDS` stops with an error located at
    the object it had reached (here the first: no time at all is allowed)."""
    monkeypatch.setattr("docform.policies.evaluate.POLICY_SECONDS", -1.0)
    policy = "  p: {description: d, each: member, rule: \"object.fields.role != ''\"}\n"
    code, doc = plan(manifests_with(tmp_path, policy), sandbox)
    assert code == 1
    [result] = doc["policies"]["results"]
    assert result["severity"] == "error"
    assert result["address"].startswith("member.")
    assert result["message"] == (
        "the rule was stopped after -1 s, here, with 0 of its 3 evaluations made: make it "
        "cheaper (read fewer fields, filter first)"
    )
