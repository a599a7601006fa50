"""Endpoint families (`endpoint_families`): sites, their structure (section groups, sections, site
spaces, external links), grants, redirects and custom hostnames.
"""

from __future__ import annotations

import pytest
from endpoint_families import (
    ORG,
    SITE,
    SITES,
    Session,
    exercise_permissions,
    family,
    new_space,
    object_id,
    page_ids,
)

from docform_sandbox.routes.custom_hostnames import connect
from docform_sandbox.store import Store

pytestmark = pytest.mark.anyio


@family
async def test_sites(session: Session) -> None:
    s = session
    space_id = await new_space(s, "Portal home")
    body = {"title": "Dev Portal", "spaces": [space_id]}
    created = await s.send("POST", SITES, 201, json=body)
    site_id = object_id(created, "site")
    assert created["basename"] == "dev-portal"
    assert sorted(page_ids(await s.send("GET", SITES, 200), "site")) == sorted([SITE, site_id])
    site = f"{SITES}/{site_id}"
    assert object_id(await s.send("GET", site, 200), "site") == site_id
    patched = await s.send("PATCH", site, 200, json={"visibility": "unlisted"})
    assert (object_id(patched, "site"), patched["visibility"]) == (site_id, "unlisted")
    published = await s.send("POST", f"{site}/publish", 200)
    assert (object_id(published, "site"), published["published"]) == (site_id, True)
    unpublished = await s.send("POST", f"{site}/unpublish", 200)
    assert (object_id(unpublished, "site"), unpublished["published"]) == (site_id, False)
    await s.send("DELETE", site, 205)
    assert page_ids(await s.send("GET", SITES, 200), "site") == [SITE]


@family
async def test_site_structure_and_sort(session: Session) -> None:
    s = session
    first, second = await new_space(s, "First"), await new_space(s, "Second")
    body = {"title": "Ordered", "spaces": [first, second]}
    site = f"{SITES}/{object_id(await s.send('POST', SITES, 201, json=body), 'site')}"
    structure = await s.send("GET", f"{site}/structure", 200)
    assert structure["type"] == "siteSpaces"
    shown = [item["space"]["id"] for item in structure["structure"]]
    assert shown == [first, second]
    a, b = [object_id(item, "site-space") for item in structure["structure"]]
    sort = {
        "item": {"type": "site-space", "id": b},
        "position": {"before": {"type": "site-space", "id": a}},
    }
    sorted_item = await s.send("PATCH", f"{site}/structure/sort", 200, json=sort)
    assert object_id(sorted_item, "site-space") == b
    after = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in after["structure"]] == [b, a]


@family
async def test_section_groups(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    sections = []
    for title in ("Guides", "Reference"):
        space_id = await new_space(s, title)
        made = await s.send("POST", f"{site}/sections", 201, json={"spaceId": space_id})
        sections.append(object_id(made, "site-section"))
    groups = f"{site}/section-groups"
    created = await s.send("POST", groups, 201, json={"title": "Learn"})
    group_id = object_id(created, "site-section-group")
    assert (created["sections"], created["children"]) == ([], [])
    assert page_ids(await s.send("GET", groups, 200), "site-section-group") == [group_id]
    group = f"{groups}/{group_id}"
    renamed = await s.send("PATCH", group, 200, json={"title": "Learning"})
    assert (object_id(renamed, "site-section-group"), renamed["title"]) == (group_id, "Learning")
    joined = await s.send(
        "PATCH", f"{site}/sections/{sections[0]}", 200, json={"siteSectionGroupId": group_id}
    )
    assert (object_id(joined, "site-section"), joined["sectionGroup"]) == (sections[0], group_id)
    inner = await s.send("POST", groups, 201, json={"title": "Inner", "parent": group_id})
    inner_id = object_id(inner, "site-section-group")
    out = await s.send("PATCH", f"{groups}/{inner_id}", 200, json={"parentSectionGroupId": None})
    assert "sectionGroup" not in out
    await s.send("DELETE", f"{groups}/{inner_id}", 204)
    position = {"position": {"after": {"type": "site-section", "id": sections[1]}}}
    moved = await s.send("POST", f"{group}/move", 200, json=position)
    assert object_id(moved, "site-section-group") == group_id
    structure = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in structure["structure"]] == [sections[1], group_id]
    await s.send("DELETE", group, 204)
    assert page_ids(await s.send("GET", groups, 200), "site-section-group") == []


@family
async def test_sections(session: Session) -> None:
    s, listing = session, f"{SITES}/{SITE}/sections"
    made = []
    for title in ("Guides", "Reference"):
        section = await s.send("POST", listing, 201, json={"spaceId": await new_space(s, title)})
        made.append(object_id(section, "site-section"))
        assert len([object_id(x, "site-space") for x in section["siteSpaces"]]) == 1
    guides, reference = made
    patched = await s.send("PATCH", f"{listing}/{guides}", 200, json={"path": "learn"})
    assert (object_id(patched, "site-section"), patched["path"]) == (guides, "learn")
    await move_second_before_first_then_delete_first(s, listing, "site-section", guides, reference)


@family
async def test_site_spaces(session: Session) -> None:
    s, listing = session, f"{SITES}/{SITE}/site-spaces"
    made = []
    for title in ("Intro", "Setup"):
        shown = await s.send("POST", listing, 201, json={"spaceId": await new_space(s, title)})
        made.append(object_id(shown, "site-space"))
    intro, setup = made
    body = {"path": "start", "hidden": True}
    patched = await s.send("PATCH", f"{listing}/{setup}", 200, json=body)
    assert object_id(patched, "site-space") == setup
    assert (patched["path"], patched["hidden"]) == ("start", True)
    await move_second_before_first_then_delete_first(s, listing, "site-space", intro, setup)


async def move_second_before_first_then_delete_first(
    s: Session, listing: str, kind: str, first: str, second: str
) -> None:
    """A site's ordered list of two (``kind``: ``site-section`` or ``site-space``) in the order
    they were made, the second moved before the first, then the first deleted."""
    assert page_ids(await s.send("GET", listing, 200), kind) == [first, second]
    key = "".join(word.title() if n else word for n, word in enumerate(kind.split("-")))
    position = {"position": {"before": {"type": kind, key: first}}}
    moved = await s.send("POST", f"{listing}/{second}/move", 200, json=position)
    assert object_id(moved, kind) == second
    assert page_ids(await s.send("GET", listing, 200), kind) == [second, first]
    await s.send("DELETE", f"{listing}/{first}", 204)
    assert page_ids(await s.send("GET", listing, 200), kind) == [second]


@family
async def test_site_permissions(session: Session) -> None:
    await exercise_permissions(session, f"{SITES}/{SITE}/permissions")


@family
async def test_site_redirects(session: Session) -> None:
    s, redirects = session, f"{SITES}/{SITE}/redirects"
    body = {"source": "/old/*", "destination": {"kind": "external", "url": "https://x.test"}}
    created = await s.send("POST", redirects, 201, json=body)
    redirect_id = object_id(created, "site-redirect")
    assert page_ids(await s.send("GET", redirects, 200), "site-redirect") == [redirect_id]
    patched = await s.send("PATCH", f"{redirects}/{redirect_id}", 200, json={"permanent": True})
    assert (object_id(patched, "site-redirect"), patched["permanent"]) == (redirect_id, True)
    await s.send("DELETE", f"{redirects}/{redirect_id}", 204)
    assert page_ids(await s.send("GET", redirects, 200), "site-redirect") == []


@family
async def test_site_external_links(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    section = await s.send(
        "POST", f"{site}/sections", 201, json={"spaceId": await new_space(s, "G")}
    )
    body = {"title": "Status", "url": "https://status.acme.test"}
    created = await s.send("POST", f"{site}/external-links", 201, json=body)
    link_id = object_id(created, "site-external-link")
    patched = await s.send("PATCH", f"{site}/external-links/{link_id}", 200, json={"icon": "x"})
    assert (object_id(patched, "site-external-link"), patched["icon"]) == (link_id, "x")
    sort = {
        "item": {"type": "site-external-link", "id": link_id},
        "position": {"before": {"type": "site-section", "id": section["id"]}},
    }
    await s.send("PATCH", f"{site}/structure/sort", 200, json=sort)
    structure = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in structure["structure"]] == [link_id, section["id"]]
    await s.send("DELETE", f"{site}/external-links/{link_id}", 205)
    await s.send("DELETE", f"{site}/external-links/{link_id}", 204)


@family
async def test_custom_hostnames(session: Session) -> None:
    s, hostname = session, "/custom-hostnames/docs.acme.test"
    store = Store(s.sandbox)
    try:
        connect(store, ORG, "docs.acme.test", SITE)  # as the service's app connects one
        connected = store.get("custom-hostname", "docs.acme.test")
        assert connected is not None
        store.update("custom-hostname", {**connected, "status": "dns_no_cname"})
    finally:
        store.close()
    answer = await s.send("GET", hostname, 200)
    assert (answer["target"], answer["isActive"]) == ({"type": "site", "site": SITE}, True)
    await s.send("PATCH", hostname, 204)
    assert (await s.send("GET", hostname, 200))["status"] == "live"
    await s.send("DELETE", hostname, 205)
    await s.send("DELETE", hostname, 204)
