"""A site's agent settings (``sites.<site>.agentSettings``): how the AI built into the editor
works on the site's content: whether it scans topics for findings (``scans.topics``), which
findings it opens change requests for (``findings.changeRequests``), and the site's own
instructions to it (``editing.customInstructions``, a Document written as Markdown or as a
Document, compared as text: `docform.model.documents`).

The service keeps one such document per site, from the site's creation, read with ``GET`` and
replaced whole with ``PUT .../sites/{siteId}/agent-settings``. A part the block leaves out is not
managed: docform sends it as it stands. Read only for the sites whose entries write the block
(one GET each); never created (but on a site the same apply creates) nor deleted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_of, site_setting
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.model.documents import DOCUMENT_FIELDS, DocumentText, document_entry, document_text
from docform.model.entry import ManifestModel
from docform.service.answer_description import within

INSTRUCTIONS = "customInstructions"
#: A new site's settings, as the service makes them (sent for what a block on a site the same
#: apply creates leaves out).
NEW_SITE: dict[str, Any] = {
    "scans": {"topics": "auto"},
    "findings": {"changeRequests": "auto-fixable"},
    "editing": {INSTRUCTIONS: {"object": "document", "data": {"schemaVersion": 1}, "nodes": []}},
}


class Scans(ManifestModel):
    """Scanning the site's content for findings."""

    topics: Literal["auto", "never"] = Field(description="When topics are scanned for findings.")


class Findings(ManifestModel):
    """What the agent does with its findings."""

    changeRequests: Literal["always", "auto-fixable", "never"] = Field(
        description="Which findings get a change request that remedies them."
    )


class Editing(ManifestModel):
    """The editing agent's instructions for this site."""

    customInstructions: DocumentText = Field(
        description="Instructions, as {markdown: TEXT} or {document: DOCUMENT}."
    )


class AgentSettings(ManifestModel):
    """A site's agent settings: a part left out is not managed."""

    scans: Scans | None = None
    findings: Findings | None = None
    editing: Editing | None = None


class AgentSettingsKind(SettingsKind):
    """One agent settings document per managed site whose entry writes ``agentSettings``."""

    name = "agent_settings"
    plural = "agent settings"
    prune_setting = None  # one per site, never deleted
    declaration = Declaration(
        position=69,
        reads=Reads(
            fields={
                "/orgs/*/sites/*/agent-settings": (
                    "scans.topics",
                    "findings.changeRequests",
                    *within(f"editing.{INSTRUCTIONS}", DOCUMENT_FIELDS),
                ),
            },
        ),
    )
    references = ("site",)
    read_after = ("site",)
    cannot_delete = "leave `agentSettings` out to leave them alone, or write the values wanted"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            site["id"]
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.agentSettings is not None
        ]
        answers = await asyncio.gather(
            *(reader.get_or_none(self.name, self._path(site)) for site in sites)
        )
        return [
            site_setting(answer, site)
            for site, answer in zip(sites, answers, strict=True)
            if answer is not None
        ]

    def _path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/agent-settings"

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            Desired(
                address=f"{site.address}.agentSettings",
                key=(Ref(site.address),),
                fields=_wanted(site.agentSettings),
                location=str(site.location),
                entry=site.agentSettings,
            )
            for site in manifests.section("sites").values()
            if site.agentSettings is not None
        ]

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None or not self.written_on(site):
            return None
        instructions = (raw.get("editing") or {}).get(INSTRUCTIONS)
        return Observed(
            id=site_id(raw),
            key=(site,),
            fields={
                "scans": raw.get("scans"),
                "findings": raw.get("findings"),
                "editing": {INSTRUCTIONS: document_text(instructions)},
            },
            title=f"{site.address} agent settings",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return [self._put(resolve(desired.key[0]), NEW_SITE, desired.entry)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [self._put(change.observed.id, change.observed.raw, change.desired.entry)]

    def _put(self, site: Any, live: Mapping[str, Any], block: AgentSettings) -> Call:
        """The whole document: the block's parts over ``live``'s."""
        body = {name: live[name] for name in ("scans", "findings", "editing")}
        if block.scans is not None:
            body["scans"] = block.scans.model_dump()
        if block.findings is not None:
            body["findings"] = block.findings.model_dump()
        if block.editing is not None:
            body["editing"] = {INSTRUCTIONS: block.editing.customInstructions.to_document()}
        return Call("PUT", self._path(site), body)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        instructions = raw["editing"][INSTRUCTIONS]
        fields = {
            "scans": dict(raw["scans"]),
            "findings": dict(raw["findings"]),
            "editing": {INSTRUCTIONS: document_entry(instructions)},
        }
        same_as_new = (
            raw["scans"] == NEW_SITE["scans"]
            and raw["findings"] == NEW_SITE["findings"]
            and not document_text(instructions)
        )
        if same_as_new:
            return None  # as the site was made: leave it unmanaged
        site = site_of(raw)
        return Exported("sites", self.name, site_id(raw), "", fields, within=site,
                        nested_as="agentSettings", part=True)  # fmt: skip


def _wanted(block: AgentSettings) -> dict[str, Any]:
    """The parts the block writes, as compared (the instructions as their text)."""
    fields: dict[str, Any] = {}
    if block.scans is not None:
        fields["scans"] = block.scans.model_dump()
    if block.findings is not None:
        fields["findings"] = block.findings.model_dump()
    if block.editing is not None:
        fields["editing"] = {INSTRUCTIONS: block.editing.customInstructions.text()}
    return fields
