"""What the service's agents are told: the organization's agent instructions
(``organization.agentInstructions``), one Document read with GET and replaced with PUT.

Written as Markdown or as a Document (`docform.kinds.documents`) and compared as text. It is
part of the organization, never created or deleted: leaving it out of the manifests leaves it
unmanaged and unread (the prune key ``agentInstructions`` empties what is read unmanaged,
which only a read without manifests does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.capabilities import ExplainsCreates
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.planning import location
from docform.model.documents import DOCUMENT_FIELDS, DocumentText, document_entry, document_text
from docform.service.answer_description import within

ADDRESS = "agentInstructions"


class AgentInstructionsKind(Kind, ExplainsCreates):
    """The organization's agent instructions: one PUT replaces them."""

    name = "agent_instructions"
    plural = "agent instructions"
    prune_setting = "agentInstructions"
    declaration = Declaration(
        position=145,
        prune_description="Empty the agent instructions when the organization does not write "
        "them (read only then, and when exporting).",
        reads=Reads(
            fields={"/orgs/*/agent-instructions": within("instructions", DOCUMENT_FIELDS)},
            list_names=("orgs",),
        ),
    )
    # The organization is matched once the kinds it refers to are, and only then does the
    # read know whether its entry writes the instructions.
    read_after = ("organization", "member", "site")
    locked = False
    guard_creates = False

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Only when the organization's entry writes them (always when exporting)."""
        found = []
        for org, desired in reader.managed_with_entries("organization"):
            if desired is not None and desired.entry.agentInstructions is None:
                continue
            path = f"/orgs/{org['id']}/agent-instructions"
            answer = await reader.get_or_none(self.name, path)
            if answer is not None:
                found.append({**answer, "id": org["id"], "_org": org["id"]})
        return found

    def desired(self, manifests: ManifestView) -> list[Desired]:
        org = manifests.organization
        written: DocumentText | None = org.agentInstructions
        if written is None:
            return []
        return [
            Desired(
                address=ADDRESS,
                key=(org.id,),
                fields={"instructions": written.text()},
                location=location(org),
                entry=written,
            )
        ]

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        text = document_text(raw.get("instructions"))
        if not text:
            # Never written (or emptied): nothing to manage, and nothing to list as unmanaged.
            return None
        return Observed(
            id=raw["_org"],
            key=(raw["_org"],),
            fields={"instructions": text},
            title="agent instructions",
            raw=raw,
        )

    def create_reason(self, desired: Desired) -> str:
        return "the organization has no agent instructions yet"

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return [self._put(desired.entry.to_document())]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [self._put(change.desired.entry.to_document())]

    def delete_calls(self, observed: Observed) -> list[Call]:
        # They cannot be deleted: emptying them is what undoes them.
        return [self._put(DocumentText(markdown="").to_document())]

    def _put(self, document: dict[str, Any]) -> Call:
        return Call("PUT", f"/orgs/{self.org_id}/agent-instructions", {"instructions": document})

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        document = raw.get("instructions")
        if not document_text(document):
            return None  # never written: leave it unmanaged
        return Exported(
            "organization",
            self.name,
            raw["_org"],
            "",
            document_entry(document),
            within=LiveRef("organization", raw["_org"]),
            nested_as="agentInstructions",
            part=True,
        )
