"""End to end: translations of spaces (``translations:``).

Created with their instructions (after the space they translate, in the same apply), their
instructions replaced, deleted under prune, exported; an edit of the source or the language is
a new translation marked as the replacement of the live one, and deleting that one (its
translated content) is a rail. docform never asks the service to run a translation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
SPACES = {"handbook": {"title": "Handbook", "language": "en"}}


def write(manifests: Path, translations: dict[str, Any], prune: bool = False) -> None:
    doc: dict[str, Any] = {"organization": {"id": "org_acme"}, "spaces": SPACES}
    doc["translations"] = translations
    if prune:
        doc["docform"] = {"prune": {"translations": True}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


def french(**fields: Any) -> dict[str, Any]:
    return {"source": {"space": "handbook", "language": "en"}, "language": "fr", **fields}


def live_translations(sandbox: Path) -> list[dict[str, Any]]:
    return list(live_api(sandbox, "GET", f"{ORG_PATH}/translations")["items"])


def test_a_translation_is_created_after_its_space_then_converges(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Formal register."})})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("space.handbook", "create"), ("translation.handbook-fr", "create")]
    created = change(plan, "translation.handbook-fr")
    assert created["depends_on"] == ["space.handbook#create"]
    ((method, path, body),) = calls(created)
    assert (method, path) == ("POST", f"{ORG_PATH}/translations")
    assert body["source"] == {"space": {"$placeholder": "space.handbook.id"}, "language": "en"}
    assert body["language"] == "fr"
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    (live,) = live_translations(sandbox)
    assert (live["language"], live["source"]["language"]) == ("fr", "en")


def test_changed_instructions_are_put(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Formal register."})})
    apply(manifests, sandbox)
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Use tu, not vous."})})
    plan = plan_json(manifests, sandbox)
    updated = change(plan, "translation.handbook-fr")
    assert updated["fields"] == [
        {"path": "instructions", "before": "Formal register.", "after": "Use tu, not vous."}
    ]
    ((method, path, _),) = calls(updated)
    assert method == "PUT" and path.startswith(f"{ORG_PATH}/translations/")
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_an_unmanaged_translation_is_listed_then_deleted_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook-fr": french()})
    apply(manifests, sandbox)
    write(manifests, {})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert [u["kind"] for u in plan["unmanaged"]].count("translation") == 1
    write(manifests, {}, prune=True)
    plan = plan_json(manifests, sandbox)
    assert [a for _, a in actions(plan)] == ["delete"]
    apply(manifests, sandbox)
    assert live_translations(sandbox) == []


def test_a_new_language_replaces_the_translation_behind_a_rail(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook-fr": french()}, prune=True)
    apply(manifests, sandbox)
    write(manifests, {"handbook-fr": french(language="de")}, prune=True)
    planned = run(["plan", manifests, "--json"], sandbox)
    assert planned.exit_code == 1  # apply would refuse it
    plan = json.loads(planned.stdout)
    created = change(plan, "translation.handbook-fr", "create")
    assert created["replacement"]["delete"] is not None
    (violation,) = plan["rails"]["violations"]
    assert violation["rail"] == "replacement"
    assert "source and language never change: write the live ones back" in violation["message"]
    refused = run(["apply", manifests, "--yes"], sandbox)
    assert refused.exit_code == 1
    assert "translation" in refused.output and "--force" in refused.output
    assert len(live_translations(sandbox)) == 1
    forced = run(["apply", manifests, "--yes", "--force"], sandbox)
    assert forced.exit_code == 0, forced.output
    assert_converged(manifests, sandbox)
    assert [t["language"] for t in live_translations(sandbox)] == ["de"]


def test_a_pinned_translation_with_another_source_says_what_to_do(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, {"handbook-fr": french()})
    apply(manifests, sandbox)
    (live,) = live_translations(sandbox)
    write(manifests, {"handbook-fr": french(id=live["id"], language="de")})
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert "translation.handbook-fr: a translation's source and language cannot change" in (
        result.output
    )
    assert "remove `id:`" in result.output


def test_export_writes_translations_that_plan_no_change(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Formal register."})})
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    translations = yaml.safe_load((exported / "translations.yaml").read_text())["translations"]
    assert list(translations) == ["handbook-fr"]
    entry = translations["handbook-fr"]
    assert entry["language"] == "fr"
    assert entry["instructions"] == {"markdown": "Formal register."}
    assert_converged(exported, sandbox)


def test_docform_never_runs_a_translation(sandbox: Path, manifests: Path) -> None:
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Formal register."})})
    apply(manifests, sandbox)
    write(manifests, {"handbook-fr": french(instructions={"markdown": "Informal."})})
    plan = plan_json(manifests, sandbox)
    assert not [c for ch in plan["changes"] for c in ch["calls"] if c["path"].endswith("/run")]
    apply(manifests, sandbox)
    with open_store(sandbox) as store:
        stored = store.all("translation")
    assert [t.get("runs", 0) for t in stored] == [0], json.dumps(stored)
