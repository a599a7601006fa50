"""A site's agent channels (the outside tools the GitBook Agent works in: Slack, Discord,
GitHub, Linear): ``GET|POST /orgs/{organizationId}/sites/{siteId}/channels`` and
``GET|PATCH|DELETE .../channels/{siteChannelId}``.

A channel is its ``type``, the ``setupSettings`` that type takes (the Slack or Discord channels,
Linear teams or GitHub repositories it answers in; an empty list allows all), and its ``role``:
``support`` answers questions from the site's content, ``collaborator`` also opens change
requests.

Choices where the API documents are silent, as the UI behaves:
- Reading needs membership of the organization, writing its admin role.
- A new channel is ``pending`` (until the tool's side is connected, which the sandbox never
  does) with no answers; its role, when not given, is ``support``.
- ``setupSettings`` must hold only the list its type takes, each item matching the
  definition's pattern (400 otherwise). A PATCH sets the type and setup together (both
  required), the role, or both.
- Two channels of one type may share a site (nothing in the definition stops it).
- DELETE answers 205 when it deleted the channel, 204 when there was none.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from starlette.responses import JSONResponse, Response

from docform_sandbox.http import (
    API_BASE,
    Body,
    Ctx,
    bad_request,
    endpoint,
    list_page,
    new_id,
    timestamp,
)
from docform_sandbox.routes.shared import delete_held, held_by
from docform_sandbox.routes.site_tree import site_of

CHANNEL = "site-channel"
PATH = "/orgs/{organizationId}/sites/{siteId}/channels"
ONE = PATH + "/{siteChannelId}"
#: The definition's patterns (GenericChannelPattern, GitHubRepositoryPattern).
GENERIC = re.compile(r"^[a-zA-Z0-9_\*-]+$")
REPOSITORY = re.compile(r"^[a-zA-Z0-9._*-]+\/[a-zA-Z0-9._*-]+$")
#: The one setup list each type takes, and the pattern of its items.
SETUP: dict[str, tuple[str, re.Pattern[str]]] = {
    "builtin:slack": ("allowedChannels", GENERIC),
    "builtin:discord": ("allowedChannels", GENERIC),
    "builtin:linear": ("allowedTeams", GENERIC),
    "builtin:github": ("allowedRepositories", REPOSITORY),
}
ChannelType = Literal["builtin:slack", "builtin:discord", "builtin:linear", "builtin:github"]
Role = Literal["collaborator", "support"]


class ChannelCreate(Body):
    type: ChannelType
    setupSettings: dict[str, Any]
    role: Role = "support"


class ChannelPatch(Body):
    type: ChannelType | None = None
    setupSettings: dict[str, Any] | None = None
    role: Role | None = None


def checked_setup(kind: str, setup: dict[str, Any]) -> dict[str, Any]:
    """``setup`` as stored, once it holds only the list ``kind`` takes, of valid items."""
    key, pattern = SETUP[kind]
    for name, items in setup.items():
        if name != key:
            raise bad_request(f"setupSettings.{name}: a {kind} channel takes {key} only")
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise bad_request(f"setupSettings.{key}: must be a list of names or patterns")
        bad = [item for item in items if not pattern.match(item)]
        if bad:
            raise bad_request(f"setupSettings.{key}: {bad[0]!r} is not a name or pattern")
    return dict(setup)


def render(site: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    prefix = f"{API_BASE}/orgs/{site['organization']}/sites/{site['id']}"
    return {
        "object": CHANNEL,
        "id": doc["id"],
        "type": doc["type"],
        "setupSettings": doc["setupSettings"],
        "status": doc["status"],
        "role": doc["role"],
        "answers": doc["answers"],
        "createdAt": doc["createdAt"],
        "urls": {"location": f"{prefix}/channels/{doc['id']}"},
    }


def _channel_of(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any]:
    return held_by(ctx, site, CHANNEL, "siteChannelId", "site channel")


@endpoint("GET", PATH)
def list_channels(ctx: Ctx) -> dict[str, Any]:
    """The site's agent channels."""
    site = site_of(ctx)
    return list_page(ctx, CHANNEL, [("parent = ?", [site["id"]])], lambda d: render(site, d))


@endpoint("POST", PATH, 201)
def create_channel(ctx: Ctx) -> JSONResponse:
    """Set up an agent channel for the site."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(ChannelCreate)
    doc: dict[str, Any] = {
        "id": new_id(),
        "site": site["id"],
        "type": body.type,
        "setupSettings": checked_setup(body.type, body.setupSettings),
        "status": "pending",
        "role": body.role,
        "answers": 0,
        "createdAt": timestamp(ctx.now()),
    }
    ctx.store.insert(CHANNEL, doc, org=site["organization"], parent=site["id"])
    answer = render(site, doc)
    return JSONResponse(answer, status_code=201, headers={"Location": answer["urls"]["location"]})


@endpoint("GET", ONE)
def get_channel(ctx: Ctx) -> dict[str, Any]:
    """One agent channel of the site."""
    site = site_of(ctx)
    return render(site, _channel_of(ctx, site))


@endpoint("PATCH", ONE)
def patch_channel(ctx: Ctx) -> dict[str, Any]:
    """Change a channel's type and setup (together), its role, or both."""
    site = site_of(ctx, write=True)
    doc = _channel_of(ctx, site)
    patch = ctx.body_as(ChannelPatch)
    setup_given = {"type", "setupSettings"} & patch.model_fields_set
    if setup_given and (patch.type is None or patch.setupSettings is None):
        raise bad_request("type and setupSettings are set together, neither null")
    if not setup_given and patch.role is None:
        raise bad_request("the body must set type and setupSettings, or role")
    if patch.type is not None and patch.setupSettings is not None:
        doc["type"] = patch.type
        doc["setupSettings"] = checked_setup(patch.type, patch.setupSettings)
    if patch.role is not None:
        doc["role"] = patch.role
    ctx.store.update(CHANNEL, doc)
    return render(site, doc)


@endpoint("DELETE", ONE, 205)
def delete_channel(ctx: Ctx) -> Response | None:
    """205 when it deleted the channel, 204 when there was none."""
    site = site_of(ctx, write=True)
    return delete_held(ctx, site, CHANNEL, "siteChannelId")
