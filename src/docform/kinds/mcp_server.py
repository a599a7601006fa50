"""A site's MCP servers (``sites.<site>.mcpServers``): the Model Context Protocol servers whose
tools the site's AI assistant may call for its visitors.

A server's ``headers`` carry its credentials (an ``Authorization`` bearer token, an API key),
and the service answers them with every server, so every header value is a secret: the
manifests write each as ``${env:NAME}`` or ``{file: PATH}`` only, a live value is concealed as
it is read (`docform.kind_framework.configuration`: compared by value, shown as
``(sensitive)``), sent as a ``$secret`` reference apply resolves again; export writes each
header as ``${env:...}``, never its value.

A server is matched by its name (the manifest name when none is written), pinned by id once
docform made or matched it. Only the sites whose entry writes ``mcpServers:`` have theirs read,
compared and pruned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework import configuration
from docform.kind_framework.configuration import ComparesConcealed
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.site_reads import site_held_entries, site_list_items
from docform.model.entry import Entry
from docform.model.fields import Secret


class McpServerEntry(Entry):
    """One MCP server of a site, under a manifest name of its own."""

    kind = "mcp_server"
    key_label = "name"
    former_key_fields = ("title",)

    title: str | None = Field(
        None, min_length=1, max_length=100, description="Its name (default: this key)."
    )
    url: str = Field(max_length=2048, description="Where the server answers.")
    transport: Literal["sse", "http"] = Field("sse", description="How it is reached.")
    headers: dict[str, Secret] = Field(
        default_factory=dict,
        description="HTTP headers sent to it, each only as ${env:NAME} or {file: PATH}: "
        "they carry its credentials.",
    )
    condition: str | None = Field(
        None, max_length=1024, description="Visitors it is offered to (an expression)."
    )

    @field_validator("headers")
    @classmethod
    def _headers_referenced(cls, value: dict[str, Secret]) -> dict[str, Secret]:
        for key, item in value.items():
            if item.is_literal:
                raise ValueError(
                    f"header {key} may carry a credential: write it as ${{env:NAME}} or "
                    "{file: PATH}, never as text in the manifests"
                )
            if not 1 <= len(item.value) <= 512:
                raise ValueError(f"header {key} must be 1 to 512 characters")
        return value

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.mcpServer.{self.name}"

    @property
    def server_name(self) -> str:
        return self.name if self.title is None else self.title

    def natural_key(self) -> str:
        return self.server_name


class McpServerKind(Kind, ComparesConcealed):
    """MCP servers of the managed sites that write ``mcpServers:``."""

    concealed_fields = frozenset({"headers"})
    name = "mcp_server"
    declaration = Declaration(
        position=107,
        nested=Nested(McpServerEntry, plural="MCP servers"),
        prune_description="MCP servers of managed sites that write mcpServers.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/mcp-servers": (
                    "id",
                    "name",
                    "url",
                    "transport",
                    "headers",
                    "condition",
                ),
            },
            list_names=("mcp-servers",),
        ),
    )
    references = ("site",)
    read_after = ("site",)
    unmanaged_go_with_container = True

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await site_list_items(reader, self.name, "mcpServers", self._list_path)

    def _list_path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/mcp-servers"

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(site, e) for site, e in site_held_entries(manifests, "mcpServers")]

    def _desired(self, site_address: str, e: McpServerEntry) -> Desired:
        fields: dict[str, Any] = {
            "title": e.server_name,
            "url": e.url,
            "transport": e.transport,
            "headers": configuration.wanted(e.headers),
            "condition": e.condition,
        }
        return entry_desired(e, fields, e.server_name, scope=(Ref(site_address),))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        name = raw.get("name") or ""
        fields = {
            "title": name,
            "url": raw.get("url"),
            "transport": raw.get("transport"),
            "headers": configuration.live(raw.get("headers") or {}),
            "condition": raw.get("condition") or None,
        }
        return Observed(
            id=raw["id"], key=(site, name), fields=fields, title=name or raw["id"], raw=raw
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        body = self._body(desired, desired.fields)
        if body.get("condition") is None:
            body.pop("condition", None)
        return [Call("POST", self._list_path(resolve(desired.key[0])), body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = self._body(change.desired, change.changed)
        return [Call("PATCH", self._path(change.observed), body)]

    def _body(self, desired: Desired, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The fields ``fields`` names; headers always whole (the service replaces them)."""
        e: McpServerEntry = desired.entry
        body: dict[str, Any] = {}
        if "title" in fields:
            body["name"] = desired.fields["title"]
        for name in ("url", "transport", "condition"):
            if name in fields:
                body[name] = desired.fields[name]
        if "headers" in fields:
            body["headers"] = configuration.body(e.headers, f"{desired.address}.headers")
        return body

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._path(observed))]

    def _path(self, observed: Observed) -> str:
        return f"{self._list_path(site_id(observed.raw))}/{observed.id}"

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        name = raw.get("name") or ""
        fields: dict[str, Any] = {
            "id": raw["id"],
            "title": name,
            "url": raw["url"],
            "transport": raw.get("transport", "sse"),
            "headers": configuration.exported(raw.get("headers") or {}, f"mcp_{name}"),
        }
        if raw.get("condition"):
            fields["condition"] = raw["condition"]
        return Exported(
            "sites", self.name, raw["id"], name or "mcp-server", fields,
            within=site_of(raw), nested_as="mcpServers",
        )  # fmt: skip
