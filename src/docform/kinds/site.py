"""Published sites (``sites:``) with their section groups, sections and site spaces.

A site is matched by its pinned ``id``, else by title. A site with sections holds its site
spaces in the sections; a site without sections lists them under ``spaces``. docform creates,
changes, publishes and deletes sites: ``published`` is changed by the API's publish and
unpublish calls, never by a PATCH (docs/service.md, "Sites").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field, model_validator

from docform.engine.audience import Fact, Seen
from docform.engine.capabilities import ReadsBystanders, TellsAudience
from docform.engine.field_rules import Immutable, NullMeans, Unique
from docform.engine.kind import (
    AddressIndex,
    Bystander,
    ChangeContext,
    Desired,
    Gone,
    Observed,
    Resolve,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import role_entry, set_fields
from docform.kind_framework.planning import entry_desired, level_value
from docform.kind_framework.rest import PathValues, RestKind, created
from docform.kind_framework.site_bystanders import site_holdings
from docform.kinds.access import ACCESS_DESCRIPTION, Access
from docform.kinds.adaptive_content import AdaptiveContent
from docform.kinds.advertising import Advertising
from docform.kinds.agent_settings import AgentSettings
from docform.kinds.channel import ChannelEntry
from docform.kinds.context_connection import ContextConnectionEntry
from docform.kinds.customization_block import CustomizationBlock
from docform.kinds.external_link import ExternalLinkEntry
from docform.kinds.mcp_server import McpServerEntry
from docform.kinds.navigation import NAVIGATION_DESCRIPTION
from docform.kinds.redirect import RedirectEntry, RedirectSource
from docform.kinds.section import SectionEntry
from docform.kinds.section_group import SectionGroupEntry
from docform.kinds.share_link import ShareLinkEntry
from docform.kinds.site_rules import site_problems
from docform.kinds.site_space import SiteSpaceEntry
from docform.kinds.styleguide import Styleguide
from docform.kinds.visitor_auth import VISITOR_AUTH_DESCRIPTION, VisitorAuth, site_audience
from docform.model.entry import Entry, Unknown, WrittenProblems
from docform.model.fields import Level, Name, SiteType, SiteVisibility
from docform.service.adaptive_schema import ConditionPath, conditions_of

#: The service's definition of a proxy (SiteProxyOrigin): a host and a path, no scheme.
PROXY_PATTERN = re.compile(r"([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(/[\w-]+)+", re.ASCII)
SCHEME = re.compile(r"^https?://")


def _check_proxy(value: str) -> str:
    if not PROXY_PATTERN.fullmatch(value):
        raise ValueError(
            "must be a host and a path without a scheme, such as 'example.com/docs' (path "
            f"segments of letters, digits, _ and -; not {value!r})"
        )
    return value


Proxy = Annotated[str, Field(max_length=512), AfterValidator(_check_proxy)]


class SiteEntry(Entry):
    """One site and its structure (order as written is the order on the site)."""

    kind = "site"
    key_label = "title"
    former_key_fields = ("title",)
    child_fields = frozenset(
        {
            "sectionGroups",
            "sections",
            "externalLinks",
            "spaces",
            "redirects",
            "access",
            "visitorAuth",
            "shareLinks",
            "contextConnections",
            "mcpServers",
            "channels",
            "customization",
            "adaptiveContent",
            "advertising",
            "styleguide",
            "agentSettings",
            "navigation",
        }
    )
    nullable_fields = frozenset({"proxy"})

    title: str | None = Field(None, min_length=2, max_length=128)
    type: Annotated[
        SiteType | None,
        Immutable(
            "a site's type cannot be changed through the API",
            "change the plan in the service, or remove `type:` from the manifest",
        ),
    ] = None
    visibility: SiteVisibility | None = None
    # Unique in the organization (a 409 names the site holding it).
    basename: Annotated[str | None, Unique()] = Field(None, min_length=1, max_length=100)
    defaultLevel: Annotated[Level | None, NullMeans("guest")] = Field(
        None, description="A role, guest or inherit."
    )
    proxy: Proxy | None = Field(
        None, description="Serve the site at this host and path (no scheme); null removes it."
    )
    published: bool | None = Field(None, description="Published (live) or not.")
    access: Access | None = Field(None, description=ACCESS_DESCRIPTION)
    visitorAuth: VisitorAuth | None = Field(None, description=VISITOR_AUTH_DESCRIPTION)
    shareLinks: dict[Name, ShareLinkEntry] | None = Field(
        None,
        description="Share links by manifest name; a site without this key has its share links "
        "left alone (neither read nor pruned).",
    )
    contextConnections: dict[Name, ContextConnectionEntry] | None = Field(
        None,
        description="Context connections by manifest name; a site without this key has its "
        "connections left alone (neither read nor pruned).",
    )
    mcpServers: dict[Name, McpServerEntry] | None = Field(
        None,
        description="MCP servers by manifest name; a site without this key has its servers "
        "left alone (neither read nor pruned).",
    )
    channels: dict[Name, ChannelEntry] | None = Field(
        None,
        description="Agent channels (Slack, Discord, GitHub, Linear) by manifest name; a site "
        "without this key has its channels left alone (neither read nor pruned).",
    )
    customization: CustomizationBlock | None = None
    adaptiveContent: AdaptiveContent | None = Field(
        None, description="Adaptive content: its switch and the schema of visitors' claims."
    )
    advertising: Advertising | None = Field(
        None, description="Ads on the site: submitted to the ad network or not, and its topic."
    )
    styleguide: Styleguide | None = Field(
        None, description="The space holding the writing rules the editing agent checks against."
    )
    agentSettings: AgentSettings | None = Field(
        None,
        description="How the editor's AI agent works on the site: its scans, the change "
        "requests it opens for findings, its instructions; a part left out is not managed.",
    )
    sectionGroups: dict[Name, SectionGroupEntry] = Field(default_factory=dict)
    sections: dict[Name, SectionEntry] = Field(default_factory=dict)
    externalLinks: dict[Name, ExternalLinkEntry] | None = Field(
        None,
        description="Links in the navigation; a site without this key has its links left alone.",
    )
    navigation: list[Name] | None = Field(None, description=NAVIGATION_DESCRIPTION)
    spaces: dict[Name, SiteSpaceEntry] = Field(
        default_factory=dict, description="Site spaces of a site without sections."
    )
    redirects: dict[RedirectSource, RedirectEntry] | None = Field(
        None,
        description="Redirects by source path; a site without this key has its redirects left "
        "alone (neither read nor pruned).",
    )

    def located_paths(self) -> Iterator[ConditionPath]:
        # Conditions are checked again at plan time, against the site's live schema.
        return (path for path, _ in conditions_of(self))

    @model_validator(mode="after")
    def _has_key(self) -> SiteEntry:
        if self.id is None and self.title is None:
            raise ValueError("a site needs an id or a title to be matched")
        return self

    def natural_key(self) -> tuple[str, str]:
        # NOTE: sites are usually created outside docform, so the pinned id comes first.
        return ("id", self.id) if self.id else ("title", self.title or "")

    @classmethod
    def section_problems(cls, written: Mapping[str, Any], unknown: Unknown) -> WrittenProblems:
        return site_problems(written, unknown)

    def children(self) -> list[Entry]:
        """Section groups, then sections each followed by its site spaces, then root spaces."""
        nested: list[Entry] = [*self.sectionGroups.values()]
        for section in self.sections.values():
            nested.append(section)
            nested.extend(section.children())
        nested.extend((self.externalLinks or {}).values())
        nested.extend(self.spaces.values())
        nested.extend((self.redirects or {}).values())
        nested.extend((self.shareLinks or {}).values())
        nested.extend((self.contextConnections or {}).values())
        nested.extend((self.mcpServers or {}).values())
        nested.extend((self.channels or {}).values())
        return nested


class SiteKind(RestKind, ReadsBystanders, TellsAudience):
    """Sites by pinned id, else title. ``type`` is chosen at creation and cannot change."""

    name = "site"
    reached_by = frozenset({"site"})
    declaration = Declaration(
        position=60,
        section=Section(SiteEntry),
        export_file="sites.yaml",
        reads=Reads(
            fields={
                "/orgs/*/sites": (
                    "id",
                    "title",
                    "type",
                    "visibility",
                    "basename",
                    "defaultLevel",
                    "published",
                    "proxy.origin",
                ),
            },
            list_names=("sites",),
        ),
    )
    fields = SiteEntry
    # A site's structure, redirects and grants go with it: replacing it by a look-alike loses them.
    guard_replacement = True
    create_path = "/orgs/{org}/sites"
    object_path = "/orgs/{org}/sites/{id}"
    created_with = ("title", "visibility", "type")
    set_after_create = ("basename", "defaultLevel")
    patched = ("title", "visibility", "basename", "defaultLevel", "proxy")

    async def read_bystanders(self, reader: LiveReader, gone: Sequence[Gone]) -> list[Bystander]:
        return await site_holdings(reader, self.org_id, gone)

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, f"/orgs/{self.org_id}/sites")

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("sites").values()]

    def _desired(self, e: SiteEntry) -> Desired:
        fields = e.managed()
        if "defaultLevel" in fields:
            fields["defaultLevel"] = level_value(fields["defaultLevel"])
        return entry_desired(e, fields, e.title)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        fields = {k: raw.get(k) for k in (*self.patched, "type")}
        fields["proxy"] = proxy_of(raw)
        fields["published"] = bool(raw.get("published"))
        return Observed(
            id=raw["id"], key=(raw["title"],), fields=fields, title=raw["title"], raw=raw
        )

    def settings_after_create(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        settings = super().settings_after_create(desired, resolve)
        if desired.fields.get("proxy"):  # a new site has no proxy to remove (null)
            settings["proxy"] = resolve(desired.fields["proxy"])
        return settings

    def after_create(self, desired: Desired, resolve: Resolve, at: PathValues) -> list[Call]:
        if not desired.fields.get("published"):  # a new site is not published
            return []
        return [
            Call("POST", self.path(self.object_path + "/publish", at, created(desired.address)))
        ]

    def after_change(self, change: ChangeContext, at: PathValues) -> list[Call]:
        if "published" not in change.changed:
            return []
        action = "publish" if change.changed["published"] else "unpublish"
        return [Call("POST", self.path(f"{self.object_path}/{action}", at, change.observed.id))]

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        return site_audience(objects)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields = {"id": raw["id"], **set_fields(raw, ("title", "type", "visibility", "basename"))}
        if raw.get("defaultLevel") is not None:  # null is what a new site has
            fields["defaultLevel"] = role_entry(raw["defaultLevel"])
        proxy = proxy_of(raw)
        if proxy is not None:
            fields["proxy"] = proxy
        fields["published"] = bool(raw.get("published"))
        return Exported("sites", self.name, raw["id"], raw["title"], fields)


def proxy_of(raw: Mapping[str, Any]) -> str | None:
    """The proxy as it is set (``example.com/docs``): the answer gives the URL visitors use."""
    proxy = raw.get("proxy")
    if not isinstance(proxy, Mapping) or not proxy.get("origin"):
        return None
    return SCHEME.sub("", str(proxy["origin"]))
