"""Git Sync: ``POST /git/installations``, ``GET|PATCH|DELETE /git/installations/{installationId}``,
a site's ``GET /orgs/{organizationId}/sites/{siteId}/spaces/git/installations`` and a space's
``GET /spaces/{spaceId}/git/info``.

Choices where the API documents are silent:
- A space or a site has one installation at most: a second answers 409. A space installation
  with ``target.siteId`` belongs to that site's list as well as the site's own installation.
- A GitHub installation starts ``pending`` and is ``active`` once a PATCH gives it a repository
  and a branch. A GitLab one starts ``unauthenticated`` and is ``active`` once a PATCH gives it
  an ``accessToken``, which it keeps and never answers (a token the service holds). While
  ``unauthenticated`` (also when a test sets it so, as a revoked
  authorization), a PATCH without an ``accessToken`` answers 401: nothing is saved.
- PATCH replaces what it sends and records the sync it queues as a finished ``operation``
  (``import`` when the priority is ``git``, else ``export``); nothing is read from a repository,
  so a site import's missing configuration file (409) is never answered.
- Every route here accepts a user's token only (`docform_sandbox.routes.tokens`).
- A synced space or site says so in its ``gitSync`` (its installation's id, provider and
  status), in lists too, so a client finds every installation without reading each space.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from starlette.responses import Response

from docform_sandbox.access import require_in_org, require_org
from docform_sandbox.http import (
    API_BASE,
    ApiError,
    Body,
    Ctx,
    bad_request,
    endpoint,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.shared import removed

SERVICE_PRIORITY = "gitbook"
KIND = "git-installation"
ONE = "/git/installations/{gitInstallationId}"


class GitSyncTarget(Body):
    type: Literal["space", "site"]
    spaceId: str | None = None
    siteId: str | None = None


class GitSyncCreate(Body):
    provider: Literal["github", "gitlab"]
    target: GitSyncTarget


class GitProviderConfiguration(Body):
    repositoryId: int | None = None
    projectId: int | None = None
    branch: str | None = Field(None, pattern=r"^refs/heads/.+$")
    accessToken: str | None = None
    customInstanceURL: str | None = None


class GitSyncSetup(Body):
    provider: Literal["github", "gitlab"]
    providerConfiguration: GitProviderConfiguration
    projectDirectory: str | None = None
    commitMessageTemplate: str | None = None
    previewExternalBranches: bool | None = None
    agentInstructions: list[Literal["agents", "claude"]] | None = None
    priority: Literal["git", "gitbook"] | None = None


SETUP_FIELDS = (
    "projectDirectory",
    "commitMessageTemplate",
    "previewExternalBranches",
    "agentInstructions",
    "priority",
)


def render(doc: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "git-sync-installation",
        "id": doc["id"],
        "target": doc["target"],
        "status": doc["status"],
        "provider": doc["provider"],
        # The access token is kept to reach GitLab and never answered.
        "providerConfiguration": {
            k: v for k, v in doc["providerConfiguration"].items() if k != "accessToken"
        },
        "createdAt": doc["createdAt"],
        "createdBy": doc["createdBy"],
        "updatedAt": doc["updatedAt"],
        "urls": {"location": f"{API_BASE}/git/installations/{doc['id']}"},
    }
    body.update((k, doc[k]) for k in SETUP_FIELDS if doc.get(k) is not None)
    return body


def render_state(doc: dict[str, Any]) -> dict[str, Any]:
    """What a synced space's Git info (and a site's ``gitSync``) says of its installation."""
    state: dict[str, Any] = {
        "installationId": doc["id"],
        "installationProvider": doc["provider"],
        "installationStatus": doc["status"],
        "updatedAt": doc["updatedAt"],
    }
    if doc.get("operation"):
        state["operation"] = doc["operation"]
    return state


def show_state(ctx: Ctx, doc: dict[str, Any], *, gone: bool = False) -> None:
    """Keep the synced space's (site's) ``gitSync`` in step with its installation."""
    target = doc["target"]["type"]
    synced = ctx.store.get(target, doc["targetId"])
    if synced is None:
        return
    if gone:
        synced.pop("gitSync", None)
    else:
        synced["gitSync"] = render_state(doc)
    ctx.store.update(target, synced)


def installation_of(ctx: Ctx, target: str, target_id: str) -> dict[str, Any] | None:
    """The installation syncing a space or a site, if any."""
    found = [
        d
        for d in ctx.store.all(KIND, [("json_extract(data, '$.targetId') = ?", [target_id])])
        if d["target"]["type"] == target
    ]
    return found[0] if found else None


def target_org(ctx: Ctx, target: GitSyncTarget) -> tuple[str, str]:
    """The target's id and organization, after checking the caller may change it."""
    target_id = target.spaceId if target.type == "space" else target.siteId
    if target_id is None:
        raise bad_request(f"target.{target.type}Id: required for a {target.type} target")
    located = ctx.store.locate(target.type, target_id)
    if located is None or located[0] is None:
        raise not_found(target.type, target_id)
    require_org(ctx, located[0], write=True)
    return target_id, located[0]


def require_installation(ctx: Ctx, *, write: bool = False) -> dict[str, Any]:
    return require_in_org(ctx, KIND, ctx.params["gitInstallationId"], write=write)


@endpoint("POST", "/git/installations", 201)
def create_installation(ctx: Ctx) -> dict[str, Any]:
    """Start syncing a space or a site; set it up with a PATCH."""
    body = ctx.body_as(GitSyncCreate)
    target_id, org_id = target_org(ctx, body.target)
    if installation_of(ctx, body.target.type, target_id) is not None:
        raise ApiError(409, f"{body.target.type} '{target_id}' is already synced")
    now = timestamp(ctx.now())
    doc = {
        "id": new_id(),
        "organization": org_id,
        "target": body.target.model_dump(exclude_none=True),
        "targetId": target_id,
        "status": "pending" if body.provider == "github" else "unauthenticated",
        "provider": body.provider,
        "providerConfiguration": {},
        "createdAt": now,
        "createdBy": ctx.caller.user_id or "sandbox-admin",
        "updatedAt": now,
    }
    ctx.store.insert(KIND, doc, org=org_id)
    show_state(ctx, doc)
    return render(doc)


@endpoint("GET", ONE)
def get_installation(ctx: Ctx) -> dict[str, Any]:
    return render(require_installation(ctx))


@endpoint("PATCH", ONE)
def patch_installation(ctx: Ctx) -> dict[str, Any]:
    """Save the setup, then queue a sync (import with priority git, else export)."""
    doc = require_installation(ctx, write=True)
    body = ctx.body_as(GitSyncSetup)
    config = body.providerConfiguration.model_dump(exclude_none=True)
    if doc["status"] == "unauthenticated" and "accessToken" not in config:
        raise ApiError(
            401,
            f"Git Sync '{doc['id']}' is not authenticated with {doc['provider']}: "
            "authorize it in the app (or send a GitLab accessToken)",
        )
    doc["provider"] = body.provider
    doc["providerConfiguration"] = config
    for name in body.model_fields_set & set(SETUP_FIELDS):
        doc[name] = getattr(body, name)
    repository = config.get("repositoryId", config.get("projectId"))
    if "accessToken" in config or (repository is not None and "branch" in config):
        doc["status"] = "active"
    now = timestamp(ctx.now())
    direction = "import" if doc.get("priority") == "git" else "export"
    doc["operation"] = {
        "state": "success",
        "direction": direction,
        "startedAt": now,
        "endedAt": now,
    }
    doc["updatedAt"] = now
    ctx.store.update(KIND, doc)
    show_state(ctx, doc)
    return render(doc)


@endpoint("DELETE", ONE, 205)
def delete_installation(ctx: Ctx) -> Response:
    """Stop syncing (205)."""
    doc = require_installation(ctx, write=True)
    ctx.store.delete(KIND, doc["id"])
    show_state(ctx, doc, gone=True)
    return removed()


@endpoint(
    "GET",
    "/orgs/{organizationId}/sites/{siteId}/spaces/git/installations",
)
def list_site_installations(ctx: Ctx) -> dict[str, Any]:
    """The site's installation and those of the spaces it manages (not paginated)."""
    org_id, site_id = ctx.params["organizationId"], ctx.params["siteId"]
    require_org(ctx, org_id)
    site = ctx.store.get("site", site_id)
    if site is None or site.get("organization") != org_id:
        raise not_found("site", site_id)
    found = [
        d
        for d in ctx.store.all(KIND, [("org = ?", [org_id])])
        if d["target"].get("siteId") == site_id
    ]
    return {"items": [render(d) for d in found]}


@endpoint("GET", "/spaces/{spaceId}/git/info")
def get_space_git_info(ctx: Ctx) -> dict[str, Any]:
    """The space's Git Sync state; 404 when it is not synced."""
    space = require_in_org(ctx, "space", ctx.params["spaceId"])
    doc = installation_of(ctx, "space", space["id"])
    if doc is None:
        raise not_found("Git Sync of space", space["id"])
    return render_state(doc)
