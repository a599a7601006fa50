"""Spaces in the sandbox: create, list, get, patch, delete, restore, move (routes/spaces.py)."""

from datetime import timedelta

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN
from docform_sandbox.http import API_BASE, PUBLISHED_BASE

OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def make_space(api, **body):
    r = api.post(f"orgs/{ORG}/spaces", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def make_collection(api, **body):
    r = api.post(f"orgs/{ORG}/collections", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def error(status, message):
    return {"error": {"code": status, "message": message}}


def advance(store, **delta):
    store.set_now(store.now() + timedelta(**delta))


# -- create ------------------------------------------------------------------------------------


def test_create_space_answers_201_with_location_header(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"title": "Handbook"})
    assert r.status_code == 201
    assert r.headers["location"] == f"{API_BASE}/spaces/{r.json()['id']}"


def test_create_space_fills_defaults(api):
    space = make_space(api)
    assert space["object"] == "space"
    assert space["title"] == "Untitled"
    assert space["emoji"] == ""
    assert space["organization"] == ORG
    assert space["visibility"] == "private"
    assert space["mergeRules"] == {"type": "inherit"}
    assert space["defaultLevel"] == "inherit"
    assert space["editMode"] == "live"
    assert space["revision"]
    assert space["createdAt"] == space["updatedAt"]
    assert "parent" not in space and "deletedAt" not in space


def test_create_space_has_zero_counters(api):
    space = make_space(api)
    counters = ("comments", "changeRequests", "changeRequestsOpen", "changeRequestsDraft")
    assert [space[c] for c in counters] == [0, 0, 0, 0]


def test_create_space_has_urls_and_admin_permissions(api):
    space = make_space(api, title="Handbook")
    assert space["urls"]["location"] == f"{API_BASE}/spaces/{space['id']}"
    assert space["urls"]["app"].endswith(f"/s/{space['id']}")
    assert all(space["permissions"].values())
    assert len(space["permissions"]) == 10


def test_create_space_takes_title_emoji_language_and_edit_mode(api):
    space = make_space(api, title="Guide", emoji="1f4d8", language="pt-br", editMode="locked")
    assert (space["title"], space["emoji"]) == ("Guide", "1f4d8")
    assert (space["language"], space["editMode"]) == ("pt-br", "locked")


def test_create_space_in_collection_is_in_collection_visibility(api):
    collection = make_collection(api, title="Eng")
    space = make_space(api, parent=collection["id"])
    assert space["parent"] == collection["id"]
    assert space["visibility"] == "in-collection"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_with_unknown_parent_is_400(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"parent": "nope"})
    assert r.status_code == 400
    assert r.json() == error(400, "parent: no collection 'nope' in this organization")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_with_parent_of_another_org_is_400(api):
    theirs = api.post("orgs/org_other/collections", json={}, headers=OTHER).json()
    r = api.post(f"orgs/{ORG}/spaces", json={"parent": theirs["id"]})
    assert r.status_code == 400
    assert r.json() == error(400, f"parent: no collection '{theirs['id']}' in this organization")


def test_create_space_title_of_50_characters_is_accepted(api):
    assert make_space(api, title="t" * 50)["title"] == "t" * 50


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_title_of_51_characters_is_400(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"title": "t" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "title: String should have at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_emoji_of_51_characters_is_400(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"emoji": "e" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "emoji: String should have at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_with_unknown_language_is_400(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"language": "xx"})
    assert r.status_code == 400
    assert r.json() == error(400, "language: must be one of the supported language codes, not 'xx'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_space_with_unknown_edit_mode_is_400(api):
    r = api.post(f"orgs/{ORG}/spaces", json={"editMode": "frozen"})
    assert r.status_code == 400
    assert r.json() == error(400, "editMode: must be one of 'live', 'locked', not 'frozen'")


def test_create_space_needs_the_admin_role(api):
    r = api.post(f"orgs/{ORG}/spaces", json={}, headers=EDITOR)
    assert r.status_code == 403
    assert r.json() == error(403, f"changing organization '{ORG}' needs the admin role")


def test_create_space_in_another_org_is_403(api):
    r = api.post(f"orgs/{ORG}/spaces", json={}, headers=OTHER)
    assert r.status_code == 403
    assert r.json() == error(403, f"you are not a member of organization '{ORG}'")


# -- list and get ------------------------------------------------------------------------------


def test_list_spaces_pages_25_spaces_by_10_each_exactly_once(api):
    created = {make_space(api, title=f"s{i}")["id"] for i in range(25)}
    seen, params, pages = [], {"limit": 10}, 0
    while True:
        body = api.get(f"orgs/{ORG}/spaces", params=params).json()
        assert body["count"] == 25
        seen += [s["id"] for s in body["items"]]
        pages += 1
        if "next" not in body:
            break
        params = {"limit": 10, "page": body["next"]["page"]}
    assert pages == 3
    assert len(seen) == 25 and set(seen) == created


@pytest.mark.contract_exempt("the sandbox honours an order parameter the definition lacks")
def test_list_spaces_is_newest_first_by_default(api):
    first, second = make_space(api, title="a"), make_space(api, title="b")
    ids = [s["id"] for s in api.get(f"orgs/{ORG}/spaces").json()["items"]]
    assert ids == [second["id"], first["id"]]
    ids = [s["id"] for s in api.get(f"orgs/{ORG}/spaces", params={"order": "asc"}).json()["items"]]
    assert ids == [first["id"], second["id"]]


def test_list_spaces_leaves_out_deleted_spaces(api):
    kept, gone = make_space(api), make_space(api)
    api.delete(f"spaces/{gone['id']}")
    body = api.get(f"orgs/{ORG}/spaces").json()
    assert body["count"] == 1
    assert [s["id"] for s in body["items"]] == [kept["id"]]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_spaces_limit_over_1000_is_400(api):
    r = api.get(f"orgs/{ORG}/spaces", params={"limit": 1001})
    assert r.status_code == 400
    assert r.json() == error(400, "limit: must be an integer from 0 to 1000")


def test_list_spaces_of_another_org_is_403(api):
    r = api.get(f"orgs/{ORG}/spaces", headers=OTHER)
    assert r.status_code == 403
    assert r.json() == error(403, f"you are not a member of organization '{ORG}'")


def test_get_space_answers_the_space(api):
    space = make_space(api, title="Handbook")
    assert api.get(f"spaces/{space['id']}").json() == space


def test_get_unknown_space_is_404(api):
    r = api.get("spaces/nope")
    assert r.status_code == 404
    assert r.json() == error(404, "space 'nope' not found")


def test_get_space_of_another_org_is_403(api):
    space = make_space(api)
    r = api.get(f"spaces/{space['id']}", headers=OTHER)
    assert r.status_code == 403
    assert r.json() == error(403, f"you are not a member of organization '{ORG}'")


def test_get_space_as_editor_shows_edit_but_not_admin_permissions(api):
    space = make_space(api)
    permissions = api.get(f"spaces/{space['id']}", headers=EDITOR).json()["permissions"]
    assert permissions["edit"] is True and permissions["comment"] is True
    assert permissions["admin"] is False and permissions["merge"] is False


def test_get_space_shown_on_a_site_has_a_published_url(api, store):
    space = make_space(api)
    store.insert(
        "site-space",
        {"id": "ss_1", "space": space["id"], "path": "guide"},
        org=ORG,
        parent="site_docs",
    )
    urls = api.get(f"spaces/{space['id']}").json()["urls"]
    assert urls["published"] == f"{PUBLISHED_BASE}/site-docs/guide"


# -- patch -------------------------------------------------------------------------------------


def test_patch_space_changes_title_and_moves_updated_at(api, store):
    space = make_space(api, title="Old")
    advance(store, minutes=5)
    patched = api.patch(f"spaces/{space['id']}", json={"title": "New"}).json()
    assert patched["title"] == "New"
    assert patched["updatedAt"] > space["updatedAt"]
    assert api.get(f"spaces/{space['id']}").json()["title"] == "New"


def test_patch_space_without_change_keeps_updated_at(api, store):
    space = make_space(api, title="Same")
    advance(store, minutes=5)
    patched = api.patch(f"spaces/{space['id']}", json={"title": "Same"}).json()
    assert patched["updatedAt"] == space["updatedAt"]


def test_patch_space_locks_and_unlocks_edit_mode(api):
    space = make_space(api)
    locked = api.patch(f"spaces/{space['id']}", json={"editMode": "locked"}).json()
    assert locked["editMode"] == "locked"
    live = api.patch(f"spaces/{space['id']}", json={"editMode": "live"}).json()
    assert live["editMode"] == "live"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_with_unknown_edit_mode_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"editMode": "frozen"})
    assert r.status_code == 400
    assert r.json() == error(400, "editMode: must be one of 'live', 'locked', not 'frozen'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_visibility_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"visibility": "public"})
    assert r.status_code == 400
    assert r.json() == error(400, "visibility: cannot be changed through the API")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_title_of_51_characters_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"title": "t" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "title: String should have at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_title_null_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"title": None})
    assert r.status_code == 400
    assert r.json() == error(400, "title: must be a string of at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_emoji_of_51_characters_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"emoji": "e" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "emoji: String should have at most 50 characters")


@pytest.mark.parametrize("level", ["admin", "read", None, "inherit"])
def test_patch_space_default_level_takes_roles_null_and_inherit(api, level):
    space = make_space(api)
    patched = api.patch(f"spaces/{space['id']}", json={"defaultLevel": level}).json()
    assert patched["defaultLevel"] == level


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_unknown_default_level_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"defaultLevel": "owner"})
    assert r.status_code == 400
    assert r.json() == error(
        400,
        "defaultLevel: must be one of 'admin', 'create', 'review', 'edit', 'comment', 'read', "
        "'inherit' or null, not 'owner'",
    )


@pytest.mark.contract_exempt("null clears a language here; the definition takes a language")
def test_patch_space_language_is_set_and_removed_with_null(api):
    space = make_space(api)
    assert api.patch(f"spaces/{space['id']}", json={"language": "fr"}).json()["language"] == "fr"
    assert "language" not in api.patch(f"spaces/{space['id']}", json={"language": None}).json()


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_unknown_language_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"language": "klingon"})
    assert r.status_code == 400
    assert r.json() == error(
        400, "language: must be one of the supported language codes, not 'klingon'"
    )


def test_patch_space_merge_rules(api):
    space = make_space(api)
    rules = {"type": "rules", "rules": [{"rule": "require_specific_reviewers", "users": ["u"]}]}
    patched = api.patch(f"spaces/{space['id']}", json={"mergeRules": rules}).json()
    assert patched["mergeRules"] == rules


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_unknown_merge_rules_type_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"mergeRules": {"type": "any"}})
    assert r.status_code == 400
    assert r.json() == error(400, "mergeRules.type: must be one of 'inherit', 'rules', 'none'")


ROCKET = "https://acme.test/icons/rocket.svg"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
@pytest.mark.parametrize("icon", ["rocket", "ftp://acme.test/x.svg", "https://"])
def test_patch_space_icon_that_is_not_a_url_is_400(api, icon):
    space = api.post(f"orgs/{ORG}/spaces", json={"title": "Handbook"}).json()
    r = api.patch(f"spaces/{space['id']}", json={"icon": icon})
    assert r.json() == error(
        400, f"icon: must be the http:// or https:// URL of an image, not {icon!r}"
    )


def test_patch_space_icon_replaces_emoji(api):
    space = make_space(api, emoji="1f4d8")
    patched = api.patch(f"spaces/{space['id']}", json={"icon": ROCKET}).json()
    assert patched["emoji"] == ""
    assert patched["urls"]["icon"] == ROCKET


def test_patch_space_null_emoji_removes_the_icon(api):
    space = make_space(api)
    api.patch(f"spaces/{space['id']}", json={"icon": ROCKET})
    patched = api.patch(f"spaces/{space['id']}", json={"emoji": None}).json()
    assert patched["emoji"] == ""
    assert "icon" not in patched["urls"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_space_with_both_emoji_and_icon_is_400(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"emoji": "1f4d8", "icon": ROCKET})
    assert r.status_code == 400
    assert r.json() == error(400, "icon: give either emoji or icon, not both")


def test_patch_unknown_space_is_404(api):
    r = api.patch("spaces/nope", json={"title": "x"})
    assert r.status_code == 404
    assert r.json() == error(404, "space 'nope' not found")


def test_patch_space_as_editor_is_403(api):
    space = make_space(api)
    r = api.patch(f"spaces/{space['id']}", json={"title": "x"}, headers=EDITOR)
    assert r.status_code == 403


# -- delete and restore ------------------------------------------------------------------------


def test_delete_space_answers_204_and_hides_it_from_lists(api):
    space = make_space(api)
    r = api.delete(f"spaces/{space['id']}")
    assert r.status_code == 204 and r.content == b""
    assert space["id"] not in [s["id"] for s in api.get(f"orgs/{ORG}/spaces").json()["items"]]


def test_get_deleted_space_shows_deleted_at_while_restorable(api):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    r = api.get(f"spaces/{space['id']}")
    assert r.status_code == 200
    assert r.json()["deletedAt"].endswith("Z")


def test_get_space_deleted_more_than_7_days_ago_is_404(api, store):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    store.set_now(store.now() + timedelta(days=7, seconds=1))
    assert api.get(f"spaces/{space['id']}").json() == error(404, f"space '{space['id']}' not found")


def test_delete_space_keeps_the_row_with_deleted_at(api, store):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    assert store.get("space", space["id"])["deletedAt"]


def test_delete_unknown_space_answers_204(api):
    assert api.delete("spaces/nope").status_code == 204


def test_delete_space_of_another_org_is_403(api):
    space = make_space(api)
    assert api.delete(f"spaces/{space['id']}", headers=OTHER).status_code == 403


def test_delete_space_removes_the_site_spaces_showing_it(api, store):
    space, other = make_space(api), make_space(api)
    for site_space_id, space_id in (("ss_1", space["id"]), ("ss_2", other["id"])):
        doc = {"id": site_space_id, "space": space_id, "path": site_space_id}
        store.insert("site-space", doc, org=ORG, parent="site_docs")
    api.delete(f"spaces/{space['id']}")
    assert [d["id"] for d in store.all("site-space")] == ["ss_2"]


def test_restore_space_within_7_days(api, store):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    advance(store, days=6, hours=23)
    r = api.post(f"spaces/{space['id']}/restore")
    assert r.status_code == 200
    assert "deletedAt" not in r.json()
    assert api.get(f"spaces/{space['id']}").status_code == 200


def test_restore_space_with_the_sandbox_clock_endpoint(api):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    clock = api.control("POST", "clock", json={"advanceSeconds": 3 * 86400})
    assert clock.status_code == 200
    assert api.post(f"spaces/{space['id']}/restore").status_code == 200


def test_restore_space_after_7_days_is_404(api, store):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    advance(store, days=7, minutes=1)
    r = api.post(f"spaces/{space['id']}/restore")
    assert r.status_code == 404
    assert r.json() == error(404, f"space '{space['id']}' not found")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_restore_space_that_is_not_deleted_is_400(api):
    space = make_space(api)
    r = api.post(f"spaces/{space['id']}/restore")
    assert r.status_code == 400
    assert r.json() == error(400, f"space '{space['id']}' is not deleted")


def test_restore_unknown_space_is_404(api):
    r = api.post("spaces/nope/restore")
    assert r.status_code == 404
    assert r.json() == error(404, "space 'nope' not found")


def test_restore_space_whose_collection_was_deleted_lands_at_top_level(api):
    collection = make_collection(api)
    space = make_space(api, parent=collection["id"])
    api.delete(f"collections/{collection['id']}")
    restored = api.post(f"spaces/{space['id']}/restore").json()
    assert "parent" not in restored
    assert restored["visibility"] == "private"


# -- move --------------------------------------------------------------------------------------


def test_move_space_into_a_collection(api):
    collection = make_collection(api)
    space = make_space(api)
    moved = api.post(f"spaces/{space['id']}/move", json={"parent": collection["id"]}).json()
    assert moved["parent"] == collection["id"]
    listed = api.get(f"collections/{collection['id']}/spaces").json()["items"]
    assert [s["id"] for s in listed] == [space["id"]]


def test_move_space_to_top_level_makes_in_collection_private(api):
    collection = make_collection(api)
    space = make_space(api, parent=collection["id"])
    moved = api.post(f"spaces/{space['id']}/move", json={"parent": None}).json()
    assert "parent" not in moved
    assert moved["visibility"] == "private"


def test_move_space_where_it_already_is_is_409(api):
    space = make_space(api)
    r = api.post(f"spaces/{space['id']}/move", json={"parent": None})
    assert r.status_code == 409
    assert r.json() == error(409, f"moving space '{space['id']}' would not result in any update")


def test_move_space_to_unknown_parent_is_400(api):
    space = make_space(api)
    r = api.post(f"spaces/{space['id']}/move", json={"parent": "nope"})
    assert r.status_code == 400
    assert r.json() == error(400, "parent: no collection 'nope' in this organization")


def test_move_space_before_a_sibling_reorders_the_collection(api):
    collection = make_collection(api)
    a, _, c = (make_space(api, parent=collection["id"], title=t) for t in "abc")
    body = {"position": {"before": {"type": "space", "space": a["id"]}}}
    assert api.post(f"spaces/{c['id']}/move", json=body).status_code == 200
    listed = api.get(f"collections/{collection['id']}/spaces").json()["items"]
    assert [s["title"] for s in listed] == ["c", "a", "b"]


def test_move_space_after_a_sibling_reorders_the_collection(api):
    collection = make_collection(api)
    a, b, _ = (make_space(api, parent=collection["id"], title=t) for t in "abc")
    body = {"position": {"after": {"type": "space", "space": b["id"]}}}
    api.post(f"spaces/{a['id']}/move", json=body)
    listed = api.get(f"collections/{collection['id']}/spaces").json()["items"]
    assert [s["title"] for s in listed] == ["b", "a", "c"]


def test_move_space_to_the_place_it_has_is_409(api):
    a, b = make_space(api), make_space(api)
    body = {"position": {"after": {"type": "space", "space": a["id"]}}}
    r = api.post(f"spaces/{b['id']}/move", json=body)
    assert r.status_code == 409


def test_move_space_next_to_a_space_elsewhere_is_400(api):
    collection = make_collection(api)
    inside, outside = make_space(api, parent=collection["id"]), make_space(api)
    body = {"position": {"before": {"type": "space", "space": inside["id"]}}}
    r = api.post(f"spaces/{outside['id']}/move", json=body)
    assert r.status_code == 400
    assert r.json() == error(
        400, f"position.before.space: no space '{inside['id']}' at the top level"
    )


def test_move_deleted_space_is_404(api):
    space = make_space(api)
    api.delete(f"spaces/{space['id']}")
    assert api.post(f"spaces/{space['id']}/move", json={"parent": None}).status_code == 404
