"""A site's agent channels (``sites.<site>.channels``): the outside tools its GitBook Agent works
in (Slack, Discord, GitHub, Linear), each with the places there it answers in and its role
(``support`` answers from the site's content, ``collaborator`` also opens change requests).

A channel is ``type`` plus the one list of its ``setupSettings`` that type takes
(``allowedChannels`` for Slack and Discord, ``allowedTeams`` for Linear,
``allowedRepositories`` for GitHub; empty or left out: all of them), compared as a set. It holds
no credential: the tool's side is connected in the tool. A channel is matched by its type, pinned
by id once docform made or matched it. Only the sites whose entry writes ``channels:`` have theirs
read, compared and pruned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.site_reads import site_held_entries, site_list_items
from docform.model.entry import Entry, ManifestModel

ChannelType = Literal["builtin:slack", "builtin:discord", "builtin:linear", "builtin:github"]
#: The definition's GenericChannelPattern and GitHubRepositoryPattern.
Pattern = Annotated[str, StringConstraints(pattern=r"^[a-zA-Z0-9_\*-]+$")]
Repository = Annotated[str, StringConstraints(pattern=r"^[a-zA-Z0-9._*-]+\/[a-zA-Z0-9._*-]+$")]
#: The setup list each type takes.
SETUP_LIST: dict[str, str] = {
    "builtin:slack": "allowedChannels",
    "builtin:discord": "allowedChannels",
    "builtin:linear": "allowedTeams",
    "builtin:github": "allowedRepositories",
}


class ChannelSetup(ManifestModel):
    """Where in the tool the agent answers: the one list the channel's type takes."""

    allowedChannels: list[Pattern] | None = Field(
        None, description="Slack or Discord channel names or patterns (support-*)."
    )
    allowedTeams: list[Pattern] | None = Field(None, description="Linear team keys or patterns.")
    allowedRepositories: list[Repository] | None = Field(
        None, description="GitHub repositories as owner/name or patterns (acme/*)."
    )


class ChannelEntry(Entry):
    """One agent channel of a site, under a manifest name of its own."""

    kind = "channel"
    key_label = "type"
    former_key_fields = ("type",)

    type: ChannelType = Field(description="The tool the agent works in.")
    role: Literal["support", "collaborator"] = Field(
        "support",
        description="support: answers from the site's content; collaborator: also opens "
        "change requests.",
    )
    setupSettings: ChannelSetup = Field(
        default_factory=ChannelSetup,
        description="Where in the tool it answers (left out or empty: everywhere).",
    )

    @model_validator(mode="after")
    def _setup_fits_type(self) -> ChannelEntry:
        takes = SETUP_LIST[self.type]
        for name in self.setupSettings.model_fields_set:
            if name != takes and getattr(self.setupSettings, name) is not None:
                raise ValueError(
                    f"setupSettings.{name}: a {self.type} channel takes {takes} only; "
                    f"write its places under {takes}"
                )
        return self

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.channel.{self.name}"

    def natural_key(self) -> str:
        return self.type

    def setup(self) -> dict[str, list[str]]:
        """The setup as the service stores it."""
        return {SETUP_LIST[self.type]: getattr(self.setupSettings, SETUP_LIST[self.type]) or []}


def compared_setup(setup: Mapping[str, Any]) -> dict[str, list[str]]:
    """A setup as planning compares it: each non-empty list, as a sorted set."""
    return {name: sorted(set(items)) for name, items in setup.items() if items}


class ChannelKind(Kind):
    """Agent channels of the managed sites that write ``channels:``."""

    name = "channel"
    plural = "agent channels"
    declaration = Declaration(
        position=108,
        nested=Nested(ChannelEntry, plural="agent channels"),
        prune_description="Agent channels of managed sites that write channels.",
        reads=Reads(
            fields={"/orgs/*/sites/*/channels": ("id", "type", "role", "setupSettings")},
            list_names=("channels",),
        ),
    )
    references = ("site",)
    read_after = ("site",)
    unmanaged_go_with_container = True

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await site_list_items(reader, self.name, "channels", self._list_path)

    def _list_path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/channels"

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(site, e) for site, e in site_held_entries(manifests, "channels")]

    def _desired(self, site_address: str, e: ChannelEntry) -> Desired:
        fields = {"type": e.type, "role": e.role, "setupSettings": compared_setup(e.setup())}
        return entry_desired(e, fields, e.type, scope=(Ref(site_address),))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        fields = {
            "type": raw["type"],
            "role": raw["role"],
            "setupSettings": compared_setup(raw.get("setupSettings") or {}),
        }
        return Observed(
            id=raw["id"], key=(site, raw["type"]), fields=fields, title=raw["type"], raw=raw
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        e: ChannelEntry = desired.entry
        body = {"type": e.type, "setupSettings": e.setup(), "role": e.role}
        return [Call("POST", self._list_path(resolve(desired.key[0])), body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        e: ChannelEntry = change.desired.entry
        body: dict[str, Any] = {}
        if {"type", "setupSettings"} & set(change.changed):
            # The service takes a type and its setup together.
            body.update(type=e.type, setupSettings=e.setup())
        if "role" in change.changed:
            body["role"] = e.role
        return [Call("PATCH", self._path(change.observed), body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._path(observed))]

    def _path(self, observed: Observed) -> str:
        return f"{self._list_path(site_id(observed.raw))}/{observed.id}"

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "type": raw["type"], "role": raw["role"]}
        setup = compared_setup(raw.get("setupSettings") or {})
        if setup:
            fields["setupSettings"] = setup
        name = str(raw["type"]).removeprefix("builtin:")
        return Exported(
            "sites", self.name, raw["id"], name, fields,
            within=site_of(raw), nested_as="channels",
        )  # fmt: skip
