"""The organization's agent instructions: ``GET|PUT /orgs/{organizationId}/agent-instructions``.

Choices where the API documents are silent:
- An organization whose instructions were never written answers an empty Document, with the
  organization's creation time as ``updatedAt`` and an empty ``updatedBy``.
- Reading needs membership; writing needs the admin role. ``instructions`` must be a Document
  (``object: document``, a ``data`` object and a list of ``nodes``); its content is stored as
  sent.
"""

from __future__ import annotations

from typing import Any

from docform_sandbox.access import require_org
from docform_sandbox.http import API_BASE, Body, Ctx, bad_request, endpoint, timestamp

PATH = "/orgs/{organizationId}/agent-instructions"
KIND = "agent-instructions"


class InstructionsBody(Body):
    instructions: dict[str, Any]


def empty_document() -> dict[str, Any]:
    return {"object": "document", "data": {"schemaVersion": 1}, "nodes": []}


def check_document(document: dict[str, Any], field: str) -> None:
    """A Document: ``{object: 'document', data: {...}, nodes: [...]}``, as the definition's
    JSONDocument requires (400 naming ``field`` otherwise)."""
    if (
        document.get("object") != "document"
        or not isinstance(document.get("data"), dict)
        or not isinstance(document.get("nodes"), list)
    ):
        raise bad_request(
            f"{field}: must be a Document ({{object: 'document', data: {{...}}, nodes: [...]}})"
        )


def render(org: dict[str, Any], stored: dict[str, Any] | None) -> dict[str, Any]:
    stored = stored or {}
    return {
        "object": "agent-instructions",
        "instructions": stored.get("instructions") or empty_document(),
        "updatedAt": stored.get("updatedAt") or org["createdAt"],
        "updatedBy": stored.get("updatedBy") or "",
        "urls": {"location": f"{API_BASE}/orgs/{org['id']}/agent-instructions"},
    }


@endpoint("GET", PATH)
def get_instructions(ctx: Ctx) -> dict[str, Any]:
    """The organization's agent instructions."""
    org = require_org(ctx, ctx.params["organizationId"])
    return render(org, ctx.store.get(KIND, org["id"]))


@endpoint("PUT", PATH)
def put_instructions(ctx: Ctx) -> dict[str, Any]:
    """Replace the organization's agent instructions."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    body = ctx.body_as(InstructionsBody)
    check_document(body.instructions, "instructions")
    stored = {
        "id": org["id"],
        "instructions": body.instructions,
        "updatedAt": timestamp(ctx.now()),
        "updatedBy": ctx.caller.user_id or "",
    }
    if ctx.store.get(KIND, org["id"]) is None:
        ctx.store.insert(KIND, stored, org=org["id"])
    else:
        ctx.store.update(KIND, stored)
    return render(org, stored)
