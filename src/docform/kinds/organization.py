"""The organization: the one entry every manifest directory describes (``organization:``).

It cannot be created or deleted through the API, so it takes no ``formerly`` or ``protect``;
its required ``id`` is its natural key.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from docform.kinds.base import ID_PATTERN, BoundModel, ManifestModel
from docform.kinds.fields import DOMAIN_PATTERN, MergeRules, Name, RoleOrGuest, Url

Domain = Annotated[str, Field(pattern=DOMAIN_PATTERN, max_length=253)]


class DefaultContent(ManifestModel):
    """What visitors of the organization's hostname see: a site, by manifest name."""

    type: Literal["site"] = "site"
    site: Name = Field(description="Manifest name of a site under sites:.")


class OrganizationEntry(BoundModel):
    """``organization:``: the fields of ``PATCH /orgs/{organizationId}``."""

    kind = "organization"

    id: str = Field(pattern=ID_PATTERN, max_length=255, description="The organization's id.")
    title: str | None = Field(None, min_length=2, max_length=255)
    emailDomains: list[Domain] | None = Field(None, description="Domains whose users may join.")
    hostname: str | None = Field(None, min_length=1, max_length=255)
    defaultRole: RoleOrGuest | None = Field(None, description="Role of new members.")
    defaultContent: DefaultContent | None = None
    logo: Url | None = None
    sso: bool | None = Field(None, description="SSO enforced organization-wide.")
    ai: bool | None = None
    inviteLinks: bool | None = None
    mergeRules: MergeRules | None = None

    @property
    def address(self) -> str:
        return "organization"

    def natural_key(self) -> str:
        # NOTE: an organization is never created, so its id is the only key there is.
        return self.id
