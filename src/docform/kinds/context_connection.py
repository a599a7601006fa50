"""A site's context connections (``sites.<site>.contextConnections``): the outside sources (a
website, a help desk, an issue tracker, an integration...) the site's AI features read.

A connector's setup may hold the credentials of a third-party account (`CREDENTIALS`): the
manifests write them as ``${env:NAME}`` or ``{file: PATH}`` only, and the service answers them
with every connection, so every text value of a live setup is concealed as it is read
(`docform.kind_framework.configuration`): compared by value, shown as ``(sensitive)``, sent as a
``$secret`` reference apply resolves again; export writes a credential as ``${env:...}``.

A connection is matched by its label (the manifest name when none is written), pinned by id
once docform made or matched it. The create takes no label, so a new connection is labelled
by a PATCH after it. Only the sites whose entry writes ``contextConnections:`` have theirs
read, compared and pruned. Syncing and testing a connection are actions, never planned.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import EnvValue, Exported
from docform.kind_framework import configuration
from docform.kind_framework.configuration import ComparesConcealed
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import created, id_in_path, site_prefix
from docform.kind_framework.site_reads import site_held_entries, site_list_items
from docform.model.entry import Entry
from docform.model.fields import Secret

#: The setup settings that hold an account's credentials (the definition's connectors).
CREDENTIALS = frozenset({"token", "apiToken", "apiKey", "clientSecret", "refreshToken"})
CONNECTOR = r"^(builtin:[a-z-]+|integration:[^:]+)$"


class UsageSettings(BaseModel):
    """How the site uses what the connection brings."""

    model_config = ConfigDict(extra="forbid")

    changeRequests: bool = Field(description="Propose change requests from it.")
    search: bool = Field(description="Show its records in search results.")
    sync: bool | None = Field(None, description="Write change-request state back to the source.")
    searchBoost: Literal["x0.8", "x1.0", "x1.2"] = Field(description="Its weight in search.")


SetupValue = Secret | dict[str, Any]


class ContextConnectionEntry(Entry):
    """One context connection of a site, under a manifest name of its own."""

    kind = "context_connection"
    key_label = "label"
    former_key_fields = ("label",)

    connector: Annotated[str, Field(pattern=CONNECTOR)] = Field(
        description="builtin:website, builtin:zendesk... or integration:NAME."
    )
    label: str | None = Field(None, max_length=128, description="Its label (default: this key).")
    setupSettings: dict[str, SetupValue] | None = Field(
        None,
        description="The connector's setup; credentials (token, apiToken, apiKey, clientSecret, "
        "refreshToken) only as ${env:NAME} or {file: PATH}.",
    )
    usageSettings: UsageSettings | None = None
    filter: str | None = Field(None, max_length=1024, description="What to ingest only.")

    @field_validator("setupSettings")
    @classmethod
    def _credentials_referenced(
        cls, value: dict[str, SetupValue] | None
    ) -> dict[str, SetupValue] | None:
        for key, item in (value or {}).items():
            if key in CREDENTIALS and (not isinstance(item, Secret) or item.is_literal):
                raise ValueError(
                    f"{key} is a credential: write it as ${{env:NAME}} or {{file: PATH}}, "
                    "never as text in the manifests"
                )
        return value

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.contextConnection.{self.name}"

    @property
    def connection_label(self) -> str:
        return self.name if self.label is None else self.label

    def natural_key(self) -> str:
        return self.connection_label


class ContextConnectionKind(Kind, ComparesConcealed):
    """Context connections of the managed sites that write ``contextConnections:``."""

    concealed_fields = frozenset({"setupSettings"})
    name = "context_connection"
    declaration = Declaration(
        position=106,
        nested=Nested(ContextConnectionEntry),
        prune_description="Context connections of managed sites that write contextConnections.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/context-connections": (
                    "id",
                    "label",
                    "connector",
                    "setupSettings",
                    "usageSettings",
                    "filter",
                ),
            },
            list_names=("context-connections",),
        ),
    )
    references = ("site",)
    read_after = ("site",)
    unmanaged_go_with_container = True

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await site_list_items(reader, self.name, "contextConnections", self._list_path)

    def _list_path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/context-connections"

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            self._desired(site, e) for site, e in site_held_entries(manifests, "contextConnections")
        ]

    def _desired(self, site_address: str, e: ContextConnectionEntry) -> Desired:
        fields: dict[str, Any] = {"label": e.connection_label, "connector": e.connector}
        if e.setupSettings is not None:
            fields["setupSettings"] = configuration.wanted(e.setupSettings)
        if e.usageSettings is not None:
            fields["usageSettings"] = e.usageSettings.model_dump(exclude_none=True)
        if e.filter is not None:
            fields["filter"] = e.filter
        return entry_desired(e, fields, e.connection_label, scope=(Ref(site_address),))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        label = raw.get("label") or ""
        fields = {
            "label": label,
            "connector": raw.get("connector"),
            "setupSettings": configuration.live(raw.get("setupSettings") or {}),
            "usageSettings": raw.get("usageSettings"),
            "filter": raw.get("filter") or None,
        }
        return Observed(
            id=raw["id"], key=(site, label), fields=fields, title=label or raw["id"], raw=raw
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        body = self._body(desired, desired.fields)
        made = id_in_path(created(desired.address))
        path = f"{self._list_path(resolve(desired.key[0]))}"
        return [
            Call("POST", path, body),
            Call("PATCH", f"{path}/{made}", {"label": desired.fields["label"]}),
        ]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = self._body(change.desired, change.changed)
        if "label" in change.changed:
            body["label"] = change.changed["label"]
        return [Call("PATCH", self._path(change.observed), body)]

    def _body(self, desired: Desired, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The setup (connector and settings, always together: the service checks one
        against the other), usage settings and filter that ``fields`` set."""
        e: ContextConnectionEntry = desired.entry
        body: dict[str, Any] = {}
        if "connector" in fields or "setupSettings" in fields:
            body["connector"] = e.connector
            if e.setupSettings:
                source = f"{desired.address}.setupSettings"
                body["setupSettings"] = configuration.body(e.setupSettings, source)
        for name in ("usageSettings", "filter"):
            if name in fields:
                body[name] = fields[name]
        return body

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._path(observed))]

    def _path(self, observed: Observed) -> str:
        return f"{self._list_path(site_id(observed.raw))}/{observed.id}"

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        label = raw.get("label") or ""
        fields: dict[str, Any] = {"id": raw["id"], "label": label, "connector": raw["connector"]}
        setup = raw.get("setupSettings") or {}
        if setup:
            fields["setupSettings"] = {
                key: EnvValue(_env_suffix(key)) if key in CREDENTIALS else value
                for key, value in setup.items()
            }
        fields["usageSettings"] = raw.get("usageSettings")
        if raw.get("filter"):
            fields["filter"] = raw["filter"]
        return Exported(
            "sites", self.name, raw["id"], label or "connection", fields,
            within=site_of(raw), nested_as="contextConnections",
        )  # fmt: skip


def _env_suffix(key: str) -> str:
    """``apiToken`` -> ``API_TOKEN``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).upper()
