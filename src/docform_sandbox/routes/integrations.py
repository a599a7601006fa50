"""Integrations installed on an organization: the organization's list, the installation
statuses, and ``/integrations/{integrationName}/installations[/{installationId}]``.

Choices where the API documents are silent:
- The sandbox knows a fixed catalogue of public integrations
  (`docform_sandbox.routes.integration_catalogue`); installing any other name answers 404.
  An organization installs an integration once: a second install answers 409.
- A new installation is ``active`` with ``space_selection`` and ``site_selection`` ``selected``,
  an empty configuration and no external ids. PATCH ``configuration`` replaces the whole
  configuration (the API does not say whether it merges); a selection of ``all`` is stored and
  answered but installs nothing by itself: the spaces and sites lists show what was installed
  one by one.
- Uninstalling removes the installation's space and site installations with it. Only a user's
  token may uninstall (`docform_sandbox.routes.tokens`); any admin token may do the rest.
- Reading installations (the organization's list, one installation, and the spaces and sites
  it is installed on) needs the admin role, as the organization's own
  ``permissions.listInstallations`` says (true for admins only): an installation shows its
  configuration. Any member may read the installation statuses.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.access import require_admin_to_read, require_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    PUBLISHED_BASE,
    ApiError,
    Body,
    Ctx,
    Query,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.integration_catalogue import (
    render_integration,
    require_integration,
    write_only,
)
from docform_sandbox.routes.shared import removed

NAME_PATTERN = r"^[a-zA-Z0-9-_.]+$"
INSTALLATIONS = "/integrations/{integrationName}/installations"
INSTALLATION = INSTALLATIONS + "/{installationId}"
KIND = "installation"
TARGET_KIND = "installation-target"


class InstallBody(Body):
    organization: str


class InstallationPatch(Body):
    externalIds: list[str] | None = Field(None, max_length=5)
    configuration: dict[str, Any] | None = None
    space_selection: Literal["all", "selected"] | None = None
    site_selection: Literal["all", "selected"] | None = None


class InstallationsQuery(Query):
    search: str | None = None


class StatusQuery(Query):
    target: Literal["organization", "space", "site"] = "organization"
    space: str | None = None
    site: str | None = None


def render_installation(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    name, inst_id = doc["integration"], doc["id"]
    on_spaces = [("parent = ?", [inst_id]), ("json_extract(data, '$.target') = ?", ["space"])]
    spaces = ctx.store.count(TARGET_KIND, on_spaces)
    return {
        "id": inst_id,
        "status": "active",
        "space_selection": doc["space_selection"],
        "site_selection": doc["site_selection"],
        "spaces": spaces,
        "configuration": answered(doc["configuration"], write_only(name, "account")),
        "createdAt": doc["createdAt"],
        "updatedAt": doc["updatedAt"],
        "urls": {
            "location": f"{API_BASE}/integrations/{name}/installations/{inst_id}",
            "app": f"{APP_BASE}/o/{doc['organization']}/integrations/{name}",
            "publicEndpoint": f"{PUBLISHED_BASE}/integrations/{name}/installations/{inst_id}",
            "publicContentEndpoint": f"{PUBLISHED_BASE}/integrations/{name}/content/{inst_id}",
        },
        "externalIds": doc["externalIds"],
        "target": {"organization": doc["organization"]},
    }


def answered(configuration: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """A stored configuration as answers show it: without its write-only settings."""
    return {key: value for key, value in configuration.items() if key not in hidden}


def require_installation(ctx: Ctx, *, write: bool = False) -> dict[str, Any]:
    """The installation of the path's integration, after checking access to its organization."""
    name = require_integration(ctx)
    inst_id = ctx.params["installationId"]
    doc = ctx.store.get(KIND, inst_id)
    if doc is None or doc["integration"] != name:
        raise not_found("installation", inst_id)
    if write:
        require_org(ctx, doc["organization"], write=True)
    else:
        require_admin_to_read(ctx, doc["organization"], "integration installations")
    return doc


def installed(ctx: Ctx, org_id: str, name: str) -> dict[str, Any] | None:
    found = [d for d in ctx.store.all(KIND, [("org = ?", [org_id])]) if d["integration"] == name]
    return found[0] if found else None


@endpoint("GET", "/orgs/{organizationId}/installations")
def list_org_installations(ctx: Ctx) -> dict[str, Any]:
    """The organization's installations, each with its integration."""
    org_id = ctx.params["organizationId"]
    require_admin_to_read(ctx, org_id, "integration installations")
    search = ctx.query_as(InstallationsQuery).search
    where: list[tuple[str, list[Any]]] = [("org = ?", [org_id])]
    if search:
        where.append(("instr(lower(json_extract(data, '$.integration')), ?) > 0", [search.lower()]))
    return list_page(
        ctx,
        KIND,
        where,
        lambda d: {
            "integration": render_integration(ctx, d["integration"]),
            "installation": render_installation(ctx, d),
        },
    )


@endpoint(
    "GET",
    "/orgs/{organizationId}/integrations/installations-status",
)
def list_statuses(ctx: Ctx) -> dict[str, Any]:
    """Where the organization's integrations are installed: the organization, a space, a site."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    query = ctx.query_as(StatusQuery)
    if query.target == "organization":
        return list_page(
            ctx,
            KIND,
            [("org = ?", [org_id])],
            lambda d: {
                "status": "active",
                "integration": render_integration(ctx, d["integration"]),
                "target": {"type": "organization", "organizationId": org_id},
            },
        )
    where: list[tuple[str, list[Any]]] = [
        ("org = ?", [org_id]),
        ("json_extract(data, '$.target') = ?", [query.target]),
    ]
    wanted = query.space if query.target == "space" else query.site
    if wanted:
        where.append(("json_extract(data, '$.targetId') = ?", [wanted]))
    id_field = f"{query.target}Id"
    return list_page(
        ctx,
        TARGET_KIND,
        where,
        lambda d: {
            "status": "active",
            "integration": render_integration(ctx, d["integration"]),
            "target": {"type": d["target"], id_field: d["targetId"]},
        },
    )


@endpoint(
    "GET",
    "/orgs/{organizationId}/integrations/{integrationName}/installation_status",
)
def get_status(ctx: Ctx) -> dict[str, Any]:
    """Whether the organization installed the integration (404 when it did not)."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    name = require_integration(ctx)
    if installed(ctx, org_id, name) is None:
        raise not_found("installation of integration", name)
    return {"status": "active"}


@endpoint("POST", INSTALLATIONS, 201)
def install(ctx: Ctx) -> dict[str, Any]:
    """Install the integration on an organization."""
    name = require_integration(ctx)
    org_id = ctx.body_as(InstallBody).organization
    require_org(ctx, org_id, write=True)
    if installed(ctx, org_id, name) is not None:
        raise ApiError(409, f"integration '{name}' is already installed on '{org_id}'")
    now = timestamp(ctx.now())
    doc = {
        "id": new_id(),
        "organization": org_id,
        "integration": name,
        "space_selection": "selected",
        "site_selection": "selected",
        "configuration": {},
        "externalIds": [],
        "createdAt": now,
        "updatedAt": now,
    }
    ctx.store.insert(KIND, doc, org=org_id)
    return render_installation(ctx, doc)


@endpoint("GET", INSTALLATION)
def get_installation(ctx: Ctx) -> dict[str, Any]:
    return render_installation(ctx, require_installation(ctx))


@endpoint("PATCH", INSTALLATION)
def patch_installation(ctx: Ctx) -> dict[str, Any]:
    doc = require_installation(ctx, write=True)
    body = ctx.body_as(InstallationPatch)
    for name in body.model_fields_set:
        value = getattr(body, name)
        if value is not None:
            doc[name] = value
    doc["updatedAt"] = timestamp(ctx.now())
    ctx.store.update(KIND, doc)
    return render_installation(ctx, doc)


@endpoint("DELETE", INSTALLATION, 205)
def uninstall(ctx: Ctx) -> Response | None:
    """Uninstall (205); 204 when there was no such installation. A user's token only."""
    require_integration(ctx)
    doc = ctx.store.get(KIND, ctx.params["installationId"])
    if doc is None or doc["integration"] != ctx.params["integrationName"]:
        return None
    require_org(ctx, doc["organization"], write=True)
    ctx.store.delete_where(TARGET_KIND, [("parent = ?", [doc["id"]])])
    ctx.store.delete(KIND, doc["id"])
    return removed()
