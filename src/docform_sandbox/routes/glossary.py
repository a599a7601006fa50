"""An organization's translation glossary: ``GET|PUT /orgs/{organizationId}/translations-glossary``
and ``GET .../translations-glossary/{glossaryEntryId}``.

An entry is one term in several languages (``translations``: language -> term), which the
organization's translations keep as written. The PUT is a batch of operations (``insert``,
``update`` with the entry's id, ``delete`` with its id) and answers 204, with no ids: a client
finds an inserted entry by its terms.

Choices where the API documents are silent, as the UI behaves:
- Reading needs membership of the organization, writing its admin role.
- A batch is checked whole before any of it is written: an unknown id, an entry's id twice,
  no terms, a language the service does not translate into (`TranslationLanguage`), or a term
  another entry already has in the same language (after the batch) answers 400 and writes
  nothing. An ``update`` replaces the entry's translations whole.
- The list is oldest first; ``orderBy`` (a language) sorts it by the terms in that language,
  entries without one last.
- Each operation is audited on its entry (`docform_sandbox.audit`: ``glossary-entry.created``,
  ``updated``, ``deleted``), labelled with its first term by language.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from docform_sandbox.access import require_org
from docform_sandbox.audit import BATCH
from docform_sandbox.http import (
    API_BASE,
    Body,
    Ctx,
    ListQuery,
    bad_request,
    endpoint,
    envelope,
    list_query,
    new_id,
    not_found,
    timestamp,
)
from docform_sandbox.routes.spaces import LANGUAGES

ENTRY = "glossary-entry"
PATH = "/orgs/{organizationId}/translations-glossary"
ONE = PATH + "/{glossaryEntryId}"

Term = Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=r"^[^\n\r]*$")]


class Insert(Body):
    type: Literal["insert"]
    translations: dict[str, Term]


class Update(Body):
    type: Literal["update"]
    id: str
    translations: dict[str, Term]


class Delete(Body):
    type: Literal["delete"]
    id: str


class Batch(Body):
    operations: list[Annotated[Insert | Update | Delete, Field(discriminator="type")]]


class GlossaryQuery(ListQuery):
    orderBy: str | None = None


def render(doc: dict[str, Any]) -> dict[str, Any]:
    location = f"{API_BASE}/orgs/{doc['organization']}/translations-glossary/{doc['id']}"
    return {
        "object": "glossary-entry",
        "id": doc["id"],
        "translations": doc["translations"],
        "createdAt": doc["createdAt"],
        "updatedAt": doc["updatedAt"],
        "urls": {"location": location},
    }


def _label(translations: dict[str, str]) -> str:
    return translations[min(translations)]


@endpoint("GET", PATH)
def list_entries(ctx: Ctx) -> dict[str, Any]:
    """The organization's glossary entries."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    list_query(ctx)  # the shared checks
    query = ctx.query_as(GlossaryQuery)
    order = query.orderBy
    if order is not None and order not in LANGUAGES:
        raise bad_request(f"orderBy: '{order}' is not a language")
    entries = ctx.store.all(ENTRY, [("org = ?", [org_id])])
    if order is not None:
        entries.sort(key=lambda e: (order not in e["translations"], e["translations"].get(order)))
    start = int(query.page) if query.page and query.page.isdigit() else 0
    page = entries[start : start + query.limit]
    following = str(start + query.limit) if start + query.limit < len(entries) else None
    return envelope([render(e) for e in page], len(entries), following)


@endpoint("GET", ONE)
def get_entry(ctx: Ctx) -> dict[str, Any]:
    """One glossary entry."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id)
    entry_id = ctx.params["glossaryEntryId"]
    located = ctx.store.locate(ENTRY, entry_id)
    doc = ctx.store.get(ENTRY, entry_id) if located and located[0] == org_id else None
    if doc is None:
        raise not_found("glossary entry", entry_id)
    return render(doc)


@endpoint("PUT", PATH, 204)
def write_entries(ctx: Ctx) -> None:
    """Insert, update and delete glossary entries, in one batch."""
    org_id = ctx.params["organizationId"]
    require_org(ctx, org_id, write=True)
    batch = ctx.body_as(Batch)
    entries = {e["id"]: e for e in ctx.store.all(ENTRY, [("org = ?", [org_id])])}
    _check(batch, entries)
    now = timestamp(ctx.now())
    written: list[tuple[str, str, str]] = []
    for op in batch.operations:
        if isinstance(op, Insert):
            entry_id, terms = new_id(), dict(op.translations)
            doc = {"id": entry_id, "organization": org_id, "translations": terms,
                   "createdAt": now, "updatedAt": now}  # fmt: skip
            ctx.store.insert(ENTRY, doc, org=org_id)
            written.append(("created", entry_id, _label(terms)))
        elif isinstance(op, Update):
            terms = dict(op.translations)
            ctx.store.update(ENTRY, {**entries[op.id], "translations": terms, "updatedAt": now})
            written.append(("updated", op.id, _label(terms)))
        else:
            ctx.store.delete(ENTRY, op.id)
            written.append(("deleted", op.id, _label(entries[op.id]["translations"])))
    ctx.extra[BATCH] = written


def _check(batch: Batch, entries: dict[str, dict[str, Any]]) -> None:
    """400 for a batch that cannot be written whole."""
    touched: set[str] = set()
    kept = {entry_id: e["translations"] for entry_id, e in entries.items()}
    added: list[dict[str, str]] = []
    for n, op in enumerate(batch.operations):
        where = f"operations[{n}]"
        if not isinstance(op, Insert):
            if op.id not in entries:
                raise bad_request(f"{where}.id: no glossary entry '{op.id}' in this organization")
            if op.id in touched:
                raise bad_request(f"{where}.id: entry '{op.id}' is written twice in one batch")
            touched.add(op.id)
        if isinstance(op, Delete):
            del kept[op.id]
            continue
        _check_terms(op.translations, where)
        if isinstance(op, Update):
            kept[op.id] = dict(op.translations)
        else:
            added.append(dict(op.translations))
    _check_unique([*kept.values(), *added])


def _check_terms(translations: dict[str, str], where: str) -> None:
    if not translations:
        raise bad_request(f"{where}.translations: give the term in one language at least")
    unknown = sorted(set(translations) - set(LANGUAGES))
    if unknown:
        raise bad_request(f"{where}.translations: '{unknown[0]}' is not a language")


def _check_unique(glossary: list[dict[str, str]]) -> None:
    seen: set[tuple[str, str]] = set()
    for translations in glossary:
        for language, term in translations.items():
            if (language, term) in seen:
                raise bad_request(
                    f"translations: two entries would have the {language} term {term!r}"
                )
            seen.add((language, term))
