"""`ignore:` in the settings (engine/ignore.py): plan leaves ignored items out and counts them."""

from __future__ import annotations

from pathlib import Path

from docform.engine.ignore import Ignored, IgnoreRules
from docform.engine.plan import Change, Plan
from planning import (
    actions,
    append_manifests,
    apply,
    calls,
    change,
    plan_json,
    run,
    write_manifests,
)

# The seeded organization as it is live: nothing to change, nothing unmanaged.
IN_SYNC = """\
    docform:
      ignore: {ignore}
    organization: {{id: org_acme, title: {title}}}
    members: {{alice@acme.test: admin, erin@acme.test: {erin}, bob@acme.test: guest}}
    sites: {{docs: {{id: site_docs, title: Acme Docs}}}}
"""


def manifests(tmp_path: Path, ignore: str, title: str = "Acme", erin: str = "edit") -> Path:
    return write_manifests(tmp_path / "m", IN_SYNC.format(ignore=ignore, title=title, erin=erin))


def test_an_ignored_field_is_not_compared_and_is_counted(tmp_path, sandbox):
    directory = manifests(tmp_path, "[organization.title]", title="Acme Renamed")
    plan = plan_json(directory, sandbox)
    assert plan["changes"] == []
    assert plan["ignored"] == [
        {
            "item": "field",
            "address": "organization",
            "kind": "organization",
            "action": None,
            "field": "title",
            "id": "org_acme",
            "title": None,
            "pattern": "organization.title",
            "because": None,
        }
    ]


def test_a_field_equal_to_live_is_not_counted_as_ignored(tmp_path, sandbox):
    plan = plan_json(manifests(tmp_path, "[organization.title]"), sandbox)
    assert plan["ignored"] == []


def test_an_ignored_field_stays_out_of_the_calls_of_other_changes(tmp_path, sandbox):
    title = "Acme Renamed, defaultRole: edit"
    plan = plan_json(manifests(tmp_path, "[organization.title]", title=title), sandbox)
    assert calls(change(plan, "organization", "update")) == [
        ("PATCH", "/orgs/org_acme", {"defaultRole": "edit"})
    ]


def test_a_star_covers_member_addresses_that_hold_dots(tmp_path, sandbox):
    plan = plan_json(manifests(tmp_path, "['member.*.role']", erin="read"), sandbox)
    assert plan["changes"] == []
    assert [(i["address"], i["field"]) for i in plan["ignored"]] == [
        ("member.erin@acme.test", "role")
    ]


def test_unmanaged_objects_are_ignored_by_id_or_by_title(tmp_path, sandbox):
    directory = write_manifests(
        tmp_path / "m",
        """\
        docform:
          ignore: [member.bob@acme.test, site.~site_docs]
        organization: {id: org_acme}
        members: {alice@acme.test: admin, erin@acme.test: edit}
        """,
    )
    plan = plan_json(directory, sandbox)
    assert plan["unmanaged"] == []
    assert [(i["item"], i["id"], i["title"], i["pattern"]) for i in plan["ignored"]] == [
        ("unmanaged", "u_bob", "bob@acme.test", "member.bob@acme.test"),
        ("unmanaged", "site_docs", "Acme Docs", "site.~site_docs"),
    ]


def test_an_ignored_unmanaged_object_is_not_pruned(tmp_path, sandbox):
    directory = write_manifests(
        tmp_path / "m",
        """\
        docform:
          prune: {members: true}
          ignore: ['member.~u_bob']
        organization: {id: org_acme}
        members: {alice@acme.test: admin, erin@acme.test: edit}
        sites: {docs: {id: site_docs}}
        """,
    )
    plan = plan_json(directory, sandbox)
    assert actions(plan) == []
    assert [i["address"] for i in plan["ignored"]] == ["member.~u_bob"]


def test_an_ignored_address_drops_what_cannot_run_without_it(tmp_path, sandbox):
    directory = manifests(tmp_path, "[collection.engineering]")
    append_manifests(
        directory,
        "collections: {engineering: {title: Engineering}, tools: {title: Tools}}\n"
        "spaces: {handbook: {title: Handbook, collection: engineering}}\n",
    )
    plan = plan_json(directory, sandbox)
    assert actions(plan) == [("collection.tools", "create")]
    assert [(i["address"], i["action"], i["because"]) for i in plan["ignored"]] == [
        ("collection.engineering", "create", None),
        ("space.handbook", "create", "collection.engineering#create"),
    ]


def test_an_address_pattern_covers_everything_inside_it(tmp_path, sandbox):
    directory = manifests(tmp_path, "[site.docs]")
    append_manifests(directory, "spaces: {handbook: {title: Handbook}}\n")
    text = (
        (directory / "main.yaml")
        .read_text()
        .replace(
            "docs: {id: site_docs, title: Acme Docs}",
            "docs: {id: site_docs, title: Docs!, spaces: {main: {space: handbook, path: v1}}}",
        )
    )
    (directory / "main.yaml").write_text(text)
    plan = plan_json(directory, sandbox)
    assert actions(plan) == [("space.handbook", "create")]
    assert sorted(i["address"] for i in plan["ignored"]) == ["site.docs", "site.docs.space.main"]


def test_a_field_pattern_does_not_change_what_a_create_writes(tmp_path, sandbox):
    directory = manifests(tmp_path, "['space.*.emoji']")
    append_manifests(directory, "spaces: {handbook: {title: Handbook, emoji: '📘'}}\n")
    plan = plan_json(directory, sandbox)
    assert change(plan, "space.handbook", "create")["after"]["emoji"] == "📘"
    assert plan["ignored"] == []


def test_ignored_field_stays_in_sync_after_apply(tmp_path, sandbox):
    directory = manifests(tmp_path, "[organization.title]", title="Acme Renamed")
    apply(directory, sandbox)
    result = run(["plan", directory, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output


def test_the_text_plan_lists_and_counts_ignored_items(tmp_path, sandbox):
    directory = manifests(tmp_path, "[organization.title]", title="Acme Renamed")
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 0, result.output
    assert (
        "Ignored (1, by `ignore:` in the settings):\n"
        "  organization.title (differs): ignored by organization.title\n"
    ) in result.stdout


def test_the_markdown_plan_counts_ignored_items(tmp_path, sandbox):
    directory = manifests(tmp_path, "[organization.title]", title="Acme Renamed")
    result = run(["plan", directory, "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    assert "<details><summary>1 ignored (settings)</summary>" in result.stdout
    assert "- organization.title (differs): ignored by organization.title" in result.stdout


def test_a_target_keeps_the_ignored_items(tmp_path, sandbox):
    directory = manifests(tmp_path, "[organization.title]", title="Acme Renamed")
    result = run(["plan", directory, "--json", "--target", "organization"], sandbox)
    assert result.exit_code == 0, result.output
    assert '"pattern": "organization.title"' in result.stdout


UNUSED = (
    "main.yaml:2:{col}: ignore pattern '{pattern}' matches nothing in the manifests or the "
    "live organization; correct it, or remove it from `ignore:`"
)


def test_a_pattern_that_matches_nothing_is_a_warning_with_its_place(tmp_path, sandbox):
    directory = manifests(tmp_path, "[space.scrach, organization.title]")
    text = run(["plan", directory], sandbox)
    assert text.exit_code == 0, text.output
    warning = UNUSED.format(col=12, pattern="space.scrach")
    assert text.stdout.startswith(f"Warning: {warning}\n\n")
    assert plan_json(directory, sandbox)["warnings"] == [warning]
    markdown = run(["plan", directory, "--markdown"], sandbox).stdout
    assert "> [!WARNING]\n> - main.yaml:2:12: ignore pattern &#x27;space.scrach&#x27; " in markdown
    drift = run(["drift", directory], sandbox)
    assert f"Warning: {warning}\n" in drift.stderr


def test_patterns_that_match_an_entry_a_field_or_an_unmanaged_object_give_no_warning(
    tmp_path, sandbox
):
    patterns = "[organization.title, team.*, member.bob@acme.test, site.docs, member.*.sso]"
    directory = manifests(tmp_path, patterns)
    append_manifests(directory, "teams: {core: {title: Core}}\n")
    assert plan_json(directory, sandbox)["warnings"] == []


# -- IgnoreRules on its own --------------------------------------------------------------------


def test_an_address_pattern_covers_the_object_and_what_is_inside_it_only() -> None:
    rules = IgnoreRules(["site.docs", "member.*@acme.test"])
    assert rules.address_pattern("site.docs") == "site.docs"
    assert rules.address_pattern("site.docs.section.start") == "site.docs"
    assert rules.address_pattern("site.docsy") is None
    assert rules.address_pattern("member.bob@acme.test") == "member.*@acme.test"


def test_a_field_pattern_names_one_field_of_the_objects_it_matches() -> None:
    rules = IgnoreRules(["team.*.members"])
    assert rules.field_pattern("team.platform", "members") == "team.*.members"
    assert rules.field_pattern("team.platform", "title") is None
    assert rules.address_pattern("team.platform") is None


def test_unused_warns_of_each_pattern_matching_nothing_at_its_place() -> None:
    rules = IgnoreRules(
        ["space.scratch", "team.*.title", "space.old", "site.nope"],
        ["main.yaml:2:5", "main.yaml:3:5", "main.yaml:4:5"],
    )
    warnings = rules.unused(["space.scratch"], ["team.core.title"], used=["space.old"])
    assert warnings == [
        "docform.ignore: ignore pattern 'site.nope' matches nothing in the manifests or the "
        "live organization; correct it, or remove it from `ignore:`"
    ]


def test_drop_changes_drops_what_needs_an_ignored_change_and_records_why() -> None:
    def planned(address: str, action: str, *needs: str) -> Change:
        kind = address.split(".", 1)[0]
        return Change(address, kind, action, "planned", None, {}, depends_on=list(needs))

    plan = Plan(
        "org_acme",
        changes=[
            planned("collection.eng", "create"),
            planned("space.handbook", "create", "collection.eng#create"),
            planned("team.core", "update"),
        ],
    )
    IgnoreRules(["collection.*"]).drop_changes(plan)
    assert [c.key for c in plan.changes] == ["team.core#update"]
    assert plan.ignored == [
        Ignored("change", "collection.eng", "collection", "collection.*", action="create"),
        Ignored(
            "change",
            "space.handbook",
            "space",
            "collection.*",
            action="create",
            because="collection.eng#create",
        ),
    ]
    assert plan.ignored[1].describe() == (
        "space.handbook (create): needs collection.eng#create, ignored by collection.*"
    )
