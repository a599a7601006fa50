"""Translations of spaces: ``GET|POST /orgs/{organizationId}/translations``,
``GET|PUT|DELETE .../translations/{translationId}`` and ``POST .../{translationId}/run``.

Choices where the API documents are silent:
- ``source`` is required: a translation translates a space of the organization (400 naming
  ``source.space`` otherwise). One translation per source space and target language: a second
  answers 409.
- A new translation is ``pending``; ``run`` counts a run in ``stats.runs`` and leaves it
  ``pending`` (the sandbox translates nothing). ``result`` is never set.
- PUT replaces ``instructions`` when given (the only field it takes); source and language
  never change. Reads need membership, writes the admin role.
"""

from __future__ import annotations

from typing import Any, Literal

from docform_sandbox.access import require_org
from docform_sandbox.http import (
    API_BASE,
    ApiError,
    Body,
    Ctx,
    bad_request,
    endpoint,
    list_page,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.agent_instructions import check_document, empty_document
from docform_sandbox.routes.spaces import LANGUAGES

PREFIX = "/orgs/{organizationId}/translations"
ITEM = PREFIX + "/{translationId}"
KIND = "translation"
STATS = (
    "runs",
    "totalWords",
    "totalPages",
    "totalDuration",
    "latestRunDuration",
    "latestPages",
    "latestWords",
)


Language = Literal[LANGUAGES]  # type: ignore[valid-type]


class TranslationSource(Body):
    space: str
    language: Language


class TranslationCreate(Body):
    language: Language
    source: TranslationSource
    instructions: dict[str, Any] | None = None


class TranslationUpdate(Body):
    instructions: dict[str, Any] | None = None


def render(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "translation",
        "id": doc["id"],
        "status": "pending",
        "source": doc["source"],
        "language": doc["language"],
        "instructions": doc.get("instructions") or empty_document(),
        "createdAt": doc["createdAt"],
        "updatedAt": doc["updatedAt"],
        "stats": {name: doc.get("runs", 0) if name == "runs" else 0 for name in STATS},
        "permissions": {"view": True, "edit": True},
        "urls": {"location": f"{API_BASE}/orgs/{doc['organization']}/translations/{doc['id']}"},
    }


def require_translation(ctx: Ctx, org_id: str) -> dict[str, Any]:
    translation_id = ctx.params["translationId"]
    located = ctx.store.locate(KIND, translation_id)
    if located is None or located[0] != org_id:
        raise not_found("translation", translation_id)
    doc = ctx.store.get(KIND, translation_id)
    assert doc is not None
    return doc


def check_source(ctx: Ctx, org_id: str, body: TranslationCreate) -> None:
    located = ctx.store.locate("space", body.source.space)
    space = ctx.store.get("space", body.source.space) if located else None
    if located is None or located[0] != org_id or space is None or space.get("deletedAt"):
        raise bad_request(f"source.space: no space '{body.source.space}' in this organization")
    same = [
        t
        for t in ctx.store.all(KIND, [("org = ?", [org_id])])
        if t["source"]["space"] == body.source.space and t["language"] == body.language
    ]
    if same:
        raise ApiError(
            409, f"space '{body.source.space}' already has a translation into {body.language}"
        )


@endpoint("GET", PREFIX)
def list_translations(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    return list_page(ctx, KIND, [("org = ?", [org_id])], render)


@endpoint("POST", PREFIX, 201)
def post_translation(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    body = ctx.body_as(TranslationCreate)
    check_source(ctx, org_id, body)
    if body.instructions is not None:
        check_document(body.instructions, "instructions")
    now = timestamp(ctx.now())
    doc = {
        "id": new_id(),
        "organization": org_id,
        "source": {"space": body.source.space, "language": body.source.language},
        "language": body.language,
        "instructions": body.instructions,
        "createdAt": now,
        "updatedAt": now,
    }
    ctx.store.insert(KIND, doc, org=org_id)
    return render(doc)


@endpoint("GET", ITEM)
def get_translation(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    return render(require_translation(ctx, org_id))


@endpoint("PUT", ITEM)
def put_translation(ctx: Ctx) -> dict[str, Any]:
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    doc = require_translation(ctx, org_id)
    body = ctx.body_as(TranslationUpdate)
    if body.instructions is not None:
        check_document(body.instructions, "instructions")
        doc["instructions"] = body.instructions
    doc["updatedAt"] = timestamp(ctx.now())
    ctx.store.update(KIND, doc)
    return render(doc)


@endpoint("DELETE", ITEM, 204)
def delete_translation(ctx: Ctx) -> None:
    """Delete the translation; 204 also when there is none with this id."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    located = ctx.store.locate(KIND, ctx.params["translationId"])
    if located is not None and located[0] == org_id:
        ctx.store.delete(KIND, ctx.params["translationId"])


@endpoint("POST", ITEM + "/run", 204)
def run_translation(ctx: Ctx) -> None:
    """Translate again (the sandbox counts the run)."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    doc = require_translation(ctx, org_id)
    doc["runs"] = doc.get("runs", 0) + 1
    ctx.store.update(KIND, doc)
