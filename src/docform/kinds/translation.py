"""Translations of spaces (``translations:``), keyed by their source space, its language and
the language translated into.

A translation's source and language are fixed when it is made (its PUT takes only
``instructions``), so an entry whose source or language is edited is a new translation: the
plan creates it and marks the live one it resembles as replaced; deleting that one (with
``prune: {translations: true}``) loses its translated content, which the replacement rail
guards behind ``--force``. ``POST .../run`` (translate again) is an action, not a state, and
docform never calls it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.errors import DocformError
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, ref
from docform.model.documents import DOCUMENT_FIELDS, DocumentText, document_entry, document_text
from docform.model.entry import Entry, ManifestModel
from docform.model.fields import Language, SpaceName
from docform.service.answer_description import within


class TranslationSource(ManifestModel):
    """The space translated, and the language it is written in."""

    space: SpaceName = Field(description="Manifest name of the space.")
    language: Language


class TranslationEntry(Entry):
    """One translation of a space into a language."""

    kind = "translation"
    key_is_unique = True
    key_label = "source and language"

    source: TranslationSource
    language: Language = Field(description="The language translated into.")
    instructions: DocumentText | None = Field(
        None, description="What the translator is told: {markdown: ...} or {document: ...}."
    )

    def natural_key(self) -> tuple[str, str, str]:
        # NOTE: the service keeps one translation of a space into a language.
        return (self.source.space, self.source.language, self.language)


class TranslationKind(Kind):
    """Translations: created with POST, their instructions replaced with PUT, deleted."""

    name = "translation"
    declaration = Declaration(
        position=141,
        section=Section(TranslationEntry),
        export_file="translations.yaml",
        reads=Reads(
            fields={
                "/orgs/*/translations": (
                    "id",
                    "language",
                    "source.space",
                    "source.language",
                    *within("instructions", DOCUMENT_FIELDS),
                ),
            },
            list_names=("translations",),
        ),
    )
    references = ("space",)
    guard_replacement = True
    replacement_hint = (
        "a translation's source and language never change: write the live ones back to keep it"
    )
    locked = False  # nothing but its key: the source and the language tie it

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, f"/orgs/{self.org_id}/translations")

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("translations").values()]

    def _desired(self, e: TranslationEntry) -> Desired:
        space = ref("space", e.source.space)
        # The key's parts are fields too: an entry pinning the id of another translation then
        # differs there, and planning says why that cannot be changed.
        source = {"space": space, "language": e.source.language}
        fields: dict[str, Any] = {"source": source, "language": e.language}
        if e.instructions is not None:
            fields["instructions"] = e.instructions.text()
        return entry_desired(
            e,
            fields,
            e.language,
            scope=(space, e.source.language),
            requires=frozenset({f"space.{e.source.space}"}),
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        source = raw["source"]
        space = index.ref("space", source["space"])
        return Observed(
            id=raw["id"],
            key=(space, source["language"], raw["language"]),
            fields={
                "source": {"space": space, "language": source["language"]},
                "language": raw["language"],
                "instructions": document_text(raw.get("instructions")),
            },
            title=f"{source['space']} {source['language']} -> {raw['language']}",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        space, source_language, language = desired.key
        body: dict[str, Any] = {
            "language": language,
            "source": {"space": resolve(space), "language": source_language},
        }
        if desired.entry.instructions is not None:
            body["instructions"] = desired.entry.instructions.to_document()
        return [Call("POST", f"/orgs/{self.org_id}/translations", body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        if change.observed.key != change.desired.key:
            raise DocformError(
                f"{change.where}: a translation's source and language cannot change (live "
                f"{change.observed.id}: {change.observed.title}); remove `id:` so that a new "
                "translation is made and the live one is marked as replaced"
            )
        body = {"instructions": change.desired.entry.instructions.to_document()}
        return [Call("PUT", f"/orgs/{self.org_id}/translations/{change.observed.id}", body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/orgs/{self.org_id}/translations/{observed.id}")]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        source = raw["source"]
        fields: dict[str, Any] = {
            "source": {"space": LiveRef("space", source["space"]), "language": source["language"]},
            "language": raw["language"],
        }
        if document_text(raw.get("instructions")):
            fields["instructions"] = document_entry(raw["instructions"])
        hint = f"{source['space']}-{raw['language']}"
        return Exported(
            "translations", self.name, raw["id"], hint, fields,
            named_after=(LiveRef("space", source["space"]), raw["language"]),
        )  # fmt: skip
