"""Endpoint families (`endpoint_families`): collections, spaces and their grants, translations, the
glossary and custom fonts.
"""

from __future__ import annotations

import pytest
from endpoint_families import (
    ORG,
    Session,
    exercise_permissions,
    family,
    new_space,
    object_id,
    page_ids,
)

pytestmark = pytest.mark.anyio


@family
async def test_collections(session: Session) -> None:
    s, listing = session, f"/orgs/{ORG}/collections"
    outer = object_id(await s.send("POST", listing, 201, json={"title": "Guides"}), "collection")
    body = {"title": "Inner", "parent": outer}
    inner = object_id(await s.send("POST", listing, 201, json=body), "collection")
    assert sorted(page_ids(await s.send("GET", listing, 200), "collection")) == sorted(
        [outer, inner]
    )
    got = await s.send("GET", f"/collections/{inner}", 200)
    assert (object_id(got, "collection"), got["parent"]) == (inner, outer)
    patched = await s.send("PATCH", f"/collections/{inner}", 200, json={"description": "How"})
    assert (object_id(patched, "collection"), patched["description"]) == (inner, "How")
    moved = await s.send("POST", f"/collections/{inner}/move", 200, json={"parent": None})
    assert object_id(moved, "collection") == inner and "parent" not in moved
    await s.send("DELETE", f"/collections/{outer}", 204)
    assert page_ids(await s.send("GET", listing, 200), "collection") == [inner]


@family
async def test_spaces_with_restore_and_move(session: Session) -> None:
    s = session
    body = {"title": "Guides"}
    coll = object_id(await s.send("POST", f"/orgs/{ORG}/collections", 201, json=body), "collection")
    space_id = await new_space(s, "Handbook", parent=coll)
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == [space_id]
    assert page_ids(await s.send("GET", f"/collections/{coll}/spaces", 200), "space") == [space_id]
    space = f"/spaces/{space_id}"
    got = await s.send("GET", space, 200)
    assert (object_id(got, "space"), got["visibility"]) == (space_id, "in-collection")
    patched = await s.send("PATCH", space, 200, json={"title": "Staff handbook"})
    assert (object_id(patched, "space"), patched["title"]) == (space_id, "Staff handbook")
    moved = await s.send("POST", f"{space}/move", 200, json={"parent": None})
    assert (object_id(moved, "space"), moved["visibility"]) == (space_id, "private")
    await s.send("DELETE", space, 204)
    assert object_id(deleted := await s.send("GET", space, 200), "space") == space_id
    assert "deletedAt" in deleted
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == []
    restored = await s.send("POST", f"{space}/restore", 200)
    assert object_id(restored, "space") == space_id and "deletedAt" not in restored
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == [space_id]


@family
async def test_space_permissions(session: Session) -> None:
    space_id = await new_space(session, "Handbook")
    await exercise_permissions(session, f"/spaces/{space_id}/permissions")


@family
async def test_collection_permissions(session: Session) -> None:
    body = {"title": "Guides"}
    made = await session.send("POST", f"/orgs/{ORG}/collections", 201, json=body)
    await exercise_permissions(session, f"/collections/{object_id(made, 'collection')}/permissions")


@family
async def test_translations(session: Session) -> None:
    s, translations = session, f"/orgs/{ORG}/translations"
    source = {"space": await new_space(s, "Handbook"), "language": "en"}
    body = {"language": "fr", "source": source}
    made = object_id(await s.send("POST", translations, 201, json=body), "translation")
    assert page_ids(await s.send("GET", translations, 200), "translation") == [made]
    one = f"{translations}/{made}"
    assert object_id(await s.send("GET", one, 200), "translation") == made
    document = {"object": "document", "data": {}, "nodes": []}
    put = await s.send("PUT", one, 200, json={"instructions": document})
    assert put["instructions"]["nodes"] == []
    await s.send("POST", f"{one}/run", 204)
    await s.send("DELETE", one, 204)
    assert page_ids(await s.send("GET", translations, 200), "translation") == []


@family
async def test_translation_glossary(session: Session) -> None:
    s, glossary = session, f"/orgs/{ORG}/translations-glossary"
    insert = {"type": "insert", "translations": {"en": "Workspace", "fr": "Espace de travail"}}
    await s.send("PUT", glossary, 204, json={"operations": [insert]})
    (entry,) = (await s.send("GET", glossary, 200))["items"]
    assert (await s.send("GET", f"{glossary}/{entry['id']}", 200))["translations"] == (
        insert["translations"]
    )
    await s.send("PUT", glossary, 204, json={"operations": [{"type": "delete", "id": entry["id"]}]})


@family
async def test_custom_fonts(session: Session) -> None:
    s, fonts = session, f"/orgs/{ORG}/fonts"
    body = {"fontFamily": "Acme Sans", "fontFaces": [{"weight": 400, "storageKey": "a.woff2"}]}
    font_id = (await s.send("PUT", fonts, 201, json=body))["id"]
    listed = await s.send("GET", fonts, 200)
    assert [item["id"] for item in listed["items"]] == [font_id]
    assert (await s.send("GET", f"{fonts}/{font_id}", 200))["fontFamily"] == "Acme Sans"
    renamed = await s.send("POST", f"{fonts}/{font_id}", 201, json={"fontFamily": "Acme"})
    assert renamed["fontFamily"] == "Acme"
    await s.send("DELETE", f"{fonts}/{font_id}", 205)
    await s.send("DELETE", f"{fonts}/{font_id}", 204)
