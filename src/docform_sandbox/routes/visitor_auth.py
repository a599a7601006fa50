"""Visitor authentication of a site: ``GET|PATCH /orgs/{organizationId}/sites/{siteId}/
publishing/auth`` and ``POST .../publishing/auth/regenerate``.

Its answer holds ``privateKey``, the key that signs visitors' tokens: a secret the service
returns on every read and change, as the sandbox does, so tests can prove docform never shows it.

Choices where the API documents are silent:
- Every site has its visitor authentication from its first read or change: backend ``custom``,
  a new private key and no URLs. There is no delete (as documented).
- Every operation needs the organization's admin role, reads included (they show the key).
- PATCH requires ``backend``; ``fallbackURL`` and ``logoutURL`` left out are kept, ``null``
  removes them, a value must be an absolute http(s) URL (else 400 naming the field).
- ``integration`` is never set: the sandbox installs no integrations.
- A new key is 43 URL-safe characters; regenerate replaces it at once.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import field_validator

from docform_sandbox.http import Body, Ctx, endpoint
from docform_sandbox.routes.site_tree import site_of

AUTH = "publishing-auth"
PATH = "/orgs/{organizationId}/sites/{siteId}/publishing/auth"
URL_FIELDS = ("fallbackURL", "logoutURL")


class AuthPatch(Body):
    backend: Literal["custom", "integration"]
    fallbackURL: str | None = None
    logoutURL: str | None = None

    @field_validator("fallbackURL", "logoutURL")
    @classmethod
    def _absolute_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("must be an absolute http or https URL")
        return value


def new_private_key() -> str:
    return secrets.token_urlsafe(32)


def auth_of(ctx: Ctx) -> dict[str, Any]:
    """The site's visitor authentication, made on first use."""
    site = site_of(ctx, write=True)
    doc = ctx.store.get(AUTH, site["id"])
    if doc is None:
        doc = {"id": site["id"], "backend": "custom", "privateKey": new_private_key()}
        ctx.store.insert(AUTH, doc, org=site["organization"], parent=site["id"])
    return doc


def render_auth(doc: dict[str, Any]) -> dict[str, Any]:
    body = {"object": "publishing-auth", "backend": doc["backend"], "privateKey": doc["privateKey"]}
    body.update((name, doc[name]) for name in URL_FIELDS if doc.get(name) is not None)
    return body


@endpoint("GET", PATH)
def get_auth(ctx: Ctx) -> dict[str, Any]:
    return render_auth(auth_of(ctx))


@endpoint("PATCH", PATH)
def patch_auth(ctx: Ctx) -> dict[str, Any]:
    doc = auth_of(ctx)
    patch = ctx.body_as(AuthPatch)
    doc["backend"] = patch.backend
    doc.update(
        (name, getattr(patch, name)) for name in URL_FIELDS if name in patch.model_fields_set
    )
    ctx.store.update(AUTH, doc)
    return render_auth(doc)


@endpoint("POST", PATH + "/regenerate")
def regenerate_key(ctx: Ctx) -> dict[str, Any]:
    doc = auth_of(ctx)
    doc["privateKey"] = new_private_key()
    ctx.store.update(AUTH, doc)
    return render_auth(doc)
