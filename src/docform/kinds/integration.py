"""Integrations installed on the organization (``integrations:``), keyed by integration name.

An installation is what makes an integration (analytics, chat, search...) run for the
organization; its spaces and sites are installations of their own, written inside the entry
(`docform.kinds.integration_target`). Which settings of a configuration are secret is what the
integration declares (``GET /integrations/{name}``, read once per integration whose entry writes
a configuration, beside the installations list; for every installed one when exporting): see
`docform.kind_framework.configuration` for how secrets are compared, shown and exported. A
secret written in plain text stops the plan at its file:line, before any call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.errors import DocformError
from docform.export.model import Exported
from docform.kind_framework import configuration
from docform.kind_framework.configuration import ComparesConcealed, Configuration
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired
from docform.kind_framework.rest import created, id_in_path
from docform.model.entry import Entry, Location, ManifestModel
from docform.model.fields import Marker, SiteName, SpaceName
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
#: Where an installation's configuration is declared, for each place it is installed on.
TARGETS = ("account", "space", "site")
ConfigPath = tuple[str, ...]


class SecretInPlainText(DocformError):
    """A setting an integration declares secret, written in plain text in the manifests."""


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
    rotate: Marker | None = Field(
        None,
        description="A date or word: a new one sends the secrets the service never shows "
        "again (once), from the same sources.",
    )
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

    def configurations(self) -> Iterator[tuple[str, ConfigPath, Configuration]]:
        """Each configuration the entry writes: where it is declared (`TARGETS`), its path in
        the entry, and its settings."""
        if self.configuration is not None:
            yield "account", ("configuration",), self.configuration
        for field, target in (("spaces", "space"), ("sites", "site")):
            for name, written in (getattr(self, field) or {}).items():
                if written.configuration is not None:
                    yield target, (field, name, "configuration"), written.configuration

    def located_paths(self) -> Iterator[tuple[str | int, ...]]:
        # Secrets are checked at plan time, against what the integration declares.
        for _, path, settings in self.configurations():
            yield from ((*path, key) for key in settings)


class IntegrationKind(Kind, ComparesConcealed):
    """Organization installations: installed with a POST, set up with a PATCH, uninstalled."""

    concealed_fields = frozenset({"configuration"})
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
                "/integrations/*": ("name", "configurations"),
            },
            list_names=("installations",),
        ),
    )
    renamable = False

    reads_pinned_ids = True  # its entries name the integrations whose declarations it reads

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._entries: list[IntegrationEntry] = []
        """The entries planned, checked against what their integrations declare (`read`)."""

    def wanted_for_read(self, desired: Desired) -> str | None:
        entry: IntegrationEntry = desired.entry
        return entry.integration if any(entry.configurations()) else None

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        listed, declared = await asyncio.gather(
            reader.list(self.name, f"/orgs/{self.org_id}/installations"),
            self._declarations(reader, wanted_ids),
        )
        if not reader.with_manifests:  # exporting: every installed integration's
            names = {item["integration"]["name"] for item in listed}
            declared = await self._declarations(reader, sorted(names))
        refuse_plain_secrets(self._entries, declared)
        return [
            {
                **item["installation"],
                "_integration": item["integration"]["name"],
                "_configurations": declared.get(item["integration"]["name"]),
            }
            for item in listed
        ]

    async def _declarations(
        self, reader: LiveReader, names: Sequence[str]
    ) -> dict[str, dict[str, Any] | None]:
        """What each integration declares of its configurations (None: not published)."""
        unique = sorted(set(names))
        answers = await asyncio.gather(
            *(reader.get_or_none(self.name, f"/integrations/{name}") for name in unique)
        )
        return {
            name: None if answer is None else dict(answer.get("configurations") or {})
            for name, answer in zip(unique, answers, strict=True)
        }

    def desired(self, manifests: ManifestView) -> list[Desired]:
        self._entries = list(manifests.section("integrations").values())
        return [self._desired(e) for e in self._entries]

    def _desired(self, e: IntegrationEntry) -> Desired:
        fields: dict[str, Any] = {}
        if e.configuration is not None:
            fields["configuration"] = configuration.wanted(e.configuration)
        for name in ("spaceSelection", "siteSelection", "externalIds"):
            if getattr(e, name) is not None:
                fields[name] = getattr(e, name)
        desired = entry_desired(e, fields, e.integration)
        desired.secret_sources = configuration.sources(e.configuration, "configuration", e.rotate)
        return desired

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        declared = declared_configuration(raw, "account")
        write_only = configuration.declared_write_only(declared)
        unread = configuration.unread(raw.get("configuration"), write_only, "configuration")
        live = configuration.live(raw.get("configuration"), declared_secrets_of(raw, "account"))
        configuration.held_unread(live, unread, "configuration")
        fields = {
            "configuration": live,
            "spaceSelection": raw.get("space_selection"),
            "siteSelection": raw.get("site_selection"),
            "externalIds": raw.get("externalIds"),
        }
        name = integration_name(raw)
        return Observed(
            id=raw["id"], key=(name,), fields=fields, title=name, raw=raw, unread=unread
        )

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
        return f"/integrations/{integration_name(observed.raw)}/installations/{observed.id}"

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        name = integration_name(raw)
        fields: dict[str, Any] = {"id": raw["id"], "integration": name}
        secrets = declared_secrets_of(raw, "account")
        live = raw.get("configuration")
        config = configuration.exported(live, "CONFIGURATION", secrets)
        declared = declared_configuration(raw, "account")
        config |= configuration.unread_exported(declared, live, "CONFIGURATION", "configuration")
        if config:
            fields["configuration"] = config
        for field, api in PATCHED.items():
            if field != "configuration" and raw.get(api) not in (None, []):
                fields[field] = raw[api]
        return Exported("integrations", self.name, raw["id"], name, fields)


def integration_name(installation: Mapping[str, Any]) -> str:
    """The name of the integration a listed installation is of (`IntegrationKind.read`)."""
    name: str = installation["_integration"]
    return name


def declared_configuration(
    installation: Mapping[str, Any], target: str
) -> Mapping[str, Any] | None:
    """What the installation's integration declares of its ``target`` configuration (``account``,
    ``space`` or ``site``); None when it publishes no declaration."""
    declared: Mapping[str, Any] = installation.get("_configurations") or {}
    found: Mapping[str, Any] | None = declared.get(target)
    return found


def declared_secrets_of(installation: Mapping[str, Any], target: str) -> configuration.Secrets:
    """The secret settings the installation's integration declares for ``target``."""
    return configuration.declared_secrets(declared_configuration(installation, target))


def refuse_plain_secrets(
    entries: Sequence[IntegrationEntry], declared: Mapping[str, Mapping[str, Any] | None]
) -> None:
    """Stop the plan, before any call, at each secret setting written in plain text."""
    found = [
        _plain_secret(entry.location_of((*path, key)), entry, (*path, key))
        for entry in entries
        for target, path, settings in entry.configurations()
        for key in configuration.plain_secrets(
            settings,
            configuration.declared_secrets((declared.get(entry.integration) or {}).get(target)),
        )
    ]
    if found:
        raise SecretInPlainText("\n".join(found))


def _plain_secret(where: Location, entry: IntegrationEntry, path: ConfigPath) -> str:
    written = ".".join(path)
    return (
        f"{where}: {entry.address}: {written} is a secret of the {entry.integration} "
        "integration (it declares it so), written in plain text: write it as ${env:NAME} or "
        "{file: PATH}, and keep the value out of the repository"
    )
