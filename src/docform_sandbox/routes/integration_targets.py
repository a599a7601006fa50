"""An organization installation's spaces and sites:
``.../installations/{installationId}/spaces[/{spaceId}]`` and ``.../sites[/{siteId}]``.

Choices where the API documents are silent:
- The space (site) must belong to the installation's organization (400 naming ``space``
  (``siteId``) otherwise). Installing on one twice answers 201 with the installation as it
  stands: the definition lists no other success or conflict for it, and it is enabled.
- A new space or site installation is ``active`` with an empty configuration; PATCH
  ``configuration`` replaces it whole. ``extended=true`` is accepted and changes nothing: the
  answers always carry the space's (site's) id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.http import (
    API_BASE,
    PUBLISHED_BASE,
    Body,
    Ctx,
    Endpoint,
    bad_request,
    list_page,
    not_found,
)
from docform_sandbox.routes.integration_catalogue import write_only
from docform_sandbox.routes.integrations import (
    INSTALLATION,
    TARGET_KIND,
    answered,
    require_installation,
)
from docform_sandbox.routes.shared import removed


class SpaceInstall(Body):
    space: str


class SiteInstall(Body):
    site_id: str = Field(alias="siteId")


class TargetPatch(Body):
    externalIds: list[str] | None = Field(None, max_length=5)
    configuration: dict[str, Any] | None = None


def target_id(inst_id: str, target: str, what_id: str) -> str:
    return f"{inst_id}/{target}/{what_id}"


def render(doc: dict[str, Any]) -> dict[str, Any]:
    target, segment = doc["target"], f"{doc['target']}s"
    location = (
        f"{API_BASE}/integrations/{doc['integration']}/installations/{doc['parent']}/"
        f"{segment}/{doc['targetId']}"
    )
    public = f"{PUBLISHED_BASE}/integrations/{doc['integration']}/{segment}/{doc['targetId']}"
    return {
        "integration": doc["integration"],
        "installation": doc["parent"],
        "status": "active",
        "configuration": answered(
            doc["configuration"], write_only(doc["integration"], doc["target"])
        ),
        "externalIds": doc["externalIds"],
        "urls": {
            "location": location,
            "publicEndpoint": public,
            "publicContentEndpoint": f"{public}/content",
        },
        target: doc["targetId"],
    }


def check_target(ctx: Ctx, org_id: str, target: str, what_id: str, field: str) -> None:
    doc = ctx.store.get(target, what_id)
    located = ctx.store.locate(target, what_id)
    if doc is None or located is None or located[0] != org_id or doc.get("deletedAt"):
        raise bad_request(f"{field}: no {target} '{what_id}' in this organization")


def require_target(ctx: Ctx, target: str, write: bool = False) -> dict[str, Any]:
    installation = require_installation(ctx, write=write)
    what_id = ctx.params[f"{target}Id"]
    doc = ctx.store.get(TARGET_KIND, target_id(installation["id"], target, what_id))
    if doc is None:
        raise not_found(f"{target} installation", what_id)
    return doc


def family(target: str, create: type[Body], id_field: str) -> list[Endpoint]:
    """The five routes of the installations on one kind of target (``space``, ``site``)."""
    base = f"{INSTALLATION}/{target}s"
    one = f"{base}/{{{target}Id}}"

    def list_targets(ctx: Ctx) -> dict[str, Any]:
        installation = require_installation(ctx)
        where = [
            ("parent = ?", [installation["id"]]),
            ("json_extract(data, '$.target') = ?", [target]),
        ]
        return list_page(ctx, TARGET_KIND, where, render)

    def install_on(ctx: Ctx) -> dict[str, Any]:
        installation = require_installation(ctx, write=True)
        what_id = getattr(ctx.body_as(create), "space" if target == "space" else "site_id")
        check_target(ctx, installation["organization"], target, what_id, id_field)
        doc_id = target_id(installation["id"], target, what_id)
        if (installed := ctx.store.get(TARGET_KIND, doc_id)) is not None:
            return render(installed)
        doc = {
            "id": doc_id,
            "parent": installation["id"],
            "integration": installation["integration"],
            "target": target,
            "targetId": what_id,
            "configuration": {},
            "externalIds": [],
        }
        org_id = installation["organization"]
        ctx.store.insert(TARGET_KIND, doc, org=org_id, parent=installation["id"])
        return render(doc)

    def get_target(ctx: Ctx) -> dict[str, Any]:
        return render(require_target(ctx, target))

    def patch_target(ctx: Ctx) -> dict[str, Any]:
        doc = require_target(ctx, target, write=True)
        body = ctx.body_as(TargetPatch)
        for field in body.model_fields_set:
            if getattr(body, field) is not None:
                doc[field] = getattr(body, field)
        ctx.store.update(TARGET_KIND, doc)
        return render(doc)

    def uninstall_from(ctx: Ctx) -> Response | None:
        installation = require_installation(ctx, write=True)
        doc_id = target_id(installation["id"], target, ctx.params[f"{target}Id"])
        if ctx.store.get(TARGET_KIND, doc_id) is None:
            return None
        ctx.store.delete(TARGET_KIND, doc_id)
        return removed()

    routes: list[tuple[str, str, Callable[[Ctx], Any], int, str]] = [
        ("GET", base, list_targets, 200, f"The {target}s it is installed on."),
        ("POST", base, install_on, 201, f"Install it on a {target}."),
        ("GET", one, get_target, 200, f"Its installation on a {target}."),
        ("PATCH", one, patch_target, 200, f"Configure it on a {target}."),
        ("DELETE", one, uninstall_from, 205, f"Uninstall it from a {target}."),
    ]
    return [
        Endpoint(method, path, handler, status, summary)
        for method, path, handler, status, summary in routes
    ]


ENDPOINTS = family("space", SpaceInstall, "space") + family("site", SiteInstall, "siteId")
