"""The shape of a whole manifest: which section holds which kind, and the root model the JSON
Schema is generated from."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ConfigDict, Field

from docform.kinds.base import Entry, ManifestModel
from docform.kinds.collection import CollectionEntry
from docform.kinds.fields import EMAIL_PATTERN, NAME_PATTERN, Email, Name, RoleOrGuest
from docform.kinds.member import MemberEntry
from docform.kinds.openapi import OpenApiEntry
from docform.kinds.organization import OrganizationEntry
from docform.kinds.saml import SamlEntry
from docform.kinds.site import SiteEntry
from docform.kinds.space import SpaceEntry
from docform.kinds.team import TeamEntry
from docform.manifest.settings import Settings


@dataclass(frozen=True)
class EntrySection:
    """A top-level section of named entries: ``teams:`` holds `TeamEntry` values by name."""

    name: str
    model: type[Entry]
    noun: str  # "team", as in "unknown team 'x'"
    plural: str  # for the summary line
    key_pattern: str = NAME_PATTERN


ENTRY_SECTIONS: dict[str, EntrySection] = {
    section.name: section
    for section in (
        EntrySection("members", MemberEntry, "member", "members", EMAIL_PATTERN),
        EntrySection("teams", TeamEntry, "team", "teams"),
        EntrySection("collections", CollectionEntry, "collection", "collections"),
        EntrySection("spaces", SpaceEntry, "space", "spaces"),
        EntrySection("sites", SiteEntry, "site", "sites"),
        EntrySection("openapi", OpenApiEntry, "OpenAPI spec", "OpenAPI specs"),
        EntrySection("saml", SamlEntry, "SAML provider", "SAML providers"),
    )
}


class ManifestDocument(ManifestModel):
    """One manifest file. A directory may hold many; each section may be split across them."""

    model_config = ConfigDict(title="docform manifest")
    # An empty section (``teams:`` with nothing under it) is allowed.
    nullable_fields = frozenset(
        {"docform", "organization", "members", "teams", "collections", "spaces", "sites"}
        | {"openapi", "saml"}
    )

    docform: Settings | None = Field(None, description="Settings: api, prune, limits, ignore.")
    organization: OrganizationEntry | None = Field(
        None, description="The organization these files describe (exactly once per directory)."
    )
    members: dict[Email, RoleOrGuest | MemberEntry] | None = Field(
        None, description="Members by email: a role, or {role, sso}."
    )
    teams: dict[Name, TeamEntry] | None = None
    collections: dict[Name, CollectionEntry] | None = None
    spaces: dict[Name, SpaceEntry] | None = None
    sites: dict[Name, SiteEntry] | None = None
    openapi: dict[Name, OpenApiEntry] | None = None
    saml: dict[Name, SamlEntry] | None = None
