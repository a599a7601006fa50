"""The manifest corpora: every invalid case reports exactly its expected problems (location and
message), every valid one loads, and the full one uses every field of every kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from docform.kind_registry import nested_kinds
from docform.manifest import ENTRY_SECTIONS, ManifestError, ManifestSet, load_manifest_set
from docform.manifest.document import ManifestDocument
from docform.manifest.messages import model_at

CORPUS = Path(__file__).parents[1] / "manifests"
INVALID_CASES = sorted(path for path in (CORPUS / "invalid").iterdir() if path.is_dir())
VALID_ENV = {
    "DOCFORM_TEST_SPEC_AUTH": "reader:s3cret",
    "DOCFORM_TEST_AZURE_CERT": "-----BEGIN CERTIFICATE-----\nAZURE\n-----END CERTIFICATE-----",
    "DOCFORM_TEST_SEGMENT_KEY": "wk-full-corpus",
}
SCHEMA_MODELINE = "# yaml-language-server: $schema="


def load_valid(name: str) -> ManifestSet:
    return load_manifest_set(CORPUS / "valid" / name, env=VALID_ENV)


@pytest.mark.parametrize("case", INVALID_CASES, ids=lambda path: path.name)
def test_invalid_manifest_reports_exactly_the_expected_problems(case: Path) -> None:
    with pytest.raises(ManifestError) as caught:
        load_manifest_set(case, env={})
    expected = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert [str(problem) for problem in caught.value.problems] == expected


def test_invalid_corpus_holds_at_least_40_mistake_classes() -> None:
    assert len(INVALID_CASES) >= 40


@pytest.mark.parametrize(
    ("name", "summary"),
    [
        ("minimal", "1 organization in 1 file"),
        ("anchors", "1 organization, 2 members, 2 teams, 2 spaces in 1 file"),
    ],
)
def test_valid_manifest_loads_and_summarises_what_it_holds(name: str, summary: str) -> None:
    assert load_valid(name).summary() == summary


def test_the_corpus_of_every_field_holds_entries_of_every_kind() -> None:
    """The tests across kinds (every kind's whole life, the sandbox's answer to any request,
    `docform state`) take their objects from it: a new kind's entries go there."""
    nouns = {s.plural for s in ENTRY_SECTIONS.values()} | {k.plural for k in nested_kinds()}
    assert sorted(nouns - set(load_valid("full").counts())) == []


def test_valid_corpus_files_carry_the_schema_modeline() -> None:
    files = [*(CORPUS / "valid").rglob("*.yaml"), *(CORPUS / "valid").rglob("*.yml")]
    assert files
    for path in files:
        first_line = path.read_text(encoding="utf-8").splitlines()[0]
        assert first_line.startswith(SCHEMA_MODELINE), path
        target = first_line.removeprefix(SCHEMA_MODELINE)
        assert (path.parent / target).resolve().name == "docform.schema.json"
        assert (path.parent / target).resolve().is_file(), path


def _fields_set(model: BaseModel, seen: dict[type, set[str]]) -> None:
    seen.setdefault(type(model), set()).update(model.model_fields_set)
    for name in model.model_fields_set:
        value = getattr(model, name)
        if isinstance(value, dict):
            items = list(value.values())
        elif isinstance(value, list):
            items = value
        else:
            items = [value]
        for item in items:
            if isinstance(item, BaseModel):
                _fields_set(item, seen)


def _all_models(model: type[BaseModel], found: set[type[BaseModel]]) -> None:
    if model in found:
        return
    found.add(model)
    for name in model.model_fields:
        inner = model_at(model, (name,))
        if inner is not None:
            _all_models(inner, found)


def test_full_corpus_sets_every_field_of_every_model() -> None:
    manifests = load_valid("full")
    seen: dict[type, set[str]] = {}
    _fields_set(manifests.settings, seen)
    _fields_set(manifests.organization, seen)
    for name in ENTRY_SECTIONS:
        for entry in manifests.section(name).values():
            _fields_set(entry, seen)
    models: set[type[BaseModel]] = set()
    _all_models(ManifestDocument, models)
    models.discard(ManifestDocument)
    missing = {
        model.__name__: sorted(set(model.model_fields) - seen.get(model, set())) for model in models
    }
    assert {name: fields for name, fields in missing.items() if fields} == {}
