"""``--target`` and ``--exclude`` (engine/targets.py) through plan and apply: a pattern that
matches nothing is an error, and a narrowed plan says it is one."""

from __future__ import annotations

import json

import pytest

from docform.engine.plan import Change, Plan
from docform.engine.targets import TargetError, Targeting, narrow_plan
from planning import actions, live_api, plan_json, run, write_manifests

WHOLE_PLAN = 14
"""Changes in the plan of tests/fixtures/basic against the seeded sandbox."""


def test_a_target_that_matches_nothing_is_an_error_naming_the_closest(sandbox, basic):
    result = run(["plan", basic, "--target", "team.platfrom"], sandbox)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "Error: --target team.platfrom matches no address in the manifests or the live "
        "organization (closest: team.platform); check the spelling, or list the addresses "
        "with 'docform state list DIR'\n"
    )


def test_a_typo_in_a_member_target_never_reads_no_changes(sandbox, basic):
    result = run(
        ["plan", basic, "--target", "member.rae@acme.test", "--detailed-exitcode"], sandbox
    )
    assert result.exit_code == 1
    assert "No changes" not in result.output
    assert "--target member.rae@acme.test matches no address" in result.stderr


def test_an_exclude_that_matches_nothing_is_an_error(sandbox, basic):
    result = run(["plan", basic, "--exclude", "space.handbok"], sandbox)
    assert result.exit_code == 1
    assert "Error: --exclude space.handbok matches no address" in result.stderr
    assert "(closest: space.handbook)" in result.stderr


def test_a_target_with_no_changes_is_no_error_and_says_so(sandbox, basic):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"title": "Acme Corp", "defaultRole": "read"})
    result = run(["plan", basic, "--target", "organization", "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "Targeting is in effect (--target organization): "
        f"{WHOLE_PLAN - 1} other changes are left out of this plan.\n\n"
    )
    assert "No changes among the targeted addresses.\n" in result.stdout
    assert "matches the manifests" not in result.stdout


def test_a_targeted_plan_says_so_in_text_markdown_and_json(sandbox, basic):
    args = ["plan", basic, "--target", "space.oncall", "--exclude", "site.docs"]
    text = run(args, sandbox).stdout
    markdown = run([*args, "--markdown"], sandbox).stdout
    plan = json.loads(run([*args, "--json"], sandbox).stdout)
    note = (
        "Targeting is in effect (--target space.oncall --exclude site.docs): "
        f"{WHOLE_PLAN - 3} other changes are left out of this plan."
    )
    assert note in text
    assert f"> [!WARNING]\n> {note}\n" in markdown
    assert plan["targeting"] == {
        "targets": ["space.oncall"],
        "excludes": ["site.docs"],
        "left_out": WHOLE_PLAN - 3,
    }
    assert json.loads(run(["plan", basic, "--json"], sandbox).stdout)["targeting"] is None


def test_a_target_may_be_a_pattern(sandbox, basic):
    plan = json.loads(run(["plan", basic, "--json", "--target", "space.*"], sandbox).stdout)
    assert {a for a, _ in actions(plan)} == {
        "collection.engineering",
        "space.handbook",
        "collection.runbooks",
        "space.oncall",
    }


def test_an_unmanaged_member_is_targeted_by_its_email(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}}\norganization: {id: org_acme, title: Acme Inc}\n"
        "members:\n  alice@acme.test: admin\n",
    )
    plan = json.loads(
        run(["plan", manifests, "--json", "--target", "member.bob@acme.test"], sandbox).stdout
    )
    assert actions(plan) == [("member.~u_bob", "delete")]


def test_apply_takes_a_target_and_applies_only_that(sandbox, basic):
    result = run(["apply", basic, "--yes", "--target", "team.platform"], sandbox)
    assert result.exit_code == 0, result.output
    assert "Targeting is in effect (--target team.platform): " in result.stdout
    teams = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    assert [t["title"] for t in teams] == ["Platform"]
    assert live_api(sandbox, "GET", "/orgs/org_acme/collections")["items"] == []
    assert ("team.platform", "create") not in actions(plan_json(basic, sandbox))


def test_apply_refuses_a_target_that_matches_nothing_before_any_call(sandbox, basic):
    result = run(["apply", basic, "--yes", "--target", "team.platfrom"], sandbox)
    assert result.exit_code == 1
    assert "Error: --target team.platfrom matches no address" in result.stderr
    assert live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"] == []


def test_apply_takes_an_exclude(sandbox, basic):
    result = run(["apply", basic, "--yes", "--exclude", "saml", "--exclude", "site"], sandbox)
    assert result.exit_code == 0, result.output
    left = {a for a, _ in actions(plan_json(basic, sandbox))}
    assert left == {"saml.okta", "site.docs.sectionGroup.guides", "site.docs.section.start",
                    "site.docs.section.ops", "site.docs.section.start.space.main",
                    "site.docs.section.ops.space.oncall"}  # fmt: skip


def test_a_saved_plan_takes_no_target(sandbox, basic, tmp_path):
    saved = tmp_path / "docform.plan"
    assert run(["plan", basic, "--out", saved], sandbox).exit_code == 0
    result = run(["apply", saved, "--target", "team.platform"], sandbox)
    assert result.exit_code == 1
    assert "Error: --target goes with a directory; a saved plan applies as it was reviewed" in (
        result.stderr
    )


# -- narrow_plan on its own --------------------------------------------------------------------


def planned(address: str, action: str, *needs: str, human_key: str | None = None) -> Change:
    """A change of ``address`` depending on the changes keyed ``needs``."""
    kind = address.split(".", 1)[0]
    return Change(
        address, kind, action, "planned", None, {}, depends_on=list(needs), human_key=human_key
    )


def three_changes() -> Plan:
    """A collection's create, a space inside it, and an unrelated unmanaged member's delete."""
    return Plan(
        "org_acme",
        changes=[
            planned("collection.eng", "create"),
            planned("space.handbook", "create", "collection.eng#create"),
            planned("member.~u_bob", "delete", human_key="bob@acme.test"),
        ],
    )


def test_narrow_plan_keeps_a_target_and_what_it_depends_on() -> None:
    narrowed = narrow_plan(three_changes(), ["space.handbook"], [])
    assert [c.key for c in narrowed.changes] == ["collection.eng#create", "space.handbook#create"]
    assert narrowed.targeting == Targeting(("space.handbook",), (), 1)


def test_narrow_plan_drops_an_exclude_and_what_depends_on_it() -> None:
    narrowed = narrow_plan(three_changes(), [], ["collection.eng"])
    assert [c.key for c in narrowed.changes] == ["member.~u_bob#delete"]
    assert narrowed.targeting == Targeting((), ("collection.eng",), 2)


def test_narrow_plan_targets_an_unmanaged_object_by_its_human_key() -> None:
    narrowed = narrow_plan(three_changes(), ["member.bob@acme.test"], [])
    assert [c.key for c in narrowed.changes] == ["member.~u_bob#delete"]


def test_narrow_plan_without_patterns_is_the_plan_itself() -> None:
    plan = three_changes()
    assert narrow_plan(plan, [], []) is plan


def test_narrow_plan_refuses_a_pattern_that_matches_nothing_unless_told_not_to_check() -> None:
    with pytest.raises(TargetError) as caught:
        narrow_plan(three_changes(), ["space.handbok"], [])
    assert str(caught.value) == (
        "--target space.handbok matches no address in the manifests or the live organization "
        "(closest: space.handbook); check the spelling, or list the addresses with "
        "'docform state list DIR'"
    )
    unchecked = narrow_plan(three_changes(), ["space.handbok"], [], check=False)
    assert unchecked.changes == []
