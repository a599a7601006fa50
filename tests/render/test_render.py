"""Text, JSON and Markdown renderings of one plan (render/)."""

import json
import re

from docform.engine.kind import Ref
from docform.engine.plan import Call, Change, FieldChange, Placeholder, Plan, Unmanaged
from docform.render import render_json, render_markdown, render_text


def sample_plan() -> Plan:
    plan = Plan(organization="org_acme")
    plan.changes = [
        Change(
            address="collection.engineering",
            kind="collection",
            action="create",
            action_reason="no live collection matches collections.yaml:2:3",
            before=None,
            after={"title": "Engineering"},
            fields=[FieldChange("title", None, "Engineering")],
            calls=[Call("POST", "/orgs/org_acme/collections", {"title": "Engineering"})],
        ),
        Change(
            address="space.handbook",
            kind="space",
            action="move",
            action_reason="live space s1 differs",
            before={"collection": None},
            after={"collection": Ref("collection.engineering")},
            fields=[FieldChange("collection", None, Ref("collection.engineering"))],
            calls=[
                Call(
                    "POST",
                    "/spaces/s1/move",
                    {"parent": Placeholder("collection.engineering")},
                )
            ],
            depends_on=["collection.engineering#create"],
            live_id="s1",
        ),
        Change(
            address="team.~t9",
            kind="team",
            action="delete",
            action_reason="no manifest entry manages team 'Old | <b>x</b>' and prune is on",
            before={"title": "Old | <b>x</b>"},
            after=None,
            calls=[Call("DELETE", "/orgs/org_acme/teams/t9")],
            live_id="t9",
            human_key="Old | <b>x</b>",
        ),
        Change(
            address="saml.okta",
            kind="saml",
            action="update",
            action_reason="differs",
            before={"certificate": "OLD-SECRET"},
            after={"certificate": "NEW-SECRET"},
            fields=[FieldChange("certificate", "OLD-SECRET", "NEW-SECRET", sensitive=True)],
            calls=[Call("PATCH", "/orgs/org_acme/saml/p1", {"certificate": "(resolved)"})],
            live_id="p1",
            sensitive=["certificate"],
        ),
    ]
    plan.unmanaged = [Unmanaged("space", "s7", "Scratch")]
    return plan


def test_text_shows_symbols_fields_calls_and_the_closing_line():
    text = render_text(sample_plan())
    assert "  + collection.engineering  (create)" in text
    assert '      + title: "Engineering"' in text
    assert "  > space.handbook  (move s1)" in text
    assert "      ~ collection: (none) -> collection.engineering" in text
    assert (
        'POST /spaces/s1/move {"parent": "(known after apply: collection.engineering.id)"}' in text
    )
    assert "  - team.~t9 (Old | <b>x</b>)  (delete t9)" in text
    assert "Plan: 1 to create, 1 to update, 1 to delete, 1 to move." in text


def test_text_never_shows_sensitive_values():
    text = render_text(sample_plan())
    assert "SECRET" not in text
    assert "      ~ certificate: (sensitive) -> (sensitive)" in text


def test_text_has_no_colour_codes_unless_asked():
    assert "\x1b[" not in render_text(sample_plan())
    assert "\x1b[" in render_text(sample_plan(), color=True)


def test_no_change_plan_says_so():
    text = render_text(Plan(organization="org_acme"))
    assert "No changes. The live organization matches the manifests." in text


def test_json_has_the_documented_keys_and_placeholders():
    doc = json.loads(render_json(sample_plan()))
    assert set(doc) == {
        "format_version", "organization", "changes", "unmanaged", "summary", "ignored", "notes",
        "rails", "policies", "targeting", "warnings", "audience", "not_planned", "commit",
        "rehearsal", "fingerprints",
        "checksum",
    }  # fmt: skip
    assert doc["format_version"] == "1.4"
    assert doc["summary"] == {"create": 1, "update": 1, "delete": 1, "move": 1, "restore": 0}
    move = doc["changes"][1]
    assert set(move) == {
        "address", "previous_address", "human_key", "kind", "action", "action_reason", "id",
        "before", "after", "fields", "calls", "depends_on", "replacement", "takes",
        "loses",
    }  # fmt: skip
    assert move["calls"][0]["body"] == {"parent": {"$placeholder": "collection.engineering.id"}}
    assert move["after"] == {"collection": {"$ref": "collection.engineering"}}
    assert move["depends_on"] == ["collection.engineering#create"]


def test_json_masks_sensitive_fields():
    doc = render_json(sample_plan())
    assert "SECRET" not in doc


def test_checksum_is_stable_and_changes_with_the_plan():
    a, b = sample_plan(), sample_plan()
    assert a.checksum() == b.checksum()
    b.changes[0].after = {"title": "Other"}
    assert a.checksum() != b.checksum()


def test_markdown_puts_the_summary_and_deletions_first():
    md = render_markdown(sample_plan())
    lines = md.splitlines()
    assert lines[0] == "### docform plan"
    assert lines[2] == "**Plan: 1 to create, 1 to update, 1 to delete, 1 to move.**"
    assert md.index("to delete**") < md.index("| `+` | `collection.engineering` | create |")
    assert "<details><summary>Details: fields and API calls</summary>" in md


def test_markdown_escapes_user_text_outside_code_fences():
    md = render_markdown(sample_plan())
    outside = re.sub(r"```diff\n.*?\n```", "", md, flags=re.DOTALL)
    assert "<b>" not in outside
    assert "- :wastebasket: **delete** `team.~t9` (Old \\| &lt;b&gt;x&lt;/b&gt;)" in md
    assert "SECRET" not in md
