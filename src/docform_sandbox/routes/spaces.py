"""Spaces: create, list, get, patch, delete, restore and move, plus placement inside collections.

Choices where the API documents are silent:

- Reading needs membership of the space's organization; every change needs its admin role
  (the documents say admins "create and delete spaces"), as ``access.py`` rules everywhere.
- A new space gets visibility ``in-collection`` when created in a collection, else ``private``;
  ``editMode`` ``live``; ``mergeRules`` ``{type: inherit}``; ``defaultLevel`` ``inherit``.
  A move out of a collection turns ``in-collection`` into ``private`` (that value is only for
  spaces in a collection); a move into one keeps the visibility the space had.
- ``visibility`` in a PATCH body answers 400: it is read-only through this API. On create the
  field is not part of the body and is ignored like any unknown field.
- ``emoji`` and ``icon`` are exclusive: setting one clears the other, ``null`` for either clears
  both (``emoji`` becomes ``""``), giving both non-null answers 400. ``icon`` is a URL (the
  definition's), ``http`` or ``https`` only (else 400), answered as ``urls.icon`` as sent.
- ``updatedAt`` moves only when a value really changes (PATCH, move, delete, restore).
- A deleted space is left out of lists and answers 404 to changes, but ``GET`` still shows it
  with ``deletedAt`` ("deletedAt is populated on the space") and restore brings it back; restore
  answers 400 for a space that is not deleted. Once 7 days have passed since ``deletedAt``
  (sandbox clock, inclusive) the space counts as permanently removed: 404 everywhere, restore
  included. A restored space whose collection was deleted meanwhile comes back at the top
  level.
- Deleting a space removes the site spaces that show it.
- Lists: ``/orgs/{id}/spaces`` is in creation order honouring ``order`` (default newest first);
  ``/collections/{id}/spaces`` is in position order (the order ``move`` arranges) and ignores
  ``order``.
- ``move``: without ``parent`` the item stays in its collection; ``null`` moves it to the top
  level. Without ``position`` a moved item keeps its place in creation order among its new
  siblings. ``position`` may point at a space or (beyond the documents) a collection among the
  target's direct children. A move that changes nothing answers 409.
- ``comments`` and the change-request counters are 0: the sandbox emulates neither.
- ``urls.published`` is present when a site space shows the space, ``urls.public`` for public
  and unlisted spaces, ``urls.icon`` when an icon is set; ``location`` and ``app`` always.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field
from starlette.responses import JSONResponse

from docform_sandbox.access import require_in_org, require_org
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
from docform_sandbox.routes.placement import NOT_DELETED, MoveBody, children_where, move_item
from docform_sandbox.routes.shared import check_level, check_merge_rules
from docform_sandbox.routes.space_rows import (
    active_space,
    render_space,
    soft_delete_space,
    space_row,
)

SPACE_PERMISSIONS = (
    "view", "access", "admin", "viewInviteLinks", "edit", "triggerGitSync", "comment", "merge",
    "review", "installIntegration",
)  # fmt: skip

SPACE_VISIBILITIES = [
    "public", "unlisted", "share-link", "visitor-auth", "in-collection", "private",
]  # fmt: skip


LANGUAGES = (
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko", "ar",
    "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id",
    "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv", "et", "sl",
)  # fmt: skip
EDIT_MODES = ("live", "locked")


def check_parent_collection(ctx: Ctx, org_id: str, collection_id: str) -> None:
    """A ``parent`` must be a collection of the same organization (400 naming ``parent``)."""
    located = ctx.store.locate("collection", collection_id)
    if located is None or located[0] != org_id:
        raise bad_request(f"parent: no collection '{collection_id}' in this organization")


def check_choice(value: Any, field_name: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        names = ", ".join(repr(a) for a in allowed)
        raise bad_request(f"{field_name}: must be one of {names}, not {value!r}")


def check_language(value: Any) -> None:
    if value is not None and value not in LANGUAGES:
        raise bad_request(f"language: must be one of the supported language codes, not {value!r}")


# -- endpoints ---------------------------------------------------------------------------------


@endpoint("GET", "/orgs/{organizationId}/spaces")
def list_org_spaces(ctx: Ctx) -> dict[str, Any]:
    """Every space of the organization that is not deleted."""
    org = require_org(ctx, ctx.params["organizationId"])
    where = [("org = ?", [org["id"]]), NOT_DELETED]
    return list_page(ctx, "space", where, lambda d: render_space(ctx, d), sort="seq")


@endpoint("GET", "/collections/{collectionId}/spaces")
def list_collection_spaces(ctx: Ctx) -> dict[str, Any]:
    """The spaces directly in a collection that are not deleted, in position order."""
    collection = require_in_org(ctx, "collection", ctx.params["collectionId"])
    where = [*children_where(collection["organization"], collection["id"]), NOT_DELETED]
    return list_page(ctx, "space", where, lambda d: render_space(ctx, d), default_order="asc")


class SpaceCreate(Body):
    title: str | None = Field(None, max_length=50)
    emoji: str | None = Field(None, max_length=50)
    parent: str | None = None
    language: Any = None
    editMode: Any = "live"


@endpoint("POST", "/orgs/{organizationId}/spaces", status=201)
def create_space(ctx: Ctx) -> JSONResponse:
    """A new space, at the top level or in a collection; the answer carries ``Location``."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    spec = ctx.body_as(SpaceCreate)
    if spec.parent is not None:
        check_parent_collection(ctx, org["id"], spec.parent)
    check_language(spec.language)
    check_choice(spec.editMode, "editMode", EDIT_MODES)
    now = timestamp(ctx.now())
    doc: dict[str, Any] = {
        "id": new_id(),
        "title": spec.title if spec.title is not None else "Untitled",
        "emoji": spec.emoji or "",
        "organization": org["id"],
        "visibility": "in-collection" if spec.parent else "private",
        "revision": new_id(),
        "createdAt": now,
        "updatedAt": now,
        "editMode": spec.editMode,
        "mergeRules": {"type": "inherit"},
        "defaultLevel": "inherit",
    }
    if spec.parent is not None:
        doc["parent"] = spec.parent
    if spec.language is not None:
        doc["language"] = spec.language
    ctx.store.insert("space", doc, org=org["id"], parent=spec.parent)
    location = f"{API_BASE}/spaces/{doc['id']}"
    return JSONResponse(render_space(ctx, doc), status_code=201, headers={"Location": location})


@endpoint("GET", "/spaces/{spaceId}")
def get_space(ctx: Ctx) -> dict[str, Any]:
    """A deleted space still answers, with ``deletedAt``, while it can be restored."""
    return render_space(ctx, space_row(ctx, ctx.params["spaceId"]))


#: A space's icon: the definition's URL (format uri), taken as an http or https address.
ICON_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$")


class SpacePatch(Body):
    title: str | None = Field(None, max_length=50)
    emoji: str | None = Field(None, max_length=50)
    icon: str | None = Field(None, max_length=2048)
    editMode: Any = None
    defaultLevel: Any = None
    language: Any = None
    mergeRules: Any = None


def _patch_values(patch: SpacePatch) -> dict[str, Any]:
    """The fields a PATCH sets, checked; ``None`` values mean "remove" where allowed."""
    given = patch.model_fields_set
    if "title" in given and patch.title is None:
        raise bad_request("title: must be a string of at most 50 characters")
    if "editMode" in given:
        check_choice(patch.editMode, "editMode", EDIT_MODES)
    if "defaultLevel" in given:
        check_level(patch.defaultLevel, "defaultLevel")
    if "language" in given:
        check_language(patch.language)
    if "mergeRules" in given:
        check_merge_rules(patch.mergeRules, "mergeRules", allow_inherit=True)
    if patch.emoji is not None and patch.icon is not None:
        raise bad_request("icon: give either emoji or icon, not both")
    if patch.icon is not None and not ICON_URL.match(patch.icon):
        raise bad_request(
            f"icon: must be the http:// or https:// URL of an image, not {patch.icon!r}"
        )
    return {name: getattr(patch, name) for name in given}


def _apply_icon(doc: dict[str, Any], values: dict[str, Any]) -> None:
    emoji, icon = values.pop("emoji", None), values.pop("icon", None)
    doc["emoji"] = emoji or ""
    doc.pop("icon", None)
    if icon:
        doc["icon"] = icon


@endpoint("PATCH", "/spaces/{spaceId}")
def patch_space(ctx: Ctx) -> dict[str, Any]:
    """Change a space's title, emoji or icon, edit mode, level, language or merge rules."""
    doc = active_space(ctx, ctx.params["spaceId"], write=True)
    if isinstance(ctx.body, dict) and "visibility" in ctx.body:
        raise bad_request("visibility: cannot be changed through the API")
    values = _patch_values(ctx.body_as(SpacePatch))
    before = dict(doc)
    if "emoji" in values or "icon" in values:
        _apply_icon(doc, values)
    for name, value in values.items():
        if value is None and name == "language":
            doc.pop(name, None)
        else:
            doc[name] = value
    if doc != before:
        doc["updatedAt"] = timestamp(ctx.now())
        ctx.store.update("space", doc)
    return render_space(ctx, doc)


@endpoint("DELETE", "/spaces/{spaceId}", status=204)
def delete_space(ctx: Ctx) -> None:
    """Soft delete: restorable for 7 days. Absent or already deleted spaces answer 204."""
    space_id = ctx.params["spaceId"]
    if ctx.store.locate("space", space_id) is None:
        return None
    doc = require_in_org(ctx, "space", space_id, write=True)
    if not doc.get("deletedAt"):
        soft_delete_space(ctx, doc)
    return None


@endpoint("POST", "/spaces/{spaceId}/restore")
def restore_space(ctx: Ctx) -> dict[str, Any]:
    """Bring back a space deleted within the last 7 days."""
    doc = space_row(ctx, ctx.params["spaceId"], write=True)
    if not doc.get("deletedAt"):
        raise bad_request(f"space '{doc['id']}' is not deleted")
    del doc["deletedAt"]
    parent = doc.get("parent")
    if parent is not None and ctx.store.get("collection", parent) is None:
        # Its collection was deleted meanwhile: the top level is the only place left.
        ctx.store.set_parent("space", doc["id"], None)
        _leave_collection(doc)
    doc["updatedAt"] = timestamp(ctx.now())
    ctx.store.update("space", doc)
    return render_space(ctx, doc)


def _leave_collection(doc: dict[str, Any]) -> None:
    doc.pop("parent", None)
    if doc.get("visibility") == "in-collection":
        doc["visibility"] = "private"


@endpoint("POST", "/spaces/{spaceId}/move")
def move_space(ctx: Ctx) -> dict[str, Any]:
    """Move a space to another collection or the top level, and/or next to a sibling."""
    doc = active_space(ctx, ctx.params["spaceId"], write=True)
    move = ctx.body_as(MoveBody)
    if move.parent is not None and move.parent != doc.get("parent"):
        check_parent_collection(ctx, doc["organization"], move.parent)
    if move_item(ctx, "space", doc, move) and doc.get("parent") is None:
        _leave_collection(doc)
    doc["updatedAt"] = timestamp(ctx.now())
    ctx.store.update("space", doc)
    return render_space(ctx, doc)
