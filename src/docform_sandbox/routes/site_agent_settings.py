"""A site's agent settings (how the AI built into the editor works on the site's content):
``GET|PUT /orgs/{organizationId}/sites/{siteId}/agent-settings``.

They exist once per site, from its creation: there is nothing to create or delete, and a PUT
replaces them whole (``scans``, ``findings`` and ``editing`` are all required).

Choices where the API documents are silent, as the UI behaves:
- A site whose settings were never written answers the UI's defaults: topics scanned
  automatically (``auto``), change requests opened for the findings the agent can fix
  (``auto-fixable``), no custom instructions (an empty Document); without ``updatedAt`` and
  ``updatedBy``, which only a PUT sets.
- Reading needs membership of the organization, writing its admin role. ``customInstructions``
  must be a Document (``object: document``, a ``data`` object and a list of ``nodes``), stored as
  sent.
"""

from __future__ import annotations

from typing import Any, Literal

from docform_sandbox.http import API_BASE, Body, Ctx, endpoint, timestamp
from docform_sandbox.routes.agent_instructions import check_document, empty_document
from docform_sandbox.routes.site_tree import site_of

PATH = "/orgs/{organizationId}/sites/{siteId}/agent-settings"
KIND = "site-agent-settings"


class Scans(Body):
    topics: Literal["auto", "never"]


class Findings(Body):
    changeRequests: Literal["always", "auto-fixable", "never"]


class Editing(Body):
    customInstructions: dict[str, Any]


class SettingsBody(Body):
    scans: Scans
    findings: Findings
    editing: Editing


def defaults() -> dict[str, Any]:
    """What a site's settings are until a PUT writes them."""
    return {
        "scans": {"topics": "auto"},
        "findings": {"changeRequests": "auto-fixable"},
        "editing": {"customInstructions": empty_document()},
    }


def render(site: dict[str, Any], stored: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"object": "site-agent-settings"}
    written = stored or defaults()
    body.update({name: written[name] for name in ("scans", "findings", "editing")})
    if stored is not None:
        body["updatedAt"] = stored["updatedAt"]
        body["updatedBy"] = stored["updatedBy"]
    location = f"{API_BASE}/orgs/{site['organization']}/sites/{site['id']}/agent-settings"
    body["urls"] = {"location": location}
    return body


@endpoint("GET", PATH)
def get_agent_settings(ctx: Ctx) -> dict[str, Any]:
    """The site's agent settings."""
    site = site_of(ctx)
    return render(site, ctx.store.get(KIND, site["id"]))


@endpoint("PUT", PATH)
def put_agent_settings(ctx: Ctx) -> dict[str, Any]:
    """Replace the site's agent settings."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(SettingsBody)
    instructions = body.editing.customInstructions
    check_document(instructions, "editing.customInstructions")
    stored = {
        "id": site["id"],
        "scans": {"topics": body.scans.topics},
        "findings": {"changeRequests": body.findings.changeRequests},
        "editing": {"customInstructions": instructions},
        "updatedAt": timestamp(ctx.now()),
        "updatedBy": ctx.caller.user_id or "",
    }
    if ctx.store.get(KIND, site["id"]) is None:
        ctx.store.insert(KIND, stored, org=site["organization"], parent=site["id"])
    else:
        ctx.store.update(KIND, stored)
    return render(site, stored)
