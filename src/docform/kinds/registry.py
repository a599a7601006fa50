"""Every kind docform manages, in the order plans list them."""

from __future__ import annotations

from docform.engine.kind import Kind
from docform.kinds.access import AccessKind
from docform.kinds.collection import CollectionKind
from docform.kinds.member import MemberKind
from docform.kinds.openapi import OpenApiKind
from docform.kinds.organization import OrganizationKind
from docform.kinds.redirect import RedirectKind
from docform.kinds.saml import SamlKind
from docform.kinds.section import SectionKind
from docform.kinds.section_group import SectionGroupKind
from docform.kinds.site import SiteKind
from docform.kinds.site_space import SiteSpaceKind
from docform.kinds.space import SpaceKind
from docform.kinds.team import TeamKind

KIND_CLASSES: tuple[type[Kind], ...] = (
    OrganizationKind,
    MemberKind,
    TeamKind,
    CollectionKind,
    SpaceKind,
    SiteKind,
    SectionKind,
    SectionGroupKind,
    SiteSpaceKind,
    RedirectKind,
    OpenApiKind,
    SamlKind,
    AccessKind,
)


def build_kinds(org_id: str) -> list[Kind]:
    """One instance of every kind, bound to the organization the manifests describe."""
    return [cls(org_id) for cls in KIND_CLASSES]
