"""An organization's custom fonts: ``GET|PUT /orgs/{organizationId}/fonts`` and
``GET|POST|DELETE .../fonts/{fontId}``.

A font is a family and its faces, one file per weight; a request names each file by the
storage key an upload gave it, an answer by the URL the file is served at.

Choices where the API documents are silent, as the UI behaves:
- Reading needs membership of the organization, writing its admin role; ``permissions.edit``
  says whether the caller may write.
- Any storage key is taken as an uploaded file (the sandbox stores no files). A face's file is
  served at ``FILES_BASE`` followed by its storage key, its ``format`` the key's extension
  (``woff2`` or ``woff``; none for another).
- A font needs a regular face (weight 400): a create or an update that leaves none answers
  412, the definition's status for invalid font data, and so do one weight given twice and
  an update that sets nothing. An update's ``fontFaces`` set the weights they name (a null
  storage key removes that weight) and keep the others; ``fontFamily`` renames.
- Two fonts may share a family. The list holds custom fonts only (``custom: true``).
- DELETE answers 205 when it deleted the font, 204 when there was none.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from pydantic import Field, StringConstraints
from starlette.responses import Response

from docform_sandbox.access import is_admin, require_org
from docform_sandbox.http import (
    ApiError,
    Body,
    Ctx,
    endpoint,
    list_page,
    new_id,
    not_found,
)
from docform_sandbox.routes.shared import removed

FONT = "font"
PATH = "/orgs/{organizationId}/fonts"
ONE = PATH + "/{fontId}"
#: Where the sandbox serves a face's file: this, then its storage key.
FILES_BASE = "https://files.sandbox.test/"
REGULAR = 400

Family = Annotated[str, StringConstraints(min_length=1, max_length=50)]
StorageKey = Annotated[str, StringConstraints(min_length=1, max_length=512)]
Weight = Annotated[int, Field(ge=1, le=1000)]


class FaceCreate(Body):
    weight: Weight
    storageKey: StorageKey


class FontCreate(Body):
    fontFamily: Family
    fontFaces: list[FaceCreate] = Field(min_length=1)


class FaceUpdate(Body):
    weight: Weight
    storageKey: StorageKey | None


class FontUpdate(Body):
    fontFamily: Family | None = None
    fontFaces: list[FaceUpdate] | None = None


def _source(key: str) -> dict[str, Any]:
    source: dict[str, Any] = {"url": FILES_BASE + quote(key, safe="/")}
    extension = key.rsplit(".", 1)[-1].lower() if "." in key else ""
    if extension in ("woff2", "woff"):
        source["format"] = extension
    return source


def render(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    faces = sorted(doc["faces"].items(), key=lambda item: int(item[0]))
    return {
        "id": doc["id"],
        "custom": True,
        "fontFamily": doc["fontFamily"],
        "fontFaces": [{"weight": int(w), "sources": [_source(key)]} for w, key in faces],
        "permissions": {"edit": is_admin(ctx, doc["organization"])},
    }


def _faces(given: list[FaceCreate] | list[FaceUpdate]) -> dict[str, str | None]:
    faces: dict[str, str | None] = {}
    for face in given:
        if str(face.weight) in faces:
            raise ApiError(412, f"fontFaces: weight {face.weight} is given twice")
        faces[str(face.weight)] = face.storageKey
    return faces


def _require_regular(faces: dict[str, Any]) -> None:
    if str(REGULAR) not in faces:
        raise ApiError(412, f"fontFaces: a font needs a regular face (weight {REGULAR})")


def _font_of(ctx: Ctx, org_id: str) -> dict[str, Any]:
    font_id = ctx.params["fontId"]
    located = ctx.store.locate(FONT, font_id)
    doc = ctx.store.get(FONT, font_id) if located and located[0] == org_id else None
    if doc is None:
        raise not_found("font", font_id)
    return doc


@endpoint("GET", PATH)
def list_fonts(ctx: Ctx) -> dict[str, Any]:
    """The organization's custom fonts."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    return list_page(ctx, FONT, [("org = ?", [org_id])], lambda d: render(ctx, d))


@endpoint("PUT", PATH, 201)
def create_font(ctx: Ctx) -> dict[str, Any]:
    """Create a custom font from uploaded files."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    body = ctx.body_as(FontCreate)
    faces = _faces(body.fontFaces)
    _require_regular(faces)
    doc = {"id": new_id(), "organization": org_id, "fontFamily": body.fontFamily, "faces": faces}
    ctx.store.insert(FONT, doc, org=org_id)
    return render(ctx, doc)


@endpoint("GET", ONE)
def get_font(ctx: Ctx) -> dict[str, Any]:
    """One custom font."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    return render(ctx, _font_of(ctx, org_id))


@endpoint("POST", ONE, 201)
def update_font(ctx: Ctx) -> dict[str, Any]:
    """Rename a font, or set or remove some of its faces."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    doc = _font_of(ctx, org_id)
    body = ctx.body_as(FontUpdate)
    if body.fontFamily is None and body.fontFaces is None:
        raise ApiError(412, "the body must set fontFamily or fontFaces")
    faces = dict(doc["faces"])
    for weight, key in _faces(body.fontFaces or []).items():
        if key is None:
            faces.pop(weight, None)
        else:
            faces[weight] = key
    _require_regular(faces)
    doc["faces"] = faces
    if body.fontFamily is not None:
        doc["fontFamily"] = body.fontFamily
    ctx.store.update(FONT, doc)
    return render(ctx, doc)


@endpoint("DELETE", ONE, 205)
def delete_font(ctx: Ctx) -> Response | None:
    """205 when it deleted the font, 204 when there was none."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    located = ctx.store.locate(FONT, ctx.params["fontId"])
    if located is None or located[0] != org_id:
        return None
    ctx.store.delete(FONT, ctx.params["fontId"])
    return removed()
