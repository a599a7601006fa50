"""Collections: list, create, get, patch, delete and move (spaces inside: see spaces.py).

Choices where the API documents are silent:

- Reading needs membership of the organization; every change needs its admin role.
- Create takes only what the documents give, ``title`` (default "Untitled") and ``parent``;
  ``description`` and ``defaultLevel`` are set with a PATCH afterwards, like on the service,
  whose create operation documents no other field (unknown fields are ignored, as everywhere).
  A new collection's ``defaultLevel`` is ``inherit``; PATCH accepts a role, null or ``inherit``.
- PATCH ``description: null`` removes the description; ``title: null`` answers 400.
- DELETE removes the collection and, recursively, every collection nested in it; the spaces
  they held are soft-deleted (restorable for 7 days like any deleted space, and restored at
  the top level since their collection is gone).
- The organization's list is in creation order honouring ``order`` (default newest first);
  ``nested=false`` lists only top-level collections.
- ``move`` follows the rules of space moves (spaces.py); moving a collection into itself or one
  of its descendants answers 400, and a move that changes nothing answers 409.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from docform_sandbox.access import is_admin, require_in_org, require_org
from docform_sandbox.grants import forget_target
from docform_sandbox.http import (
    API_BASE,
    APP_BASE,
    Body,
    Ctx,
    Query,
    bad_request,
    endpoint,
    list_page,
    new_id,
)
from docform_sandbox.routes.placement import NOT_DELETED, MoveBody, move_item
from docform_sandbox.routes.shared import check_level
from docform_sandbox.routes.space_rows import soft_delete_space
from docform_sandbox.routes.spaces import check_parent_collection

COLLECTION_FIELDS = ("id", "title", "description", "organization", "parent", "defaultLevel")


def render_collection(ctx: Ctx, doc: dict[str, Any]) -> dict[str, Any]:
    """The API's Collection: stored fields plus ``urls`` and the caller's ``permissions``."""
    admin = is_admin(ctx, doc["organization"])
    body = {"object": "collection", **{k: doc[k] for k in COLLECTION_FIELDS if k in doc}}
    body["urls"] = {
        "location": f"{API_BASE}/collections/{doc['id']}",
        "app": f"{APP_BASE}/o/{doc['organization']}/c/{doc['id']}",
    }
    body["permissions"] = {"view": True, "admin": admin, "viewInviteLinks": admin, "create": admin}
    return body


class CollectionListQuery(Query):
    nested: bool = True


@endpoint("GET", "/orgs/{organizationId}/collections")
def list_collections(ctx: Ctx) -> dict[str, Any]:
    """The organization's collections; with ``nested=false`` only the top-level ones."""
    org = require_org(ctx, ctx.params["organizationId"])
    where: list[tuple[str, list[Any]]] = [("org = ?", [org["id"]])]
    if not ctx.query_as(CollectionListQuery).nested:
        where.append(("parent IS NULL", []))
    return list_page(ctx, "collection", where, lambda d: render_collection(ctx, d), sort="seq")


class CollectionCreate(Body):
    title: str | None = Field(None, max_length=50)
    parent: str | None = None


@endpoint("POST", "/orgs/{organizationId}/collections", status=201)
def create_collection(ctx: Ctx) -> dict[str, Any]:
    """A new collection, at the top level or inside ``parent``."""
    org = require_org(ctx, ctx.params["organizationId"], write=True)
    spec = ctx.body_as(CollectionCreate)
    if spec.parent is not None:
        check_parent_collection(ctx, org["id"], spec.parent)
    doc: dict[str, Any] = {
        "id": new_id(),
        "title": spec.title if spec.title is not None else "Untitled",
        "organization": org["id"],
        "defaultLevel": "inherit",
    }
    if spec.parent is not None:
        doc["parent"] = spec.parent
    ctx.store.insert("collection", doc, org=org["id"], parent=spec.parent)
    return render_collection(ctx, doc)


@endpoint("GET", "/collections/{collectionId}")
def get_collection(ctx: Ctx) -> dict[str, Any]:
    return render_collection(ctx, require_in_org(ctx, "collection", ctx.params["collectionId"]))


class CollectionPatch(Body):
    title: str | None = Field(None, max_length=50)
    description: str | None = Field(None, max_length=100)
    defaultLevel: Any = None


@endpoint("PATCH", "/collections/{collectionId}")
def patch_collection(ctx: Ctx) -> dict[str, Any]:
    """Change a collection's title, description or default level."""
    doc = require_in_org(ctx, "collection", ctx.params["collectionId"], write=True)
    patch = ctx.body_as(CollectionPatch)
    given = patch.model_fields_set
    if "title" in given and patch.title is None:
        raise bad_request("title: must be a string of at most 50 characters")
    if "defaultLevel" in given:
        check_level(patch.defaultLevel, "defaultLevel")
    for name in given:
        value = getattr(patch, name)
        if name == "description" and value is None:
            doc.pop(name, None)
        else:
            doc[name] = value
    ctx.store.update("collection", doc)
    return render_collection(ctx, doc)


def _subtree(ctx: Ctx, collection: dict[str, Any]) -> list[str]:
    """The ids of a collection and of every collection nested in it, at any depth."""
    ids, queue = [], [collection["id"]]
    while queue:
        current = queue.pop()
        ids.append(current)
        children = ctx.store.all("collection", [("parent = ?", [current])])
        queue.extend(child["id"] for child in children)
    return ids


@endpoint("DELETE", "/collections/{collectionId}", status=204)
def delete_collection(ctx: Ctx) -> None:
    """Delete a collection with its nested collections; their spaces are soft-deleted."""
    collection_id = ctx.params["collectionId"]
    if ctx.store.locate("collection", collection_id) is None:
        return None
    collection = require_in_org(ctx, "collection", collection_id, write=True)
    for member_id in _subtree(ctx, collection):
        for space in ctx.store.all("space", [("parent = ?", [member_id]), NOT_DELETED]):
            soft_delete_space(ctx, space)
        forget_target(ctx, "collection", member_id)
        ctx.store.delete("collection", member_id)
    return None


@endpoint("POST", "/collections/{collectionId}/move")
def move_collection(ctx: Ctx) -> dict[str, Any]:
    """Move a collection under another one or to the top level, and/or next to a sibling."""
    doc = require_in_org(ctx, "collection", ctx.params["collectionId"], write=True)
    move = ctx.body_as(MoveBody)
    if move.parent is not None and move.parent != doc.get("parent"):
        check_parent_collection(ctx, doc["organization"], move.parent)
        if move.parent in _subtree(ctx, doc):
            raise bad_request(
                f"parent: cannot move collection '{doc['id']}' into itself or one of its "
                "descendants"
            )
    move_item(ctx, "collection", doc, move)
    ctx.store.update("collection", doc)
    return render_collection(ctx, doc)
