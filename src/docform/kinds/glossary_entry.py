"""The organization's translation glossary (``glossary:``): each entry one term and how the
organization's translations must render it in other languages.

Identity. The glossary's PUT (a batch of inserts, updates and deletes) answers without ids, so
an entry is known by a term: its source ``language`` and ``term``, which the service keeps
unique per language (two entries never share a term in one language). A live entry is matched
by any of its terms (each ``(language, term)`` of its translations is a key of it), then tied
by its id in docform.lock, which the read after an apply, ``docform pin`` and export record;
a renamed term is then an update of the same entry. Drift names who changed an entry by the
audit events that target its id (one per operation of a batch).

Calls. One PUT per change, each holding one operation: ``insert`` with every term,
``update`` with the entry's id and every term (it replaces them), ``delete`` with its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import Field, StringConstraints, model_validator

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired
from docform.model.entry import Entry
from docform.model.fields import Language

Term = Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=r"^[^\n\r]*$")]
#: The language export writes an entry from, when the entry has a term in it.
EXPORT_SOURCE = "en"


class GlossaryEntry(Entry):
    """One glossary entry: a term and its renderings in other languages."""

    kind = "glossary_entry"
    key_label = "language and term"
    former_key_fields = ("term",)

    language: Language = Field(description="The language of the term.")
    term: Term = Field(description="The term, as written in that language.")
    translations: dict[Language, Term] = Field(
        default_factory=dict, description="How translations into each language render it."
    )

    @model_validator(mode="after")
    def _source_once(self) -> GlossaryEntry:
        if self.language in self.translations:
            raise ValueError(
                f"translations.{self.language}: the term's own language is `language` and "
                "`term`; leave it out of translations"
            )
        return self

    def natural_key(self) -> tuple[str, str]:
        # NOTE: the service keeps a term unique per language; its PUT answers no id.
        return (self.language, self.term)

    def all_terms(self) -> dict[str, str]:
        terms: dict[str, str] = {self.language: self.term}
        for language, term in self.translations.items():
            terms[language] = term
        return terms


class GlossaryEntryKind(Kind):
    """Glossary entries: inserted, updated and deleted by one batch PUT each."""

    name = "glossary_entry"
    plural = "glossary entries"
    prune_setting = "glossary"
    created_unanswered = True  # the insert answers 204: apply finds the entry by its term
    declaration = Declaration(
        position=144,
        section=Section(GlossaryEntry, name="glossary", noun="glossary entry"),
        export_file="glossary.yaml",
        reads=Reads(
            fields={"/orgs/*/translations-glossary": ("id", "translations")},
            list_names=("translations-glossary",),
        ),
    )

    @property
    def _path(self) -> str:
        return f"/orgs/{self.org_id}/translations-glossary"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, self._path)

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("glossary").values()]

    def _desired(self, e: GlossaryEntry) -> Desired:
        return entry_desired(e, {"translations": e.all_terms()}, e.term, scope=(e.language,))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        terms: dict[str, str] = dict(raw["translations"])
        keys = [(language, terms[language]) for language in sorted(terms)]
        first = keys[0] if keys else ("", "")
        return Observed(
            id=raw["id"],
            key=first,
            fields={"translations": terms},
            title=f"{first[1]} ({first[0]})" if keys else raw["id"],
            raw=raw,
            other_keys=tuple(keys[1:]),
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        insert = {"type": "insert", "translations": desired.fields["translations"]}
        return [Call("PUT", self._path, {"operations": [insert]})]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        update = {
            "type": "update",
            "id": change.observed.id,
            "translations": change.desired.fields["translations"],
        }
        return [Call("PUT", self._path, {"operations": [update]})]

    def delete_calls(self, observed: Observed) -> list[Call]:
        delete = {"type": "delete", "id": observed.id}
        return [Call("PUT", self._path, {"operations": [delete]})]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        terms: dict[str, str] = dict(raw["translations"])
        language = EXPORT_SOURCE if EXPORT_SOURCE in terms else min(terms)
        fields: dict[str, Any] = {"id": raw["id"], "language": language, "term": terms[language]}
        others = {code: term for code, term in sorted(terms.items()) if code != language}
        if others:
            fields["translations"] = others
        return Exported("glossary", self.name, raw["id"], terms[language], fields)
