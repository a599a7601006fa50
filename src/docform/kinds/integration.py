"""Integrations installed on the organization (``integrations:``), keyed by integration name.

An installation is what makes an integration (analytics, chat, search...) run for the
organization; its spaces and sites are installations of their own, written inside the entry
(`docform.kinds.integration_target`). The configuration is free-form and may hold credentials:
see `docform.kinds.configuration` for how it is compared, shown and exported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework import configuration
from docform.kind_framework.configuration import Configuration
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired
from docform.kind_framework.rest import created, id_in_path
from docform.model.entry import Entry, ManifestModel
from docform.model.fields import SiteName, SpaceName
from docform.service.answer_description import within

INTEGRATION_NAME = r"^[a-zA-Z0-9-_.]+$"
Selection = Literal["all", "selected"]
#: Manifest field -> API field of an installation's PATCH.
PATCHED = {
    "configuration": "configuration",
    "spaceSelection": "space_selection",
    "siteSelection": "site_selection",
    "externalIds": "externalIds",
}
INSTALLATION_FIELDS = (
    "id", "status", "configuration", "space_selection", "site_selection", "externalIds[]",
)  # fmt: skip


class TargetEntry(ManifestModel):
    """The integration installed on one space or site, with that installation's settings."""

    configuration: Configuration | None = None


class IntegrationEntry(Entry):
    """One integration installed on the organization."""

    kind = "integration"
    key_is_unique = True
    key_label = "integration name"
    child_fields = frozenset({"spaces", "sites"})

    integration: str = Field(pattern=INTEGRATION_NAME, max_length=100)
    configuration: Configuration | None = None
    spaceSelection: Selection | None = None
    siteSelection: Selection | None = None
    externalIds: list[str] | None = Field(None, max_length=5)
    spaces: dict[SpaceName, TargetEntry] | None = Field(
        None,
        description="Manifest names of the spaces it is installed on (all of them: others are "
        "uninstalled), each with its own configuration.",
    )
    sites: dict[SiteName, TargetEntry] | None = Field(
        None, description="Manifest names of the sites it is installed on (all of them)."
    )

    def natural_key(self) -> str:
        # NOTE: an organization installs an integration once; its name is the installation's key.
        return self.integration


class IntegrationKind(Kind):
    """Organization installations: installed with a POST, set up with a PATCH, uninstalled."""

    name = "integration"
    declaration = Declaration(
        position=151,
        section=Section(IntegrationEntry),
        export_file="integrations.yaml",
        reads=Reads(
            fields={
                "/orgs/*/installations": (
                    "integration.name",
                    *within("installation", INSTALLATION_FIELDS),
                ),
            },
            list_names=("installations",),
        ),
    )
    renamable = False

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        items = await reader.list(self.name, f"/orgs/{self.org_id}/installations")
        return [
            {**item["installation"], "_integration": item["integration"]["name"]} for item in items
        ]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("integrations").values()]

    def _desired(self, e: IntegrationEntry) -> Desired:
        fields: dict[str, Any] = {}
        if e.configuration is not None:
            fields["configuration"] = configuration.wanted(e.configuration)
        for name in ("spaceSelection", "siteSelection", "externalIds"):
            if getattr(e, name) is not None:
                fields[name] = getattr(e, name)
        return entry_desired(e, fields, e.integration)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        fields = {
            "configuration": configuration.live(raw.get("configuration")),
            "spaceSelection": raw.get("space_selection"),
            "siteSelection": raw.get("site_selection"),
            "externalIds": raw.get("externalIds"),
        }
        name = raw["_integration"]
        return Observed(id=raw["id"], key=(name,), fields=fields, title=name, raw=raw)

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        name = desired.entry.integration
        calls = [Call("POST", f"/integrations/{name}/installations", {"organization": self.org_id})]
        settings = self._patch(desired, desired.fields)
        if settings:
            path = f"/integrations/{name}/installations/{id_in_path(created(desired.address))}"
            calls.append(Call("PATCH", path, settings))
        return calls

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [
            Call("PATCH", self._path(change.observed), self._patch(change.desired, change.changed))
        ]

    def _patch(self, desired: Desired, fields: Mapping[str, Any]) -> dict[str, Any]:
        body = {PATCHED[name]: fields[name] for name in PATCHED if name in fields}
        if "configuration" in body:
            # The whole configuration: whether the service merges a partial one is not stated.
            source = f"{desired.address}.configuration"
            body["configuration"] = configuration.body(desired.entry.configuration, source)
        return body

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._path(observed))]

    def _path(self, observed: Observed) -> str:
        return f"/integrations/{observed.raw['_integration']}/installations/{observed.id}"

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        name = raw["_integration"]
        fields: dict[str, Any] = {"id": raw["id"], "integration": name}
        config = configuration.exported(raw.get("configuration"), "CONFIGURATION")
        if config:
            fields["configuration"] = config
        for field, api in PATCHED.items():
            if field != "configuration" and raw.get(api) not in (None, []):
                fields[field] = raw[api]
        return Exported("integrations", self.name, raw["id"], name, fields)
