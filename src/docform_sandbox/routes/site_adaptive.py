"""A site's adaptive content schema: ``GET``/``PUT /orgs/{organizationId}/sites/{siteId}/
adaptive-schema``. The switch itself is the site's ``adaptiveContent`` (site PATCH).

The PUT replaces the schema; its body is ``{jsonSchema}``, the strict JSON Schema subset the
API takes (`docform.service.adaptive_schema.VisitorSchema`): anything else is a 400.

Choices where the API documents are silent: reading needs membership of the organization, a
PUT its admin role; a site whose schema was never set answers a schema without claims
(``updatedAt`` the site's creation); the schema is stored as
sent (``$schema`` kept when given) and answered with the time of the last PUT; conditions are
not evaluated (the sandbox shows no published content).
"""

from __future__ import annotations

from typing import Any

from docform.service.adaptive_schema import VisitorSchema, as_sent
from docform_sandbox.http import Body, Ctx, endpoint, timestamp
from docform_sandbox.routes.site_tree import site_of

PATH = "/orgs/{organizationId}/sites/{siteId}/adaptive-schema"


class SchemaBody(Body):
    jsonSchema: VisitorSchema


def _answer(site: dict[str, Any]) -> dict[str, Any]:
    stored = site.get("adaptiveSchema") or {
        "jsonSchema": as_sent(VisitorSchema(properties={})),
        "updatedAt": site["createdAt"],
    }
    return {"object": "site-adaptive-schema", **stored}


@endpoint("GET", PATH)
def get_adaptive_schema(ctx: Ctx) -> dict[str, Any]:
    """The schema of the claims the site's visitors carry (none until one is set)."""
    return _answer(site_of(ctx))


@endpoint("PUT", PATH)
def put_adaptive_schema(ctx: Ctx) -> dict[str, Any]:
    """Replace the site's adaptive schema."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(SchemaBody)
    site["adaptiveSchema"] = {
        "jsonSchema": as_sent(body.jsonSchema),
        "updatedAt": timestamp(ctx.now()),
    }
    ctx.store.update("site", site)
    return _answer(site)
