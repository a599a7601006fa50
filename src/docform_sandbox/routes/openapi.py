"""OpenAPI specs of an organization, addressed by slug, and their versions.

Prefix ``/orgs/{organizationId}/openapi``; ``{specSlug}`` is the spec's slug.

Choices where the API documents are silent:
- The sandbox cannot fetch a source URL. A spec is processed at once: ``processingState`` is
  ``complete`` and ``lastProcessedAt`` is the time of the create (or of the PUT that changed
  the URL); no ``lastProcessErrorCode`` is ever set. Version content answers
  ``{filesystem: {}, urls: {source, public}}``: the URL of that version (public: the same for
  a public spec, null for a private one) and an empty file system.
- A source URL is stored and returned exactly as given, basic-auth credentials included (the
  service does the same); only ``http`` and ``https`` URLs with a host are accepted.
- Every create adds a version, and so does a PUT whose URL differs from the current one. A PUT
  with the current URL changes nothing (the sandbox would fetch the same, unchangeable content).
- ``visibility`` is ``private`` until a PATCH makes it ``public``; it is always in the answer.
- Reading needs membership of the organization; creating, changing and deleting need its admin
  role (the organization's ``createOpenAPISpec`` permission is the admin's).
- Lists are newest first by default, like every list of the API.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError, field_validator

from docform_sandbox.access import is_admin, require_org
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    PUBLISHED_BASE,
    ApiError,
    Body,
    Ctx,
    bad_request,
    describe_validation_error,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)

#: The optional fields of the definition's objects that this family's answers always hold.
FILLS: dict[str, tuple[str, ...]] = {
    "OpenAPISpec": ("urls.published",),
}

SLUG_PATTERN = r"^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$"
PREFIX = "/orgs/{organizationId}/openapi"
SPEC_FIELDS = (
    "id", "createdAt", "updatedAt", "slug", "sourceURL", "processingState", "visibility",
    "lastVersion", "lastProcessedAt",
)  # fmt: skip


class Source(Body):
    url: str = Field(max_length=2048)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http or https URL")
        return value


class SpecCreate(Body):
    slug: str = Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)
    source: Source


class SpecPut(Body):
    source: Source


class SpecPatch(Body):
    visibility: Literal["private", "public"]


class _SlugCheck(BaseModel):
    slug: str = Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)


# -- rendering ---------------------------------------------------------------------------------


def spec_location(org_id: str, slug: str) -> str:
    return f"{API_BASE}/orgs/{org_id}/openapi/{slug}"


def render_spec(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    org_id, slug = doc["organization"], doc["slug"]
    body: dict[str, Any] = {"object": "openapi-spec"}
    body.update({k: doc[k] for k in SPEC_FIELDS if doc.get(k) is not None})
    body["lastProcessedErrorCount"] = 0  # the sandbox's processing never fails
    body["permissions"] = {"view": True, "edit": is_admin(ctx, org_id)}
    body["urls"] = {
        "location": spec_location(org_id, slug),
        "app": f"{APP_BASE}/o/{org_id}/openapi/{slug}",
        "published": f"{PUBLISHED_BASE}/openapi/{org_id}/{slug}",
    }
    return body


def render_version(spec: dict[str, Any], version: dict[str, Any]) -> dict[str, Any]:
    location = spec_location(spec["organization"], spec["slug"])
    return {
        "object": "openapi-spec-version",
        "id": version["id"],
        "createdAt": version["createdAt"],
        "url": version["url"],
        "urls": {"location": f"{location}/versions/{version['id']}"},
    }


def render_content(spec: dict[str, Any], version: dict[str, Any]) -> dict[str, Any]:
    """The definition's OpenAPISpecContent: a public spec's public URL is its source (the
    sandbox's specs are all fetched from a URL), a private one's null."""
    public = version["url"] if spec.get("visibility") == "public" else None
    return {"filesystem": {}, "urls": {"source": version["url"], "public": public}}


# -- lookups and writes ------------------------------------------------------------------------


def find_spec(ctx: Ctx, org_id: str, slug: str) -> dict[str, Any] | None:
    found = ctx.store.all(
        "openapi-spec", [("org = ?", [org_id]), ("json_extract(data, '$.slug') = ?", [slug])]
    )
    return found[0] if found else None


def require_spec(ctx: Ctx, *, write: bool = False) -> dict[str, Any]:
    org_id, slug = ctx.params["organizationId"], ctx.params["specSlug"]
    require_org(ctx, org_id, write=write)
    spec = find_spec(ctx, org_id, slug)
    if spec is None:
        raise not_found("openapi spec", slug)
    return spec


def add_version(ctx: Ctx, spec: dict[str, Any], url: str) -> None:
    """Record ``url`` as the spec's new version and mark the spec processed now."""
    now = timestamp(ctx.now())
    version = {"id": new_id(), "spec": spec["id"], "createdAt": now, "url": url}
    ctx.store.insert("openapi-spec-version", version, org=spec["organization"], parent=spec["id"])
    spec.update(sourceURL=url, lastVersion=version["id"], updatedAt=now, lastProcessedAt=now)


def create_spec(ctx: Ctx, org_id: str, slug: str, url: str) -> dict[str, Any]:
    now = timestamp(ctx.now())
    spec = {
        "id": new_id(),
        "organization": org_id,
        "slug": slug,
        "createdAt": now,
        "processingState": "complete",
        "visibility": "private",
    }
    ctx.store.insert("openapi-spec", spec, org=org_id)
    add_version(ctx, spec, url)
    ctx.store.update("openapi-spec", spec)
    return spec


# -- specs -------------------------------------------------------------------------------------


@endpoint("GET", PREFIX)
def list_specs(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    return list_page(ctx, "openapi-spec", [("org = ?", [org_id])], lambda d: render_spec(ctx, d))


@endpoint("POST", PREFIX, 201)
def post_spec(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    body = ctx.body_as(SpecCreate)
    if find_spec(ctx, org_id, body.slug) is not None:
        raise ApiError(409, f"slug: an OpenAPI spec with slug '{body.slug}' already exists")
    return render_spec(ctx, create_spec(ctx, org_id, body.slug, body.source.url))


@endpoint("GET", PREFIX + "/{specSlug}")
def get_spec(ctx: Ctx) -> dict[str, Any]:
    return render_spec(ctx, require_spec(ctx))


@endpoint("PUT", PREFIX + "/{specSlug}")
def put_spec(ctx: Ctx) -> dict[str, Any]:
    """Create the spec with this slug, or point it at a new source URL."""
    org_id, slug = ctx.params["organizationId"], ctx.params["specSlug"]
    require_org(ctx, org_id, write=True)
    body = ctx.body_as(SpecPut)
    spec = find_spec(ctx, org_id, slug)
    if spec is None:
        try:
            _SlugCheck(slug=slug)
        except ValidationError as exc:
            raise bad_request(describe_validation_error(exc)) from None
        return render_spec(ctx, create_spec(ctx, org_id, slug, body.source.url))
    if spec.get("sourceURL") != body.source.url:
        add_version(ctx, spec, body.source.url)
        ctx.store.update("openapi-spec", spec)
    return render_spec(ctx, spec)


@endpoint("PATCH", PREFIX + "/{specSlug}")
def patch_spec(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx, write=True)
    body = ctx.body_as(SpecPatch)
    if spec.get("visibility") != body.visibility:
        spec["visibility"] = body.visibility
        spec["updatedAt"] = timestamp(ctx.now())
        ctx.store.update("openapi-spec", spec)
    return render_spec(ctx, spec)


@endpoint("DELETE", PREFIX + "/{specSlug}", 204)
def delete_spec(ctx: Ctx) -> None:
    """Delete the spec and its versions; 204 also when there is no such spec."""
    org_id, slug = ctx.params["organizationId"], ctx.params["specSlug"]
    require_org(ctx, org_id, write=True)
    spec = find_spec(ctx, org_id, slug)
    if spec is not None:
        ctx.store.delete_where("openapi-spec-version", [("parent = ?", [spec["id"]])])
        ctx.store.delete("openapi-spec", spec["id"])


# -- versions ----------------------------------------------------------------------------------


def latest_version(ctx: Ctx, spec: dict[str, Any]) -> dict[str, Any]:
    version = ctx.store.get("openapi-spec-version", spec.get("lastVersion") or "")
    if version is None:
        raise not_found("openapi spec version", "latest")
    return version


def require_version(ctx: Ctx, spec: dict[str, Any]) -> dict[str, Any]:
    version_id = ctx.params["versionId"]
    located = ctx.store.locate("openapi-spec-version", version_id)
    if located is None or located[1] != spec["id"]:
        raise not_found("openapi spec version", version_id)
    version = ctx.store.get("openapi-spec-version", version_id)
    assert version is not None
    return version


@endpoint("GET", PREFIX + "/{specSlug}/versions")
def list_versions(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx)
    where = [("parent = ?", [spec["id"]])]
    return list_page(ctx, "openapi-spec-version", where, lambda v: render_version(spec, v))


# The `latest` routes come before `{versionId}` so that the literal path wins.
@endpoint("GET", PREFIX + "/{specSlug}/versions/latest")
def get_latest_version(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx)
    return render_version(spec, latest_version(ctx, spec))


@endpoint("GET", PREFIX + "/{specSlug}/versions/latest/content")
def get_latest_content(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx)
    return render_content(spec, latest_version(ctx, spec))


@endpoint("GET", PREFIX + "/{specSlug}/versions/{versionId}")
def get_version(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx)
    return render_version(spec, require_version(ctx, spec))


@endpoint("GET", PREFIX + "/{specSlug}/versions/{versionId}/content")
def get_version_content(ctx: Ctx) -> dict[str, Any]:
    spec = require_spec(ctx)
    return render_content(spec, require_version(ctx, spec))
