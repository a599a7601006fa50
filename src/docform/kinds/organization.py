"""The organization: the one entry every manifest directory describes (``organization:``).

It cannot be created or deleted through the API, so it takes no ``formerly`` or ``protect``;
its required ``id`` is its natural key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from docform.engine.field_rules import NullMeans, Unordered
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed
from docform.engine.live import LiveReader, ReadError
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.exporting import merge_rules_entry, role_entry, set_fields
from docform.kind_framework.planning import (
    location,
    merge_rules_desired,
    merge_rules_observed,
    ref,
)
from docform.kind_framework.rest import body_of
from docform.model.documents import DocumentText
from docform.model.entry import ID_PATTERN, BoundModel, ManifestModel
from docform.model.fields import (
    DOMAIN_PATTERN,
    MERGE_RULES_FIELDS,
    MergeRules,
    RoleOrGuest,
    SiteName,
    Url,
    role_value,
)
from docform.service.answer_description import within

Domain = Annotated[str, Field(pattern=DOMAIN_PATTERN, max_length=253)]


class DefaultContent(ManifestModel):
    """What visitors of the organization's hostname see: a site, by manifest name."""

    type: Literal["site"] = "site"
    site: SiteName = Field(description="Manifest name of a site under sites:.")


class OrganizationEntry(BoundModel):
    """``organization:``: the fields of ``PATCH /orgs/{organizationId}``."""

    kind = "organization"
    child_fields = frozenset({"agentInstructions"})

    id: str = Field(pattern=ID_PATTERN, max_length=255, description="The organization's id.")
    title: str | None = Field(None, min_length=2, max_length=255)
    emailDomains: Annotated[list[Domain] | None, Unordered()] = Field(
        None, description="Domains whose users may join."
    )
    hostname: str | None = Field(None, min_length=1, max_length=255)
    defaultRole: Annotated[RoleOrGuest | None, NullMeans("guest")] = Field(
        None, description="Role of new members."
    )
    defaultContent: DefaultContent | None = None
    logo: Url | None = None
    sso: bool | None = Field(None, description="SSO enforced organization-wide.")
    ai: bool | None = None
    inviteLinks: bool | None = None
    mergeRules: MergeRules | None = None
    agentInstructions: DocumentText | None = Field(
        None, description="What the service's agents are told: {markdown: ...} or {document: ...}."
    )

    @property
    def address(self) -> str:
        return "organization"

    def natural_key(self) -> str:
        # NOTE: an organization is never created, so its id is the only key there is.
        return self.id


class OrganizationKind(Kind):
    """The one organization: read with a GET, changed with a PATCH, never created or deleted."""

    name = "organization"
    prune_setting = ""
    read_required = True
    declaration = Declaration(
        position=10,
        section=Section(
            OrganizationEntry,
            name="organization",
            plural="organization",
            single=True,
            description="The organization these files describe (exactly once per directory).",
        ),
        export_file="organization.yaml",
        reads=Reads(
            fields={
                "/orgs/*": (
                    "id",
                    "title",
                    "emailDomains[]",
                    "hostname",
                    "defaultRole",
                    "defaultContent.type",
                    "sso",
                    "ai",
                    "inviteLinks",
                    *within("mergeRules", MERGE_RULES_FIELDS),
                    "urls.logo",
                ),
            },
            list_names=("orgs",),
        ),
    )
    fields = OrganizationEntry
    # Deleting the site it shows clears it, whether the manifests write it or not.
    deleted_with: ClassVar[Mapping[str, str]] = {"defaultContent": "cleared"}
    references = ("site", "member")
    COMPARED = ("title", "emailDomains", "hostname", "defaultRole", "sso", "ai", "inviteLinks")

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        org = await reader.get_or_none(self.name, f"/orgs/{self.org_id}")
        if org is None:
            raise ReadError(
                f"organization '{self.org_id}' does not exist or this token cannot see it; "
                "check organization.id in the manifests and DOCFORM_API_TOKEN"
            )
        return [org]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        e: OrganizationEntry = manifests.organization
        fields = e.managed()
        fields.pop("id", None)
        if "defaultRole" in fields:
            fields["defaultRole"] = role_value(fields["defaultRole"])
        if e.defaultContent is not None:
            fields["defaultContent"] = {"type": "site", "site": ref("site", e.defaultContent.site)}
        if e.mergeRules is not None:
            fields["mergeRules"] = merge_rules_desired(e.mergeRules)
        return [
            Desired(address=e.address, key=(e.id,), fields=fields, location=location(e),
                    pinned_id=e.id, entry=e)
        ]  # fmt: skip

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        fields = {k: raw.get(k) for k in self.COMPARED}
        content = raw.get("defaultContent")
        if isinstance(content, Mapping) and content.get("type") == "site":
            fields["defaultContent"] = {"type": "site", "site": index.ref("site", content["site"])}
        else:
            fields["defaultContent"] = content
        fields["mergeRules"] = merge_rules_observed(raw.get("mergeRules"), index)
        fields["logo"] = (raw.get("urls") or {}).get("logo")
        title = raw.get("title") or raw["id"]
        return Observed(id=raw["id"], key=(raw["id"],), fields=fields, title=title, raw=raw)

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [
            Call(
                "PATCH",
                f"/orgs/{change.observed.id}",
                body_of(change.changed, change.resolve, change.changed),
            )
        ]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        # The logo is left out: the API answers with a URL of its own, not what was set.
        fields = {"id": raw["id"], **set_fields(raw, ("title", "emailDomains", "hostname"))}
        fields["defaultRole"] = role_entry(raw.get("defaultRole"))
        content = raw.get("defaultContent")
        if isinstance(content, Mapping) and content.get("type") == "site":
            fields["defaultContent"] = {"site": LiveRef("site", content["site"])}
        fields |= set_fields(raw, ("sso", "ai", "inviteLinks"))
        rules = merge_rules_entry(raw.get("mergeRules"))
        if rules is not None:
            fields["mergeRules"] = rules
        return Exported("organization", self.name, raw["id"], "", fields, single=True)
