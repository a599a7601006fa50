"""End to end: the translation glossary (``glossary:``), made by hand through the sandbox's
API as an admin would, exported, planned, edited, drifted, adopted and pruned; entries
matched by any of their terms, since the glossary's PUT answers no ids; and the sandbox's
glossary routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.api.errors import ApiError
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

GLOSSARY = "/orgs/org_acme/translations-glossary"
WORKSPACE = """\
    organization: {id: org_acme, title: Acme}
    glossary:
      # Never translated as "area".
      workspace:
        language: en
        term: Workspace
        translations: {fr: Espace de travail, de: Arbeitsbereich}
"""


def write(sandbox: Path, *operations: dict[str, Any]) -> None:
    live_api(sandbox, "PUT", GLOSSARY, {"operations": list(operations)})


def entries(sandbox: Path) -> list[dict[str, Any]]:
    return list(live_api(sandbox, "GET", GLOSSARY)["items"])


def test_an_entry_is_inserted_then_tied_by_its_id(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, WORKSPACE)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("glossaryEntry.workspace", "create")]
    terms = {"en": "Workspace", "fr": "Espace de travail", "de": "Arbeitsbereich"}
    assert calls(change(plan, "glossaryEntry.workspace")) == [
        ("PUT", GLOSSARY, {"operations": [{"type": "insert", "translations": terms}]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    (live,) = entries(sandbox)
    assert live["translations"] == terms
    lock = yaml.safe_load((manifests / "docform.lock").read_text())
    assert lock["ids"]["glossaryEntry.workspace"] == live["id"]


def test_a_hand_made_entry_exports_plans_empty_edits_one_field_and_drifts(
    sandbox: Path, tmp_path: Path
) -> None:
    made = {"type": "insert", "translations": {"fr": "Espace", "en": "Space", "de": "Bereich"}}
    in_ui(sandbox, "alice@acme.test", "PUT", GLOSSARY, {"operations": [made]})
    (live,) = entries(sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    glossary = yaml.safe_load((exported / "glossary.yaml").read_text())["glossary"]
    assert glossary == {
        "space": {
            "language": "en",
            "term": "Space",
            "translations": {"de": "Bereich", "fr": "Espace"},
        }
    }
    assert_converged(exported, sandbox)

    text = (exported / "glossary.yaml").read_text().replace("de: Bereich", "de: Raum")
    (exported / "glossary.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [("glossaryEntry.space", "update")]
    edited = change(plan, "glossaryEntry.space")
    assert [(f["path"], f["before"], f["after"]) for f in edited["fields"]] == [
        ("translations.de", "Bereich", "Raum")
    ]
    terms = {"en": "Space", "de": "Raum", "fr": "Espace"}
    update = {"type": "update", "id": live["id"], "translations": terms}
    assert calls(edited) == [("PUT", GLOSSARY, {"operations": [update]})]

    apply(exported, sandbox)
    hand = {"type": "update", "id": live["id"], "translations": {**terms, "fr": "Espace partagé"}}
    in_ui(sandbox, "alice@acme.test", "PUT", GLOSSARY, {"operations": [hand]})
    drift = run(["drift", exported, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    (drifted,) = json.loads(drift.stdout)["organizations"][0]["changes"]
    assert [f["path"] for f in drifted["fields"]] == ["translations.fr"]
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"


def test_an_entry_deleted_by_hand_is_drift_naming_who_that_plans_its_return(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, WORKSPACE)
    apply(manifests, sandbox)
    (live,) = entries(sandbox)
    delete = {"type": "delete", "id": live["id"]}
    in_ui(sandbox, "alice@acme.test", "PUT", GLOSSARY, {"operations": [delete]})
    drift = run(["drift", manifests, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    (drifted,) = json.loads(drift.stdout)["organizations"][0]["changes"]
    assert (drifted["address"], drifted["action"]) == ("glossaryEntry.workspace", "create")
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"


def test_a_renamed_term_is_an_update_of_the_entry_the_lock_ties(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, WORKSPACE)
    apply(manifests, sandbox)
    write_manifests(manifests, WORKSPACE.replace("term: Workspace", "term: Work space"))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("glossaryEntry.workspace", "update")]


def test_an_entry_without_the_lock_is_found_by_any_of_its_terms(
    sandbox: Path, manifests: Path
) -> None:
    write(sandbox, {"type": "insert", "translations": {"de": "Arbeitsbereich", "en": "Workspace"}})
    write_manifests(manifests, WORKSPACE)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("glossaryEntry.workspace", "update")]
    assert [f["path"] for f in change(plan, "glossaryEntry.workspace")["fields"]] == [
        "translations.fr"
    ]


def test_the_terms_own_language_in_translations_is_refused_at_its_line(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, WORKSPACE.replace("{fr:", "{en: Workspace, fr:"))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:4:" in result.output
    assert "translations.en: the term's own language is `language` and `term`" in result.output


def test_an_unlisted_entry_is_listed_then_deleted_only_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    write(sandbox, {"type": "insert", "translations": {"en": "Legacy"}})
    (live,) = entries(sandbox)
    bare = "    organization: {id: org_acme, title: Acme}\n"
    write_manifests(manifests, bare)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert live["id"] in [u["id"] for u in plan["unmanaged"]]
    write_manifests(manifests, bare + "    docform: {prune: {glossary: true}}\n")
    plan = plan_json(manifests, sandbox)
    (gone,) = plan["changes"]
    delete = {"type": "delete", "id": live["id"]}
    assert calls(gone) == [("PUT", GLOSSARY, {"operations": [delete]})]
    apply(manifests, sandbox)
    assert entries(sandbox) == []


FRENCH = """\
    policies:
      french-too:
        description: Every glossary entry says how French renders it.
        each: change
        rule: "!(change.kind == 'glossary_entry' && !('fr' in change.after.translations))"
        message: "change.human_key + ' has no French term'"
"""


def test_a_policy_sees_an_entrys_terms(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, WORKSPACE.replace("fr: Espace de travail, ", "") + FRENCH)
    assert denied_by_policy(manifests, sandbox)[:2] == ("french-too", "glossaryEntry.workspace")


def test_adopt_writes_a_hand_change_into_the_entry_and_keeps_comments(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, WORKSPACE)
    apply(manifests, sandbox)
    (live,) = entries(sandbox)
    terms = {**live["translations"], "de": "Arbeitsfläche"}
    hand = {"type": "update", "id": live["id"], "translations": terms}
    in_ui(sandbox, "alice@acme.test", "PUT", GLOSSARY, {"operations": [hand]})
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    text = (manifests / "main.yaml").read_text()
    assert '# Never translated as "area".' in text and "Arbeitsfläche" in text
    assert_converged(manifests, sandbox)


@pytest.mark.parametrize(
    ("operation", "why"),
    [
        ({"type": "insert", "translations": {}}, "give the term in one language at least"),
        ({"type": "insert", "translations": {"xx": "Term"}}, "'xx' is not a language"),
        ({"type": "insert", "translations": {"en": "Taken"}}, "two entries would have the en"),
        ({"type": "delete", "id": "nothing"}, "no glossary entry 'nothing'"),
    ],
    ids=["no terms", "not a language", "a term taken", "an unknown id"],
)
def test_the_sandbox_refuses_a_batch_it_cannot_write_whole(
    sandbox: Path, operation: dict[str, Any], why: str
) -> None:
    write(sandbox, {"type": "insert", "translations": {"en": "Taken"}})
    with pytest.raises(ApiError) as refused:
        write(sandbox, {"type": "insert", "translations": {"en": "Fine"}}, operation)
    assert refused.value.status == 400 and why in str(refused.value)
    assert [e["translations"] for e in entries(sandbox)] == [{"en": "Taken"}]


def test_the_sandbox_sorts_by_a_language_and_reads_one_entry(sandbox: Path) -> None:
    write(
        sandbox,
        {"type": "insert", "translations": {"fr": "Zèbre", "en": "Zebra"}},
        {"type": "insert", "translations": {"en": "Apple"}},
        {"type": "insert", "translations": {"fr": "Abeille", "en": "Bee"}},
    )
    listed = live_api(sandbox, "GET", f"{GLOSSARY}?orderBy=fr")["items"]
    assert [e["translations"]["en"] for e in listed] == ["Bee", "Zebra", "Apple"]
    one = live_api(sandbox, "GET", f"{GLOSSARY}/{listed[0]['id']}")
    assert one["translations"] == {"fr": "Abeille", "en": "Bee"}
