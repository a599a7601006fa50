"""Organizations: ``GET /orgs``, ``GET|PATCH /orgs/{organizationId}``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from docform_sandbox.access import is_admin, require_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    Body,
    Ctx,
    bad_request,
    check_role,
    endpoint,
    list_page,
)
from docform_sandbox.routes.shared import check_merge_rules

ORG_FIELDS = (
    "id", "title", "createdAt", "emailDomains", "hostname", "type", "useCase", "defaultRole",
    "defaultContent", "sso", "ai", "inviteLinks", "plan", "mergeRules", "auditLogs",
    "customHostname",
)  # fmt: skip


# Like the service, an answer leaves out a value that is not set rather than send null; only
# the roles keep null, where it means "guest".
NULLABLE_FIELDS = ("defaultRole",)
# Every answer carries these, so a PATCH cannot clear them (hostname, defaultContent, logo can).
NOT_NULL_FIELDS = ("emailDomains", "sso", "ai", "inviteLinks", "mergeRules")
# The service reports a trial on every organization; the sandbox's never have one.
NO_TRIAL = {"status": "notapplicable", "count": 0}


def render_org(ctx: Ctx, org: dict[str, Any]) -> dict[str, Any]:
    admin = is_admin(ctx, org["id"])
    body: dict[str, Any] = {"object": "organization"}
    body.update(
        (k, org[k]) for k in ORG_FIELDS if k in org and (org[k] is not None or k in NULLABLE_FIELDS)
    )
    body["trial"] = dict(NO_TRIAL)
    body["urls"] = {
        "location": f"{API_BASE}/orgs/{org['id']}",
        "app": f"{APP_BASE}/o/{org['id']}",
        "logo": org.get("logo") or f"{APP_BASE}/o/{org['id']}/logo.png",
    }
    body["permissions"] = {
        "view": True,
        "access": True,
        "admin": admin,
        "ownTeam": admin,
        "createContent": admin,
        "createOpenAPISpec": admin,
        "viewBilling": admin,
        "listMembers": True,
        "listTeams": True,
        "listIntegrations": True,
        "listInstallations": admin,
        "installIntegration": admin,
    }
    return body


@endpoint("GET", "/orgs")
def list_orgs(ctx: Ctx) -> dict[str, Any]:
    """The organizations the caller is a member of (all of them for an admin token)."""
    where = []
    if not ctx.caller.superuser:
        where.append(
            (
                "id IN (SELECT m.org FROM objects m WHERE m.kind = 'member' "
                "AND json_extract(m.data, '$.user') = ?)",
                [ctx.caller.user_id],
            )
        )
    return list_page(ctx, "organization", where, lambda org: render_org(ctx, org))


@endpoint("GET", "/orgs/{organizationId}")
def get_org(ctx: Ctx) -> dict[str, Any]:
    return render_org(ctx, require_org(ctx, ctx.params["organizationId"]))


class DefaultContent(Body):
    type: Literal["site"]
    site: str


class OrgPatch(Body):
    title: str | None = Field(None, min_length=2, max_length=255)
    emailDomains: list[str] | None = None
    hostname: str | None = Field(None, max_length=255)
    defaultRole: str | None = None
    defaultContent: DefaultContent | None = None
    logo: str | None = Field(None, max_length=2048)
    sso: bool | None = None
    ai: bool | None = None
    inviteLinks: bool | None = None
    mergeRules: dict[str, Any] | None = None


@endpoint("PATCH", "/orgs/{organizationId}")
def patch_org(ctx: Ctx) -> dict[str, Any]:
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    patch = ctx.body_as(OrgPatch)
    given = patch.model_fields_set
    if "title" in given and patch.title is None:
        raise bad_request("title: must be a string of 2 to 255 characters")
    for name in NOT_NULL_FIELDS:
        if name in given and getattr(patch, name) is None:
            raise bad_request(f"{name}: must not be null")
    if "defaultRole" in given:
        check_role(patch.defaultRole, "defaultRole")
    if patch.defaultContent is not None:
        site = ctx.store.get("site", patch.defaultContent.site)
        if site is None or site.get("organization") != org["id"]:
            raise bad_request(
                f"defaultContent.site: no site '{patch.defaultContent.site}' in this organization"
            )
    if "mergeRules" in given:
        check_merge_rules(patch.mergeRules, "mergeRules", allow_inherit=False)
    for name in given:
        value = getattr(patch, name)
        org[name] = value.model_dump() if isinstance(value, Body) else value
    ctx.store.update("organization", org)
    return render_org(ctx, org)
