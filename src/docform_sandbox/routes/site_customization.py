"""A site's customization: ``GET``/``PUT /orgs/{organizationId}/sites/{siteId}/customization``.

The PUT replaces the whole document: every key the API requires must be sent (400 naming the
first missing one otherwise), and an optional key left out, or sent as null, is absent
afterwards. What is stored can differ from what was sent: in a non-empty list of page actions
the assistant follows ``ai.mode`` (kept first while the assistant is on, dropped otherwise).

Choices where the API documents are silent:

- Reading needs membership of the organization; a PUT needs its admin role.
- A site never customized answers the sandbox's default document (`DEFAULTS` of
  `docform.service.customization_stored`) without ``updatedAt``; a PUT sets ``updatedAt``.
- Nothing is masked (``unmasked`` is accepted and changes nothing); ``updatedAt`` or any other
  unknown key in a PUT body is a 400.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict

from docform.service.customization_stored import as_stored, defaults
from docform.service.site_customization import Customization
from docform_sandbox.http import Body, Ctx, endpoint, timestamp
from docform_sandbox.routes.site_tree import site_of

PATH = "/orgs/{organizationId}/sites/{siteId}/customization"


class CustomizationBody(Customization, Body):
    """A PUT's body: the whole document, nothing else."""

    model_config = ConfigDict(extra="forbid", strict=True)


def site_document(site: dict[str, Any]) -> dict[str, Any]:
    """The site's customization as stored: its defaults until a PUT changed it."""
    return site.get("customization") or defaults()


def _answer(site: dict[str, Any]) -> dict[str, Any]:
    body = site_document(site)
    if "customizationUpdatedAt" in site:
        body = {**body, "updatedAt": site["customizationUpdatedAt"]}
    return body


@endpoint("GET", PATH)
def get_customization(ctx: Ctx) -> dict[str, Any]:
    """The site's customization: its defaults until a PUT changed it."""
    return _answer(site_of(ctx))


@endpoint("PUT", PATH)
def put_customization(ctx: Ctx) -> dict[str, Any]:
    """Replace the site's customization with the body (left-out optional keys are absent)."""
    site = site_of(ctx, write=True)
    ctx.body_as(CustomizationBody)
    site["customization"] = as_stored(ctx.body)
    site["customizationUpdatedAt"] = timestamp(ctx.now())
    ctx.store.update("site", site)
    return _answer(site)
