"""Collections in the sandbox: list, create, get, patch, delete, move, spaces (collections.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN
from docform_sandbox.http import API_BASE

OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def make_collection(api, **body):
    r = api.post(f"orgs/{ORG}/collections", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def make_space(api, **body):
    r = api.post(f"orgs/{ORG}/spaces", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def error(status, message):
    return {"error": {"code": status, "message": message}}


def ids(body):
    return [item["id"] for item in body["items"]]


# -- create ------------------------------------------------------------------------------------


def test_create_collection_answers_201_with_the_collection(api):
    r = api.post(f"orgs/{ORG}/collections", json={"title": "Engineering"})
    assert r.status_code == 201
    collection = r.json()
    assert collection["object"] == "collection"
    assert collection["title"] == "Engineering"
    assert collection["organization"] == ORG
    assert collection["defaultLevel"] == "inherit"
    assert "parent" not in collection and "description" not in collection


def test_create_collection_has_urls_and_permissions(api):
    collection = make_collection(api)
    assert collection["urls"]["location"] == f"{API_BASE}/collections/{collection['id']}"
    assert collection["urls"]["app"].endswith(f"/c/{collection['id']}")
    assert collection["permissions"] == {
        "view": True,
        "admin": True,
        "viewInviteLinks": True,
        "create": True,
    }


def test_create_collection_without_title_is_untitled(api):
    assert make_collection(api)["title"] == "Untitled"


def test_create_collection_ignores_description(api):
    assert "description" not in make_collection(api, description="not on create")


def test_create_nested_collection(api):
    parent = make_collection(api, title="Parent")
    child = make_collection(api, title="Child", parent=parent["id"])
    assert child["parent"] == parent["id"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_collection_title_of_51_characters_is_400(api):
    r = api.post(f"orgs/{ORG}/collections", json={"title": "t" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "title: String should have at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_collection_with_unknown_parent_is_400(api):
    r = api.post(f"orgs/{ORG}/collections", json={"parent": "nope"})
    assert r.status_code == 400
    assert r.json() == error(400, "parent: no collection 'nope' in this organization")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_collection_with_parent_of_another_org_is_400(api):
    theirs = api.post("orgs/org_other/collections", json={}, headers=OTHER).json()
    r = api.post(f"orgs/{ORG}/collections", json={"parent": theirs["id"]})
    assert r.status_code == 400
    assert r.json() == error(400, f"parent: no collection '{theirs['id']}' in this organization")


def test_create_collection_needs_the_admin_role(api):
    r = api.post(f"orgs/{ORG}/collections", json={}, headers=EDITOR)
    assert r.status_code == 403
    assert r.json() == error(403, f"changing organization '{ORG}' needs the admin role")


# -- list and get ------------------------------------------------------------------------------


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_collections_includes_nested_ones_by_default(api):
    top = make_collection(api)
    nested = make_collection(api, parent=top["id"])
    body = api.get(f"orgs/{ORG}/collections", params={"order": "asc"}).json()
    assert body["count"] == 2
    assert ids(body) == [top["id"], nested["id"]]


def test_list_collections_nested_false_lists_only_top_level(api):
    top = make_collection(api)
    make_collection(api, parent=top["id"])
    body = api.get(f"orgs/{ORG}/collections", params={"nested": "false"}).json()
    assert body["count"] == 1
    assert ids(body) == [top["id"]]


def test_list_collections_pages_with_cursor(api):
    created = [make_collection(api, title=f"c{i}")["id"] for i in range(5)]
    first = api.get(f"orgs/{ORG}/collections", params={"limit": 3}).json()
    second = api.get(
        f"orgs/{ORG}/collections", params={"limit": 3, "page": first["next"]["page"]}
    ).json()
    assert "next" not in second
    assert ids(first) + ids(second) == created[::-1]


def test_list_collections_of_another_org_is_403(api):
    r = api.get(f"orgs/{ORG}/collections", headers=OTHER)
    assert r.status_code == 403
    assert r.json() == error(403, f"you are not a member of organization '{ORG}'")


def test_get_collection_answers_the_collection(api):
    collection = make_collection(api, title="Eng")
    assert api.get(f"collections/{collection['id']}").json() == collection


def test_get_unknown_collection_is_404(api):
    r = api.get("collections/nope")
    assert r.status_code == 404
    assert r.json() == error(404, "collection 'nope' not found")


def test_get_collection_of_another_org_is_403(api):
    collection = make_collection(api)
    assert api.get(f"collections/{collection['id']}", headers=OTHER).status_code == 403


def test_get_collection_as_editor_shows_no_admin_permissions(api):
    collection = make_collection(api)
    permissions = api.get(f"collections/{collection['id']}", headers=EDITOR).json()["permissions"]
    assert permissions == {"view": True, "admin": False, "viewInviteLinks": False, "create": False}


# -- patch -------------------------------------------------------------------------------------


def test_patch_collection_changes_title_description_and_level(api):
    collection = make_collection(api)
    body = {"title": "Eng", "description": "All engineering", "defaultLevel": "read"}
    patched = api.patch(f"collections/{collection['id']}", json=body).json()
    assert (patched["title"], patched["description"], patched["defaultLevel"]) == (
        "Eng",
        "All engineering",
        "read",
    )
    assert api.get(f"collections/{collection['id']}").json() == patched


@pytest.mark.parametrize("level", [None, "inherit", "admin"])
def test_patch_collection_default_level_takes_null_inherit_and_roles(api, level):
    collection = make_collection(api)
    patched = api.patch(f"collections/{collection['id']}", json={"defaultLevel": level}).json()
    assert patched["defaultLevel"] == level


@pytest.mark.contract_exempt("null clears a description here; the definition takes a string")
def test_patch_collection_description_null_removes_it(api):
    collection = make_collection(api)
    api.patch(f"collections/{collection['id']}", json={"description": "text"})
    patched = api.patch(f"collections/{collection['id']}", json={"description": None}).json()
    assert "description" not in patched


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_collection_title_of_51_characters_is_400(api):
    collection = make_collection(api)
    r = api.patch(f"collections/{collection['id']}", json={"title": "t" * 51})
    assert r.status_code == 400
    assert r.json() == error(400, "title: String should have at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_collection_title_null_is_400(api):
    collection = make_collection(api)
    r = api.patch(f"collections/{collection['id']}", json={"title": None})
    assert r.status_code == 400
    assert r.json() == error(400, "title: must be a string of at most 50 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_collection_description_of_101_characters_is_400(api):
    collection = make_collection(api)
    r = api.patch(f"collections/{collection['id']}", json={"description": "d" * 101})
    assert r.status_code == 400
    assert r.json() == error(400, "description: String should have at most 100 characters")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_collection_unknown_default_level_is_400(api):
    collection = make_collection(api)
    r = api.patch(f"collections/{collection['id']}", json={"defaultLevel": "owner"})
    assert r.status_code == 400
    assert r.json() == error(
        400,
        "defaultLevel: must be one of 'admin', 'create', 'review', 'edit', 'comment', 'read', "
        "'inherit' or null, not 'owner'",
    )


def test_patch_unknown_collection_is_404(api):
    r = api.patch("collections/nope", json={"title": "x"})
    assert r.status_code == 404
    assert r.json() == error(404, "collection 'nope' not found")


def test_patch_collection_as_editor_is_403(api):
    collection = make_collection(api)
    r = api.patch(f"collections/{collection['id']}", json={"title": "x"}, headers=EDITOR)
    assert r.status_code == 403


# -- delete ------------------------------------------------------------------------------------


def test_delete_collection_answers_204_and_removes_it(api):
    collection = make_collection(api)
    r = api.delete(f"collections/{collection['id']}")
    assert r.status_code == 204 and r.content == b""
    assert api.get(f"collections/{collection['id']}").status_code == 404


def test_delete_unknown_collection_answers_204(api):
    assert api.delete("collections/nope").status_code == 204


def test_delete_collection_of_another_org_is_403(api):
    collection = make_collection(api)
    assert api.delete(f"collections/{collection['id']}", headers=OTHER).status_code == 403


def test_delete_collection_deletes_nested_collections(api):
    top = make_collection(api)
    middle = make_collection(api, parent=top["id"])
    make_collection(api, parent=middle["id"])
    kept = make_collection(api)
    api.delete(f"collections/{top['id']}")
    assert ids(api.get(f"orgs/{ORG}/collections").json()) == [kept["id"]]


def test_delete_collection_soft_deletes_spaces_at_any_depth(api):
    top = make_collection(api)
    nested = make_collection(api, parent=top["id"])
    direct, deep = make_space(api, parent=top["id"]), make_space(api, parent=nested["id"])
    kept = make_space(api)
    api.delete(f"collections/{top['id']}")
    assert ids(api.get(f"orgs/{ORG}/spaces").json()) == [kept["id"]]
    for space in (direct, deep):
        assert api.post(f"spaces/{space['id']}/restore").status_code == 200


# -- spaces in a collection --------------------------------------------------------------------


def test_collection_spaces_lists_only_direct_live_spaces(api):
    top = make_collection(api)
    nested = make_collection(api, parent=top["id"])
    direct, gone = make_space(api, parent=top["id"]), make_space(api, parent=top["id"])
    make_space(api, parent=nested["id"])
    make_space(api)
    api.delete(f"spaces/{gone['id']}")
    body = api.get(f"collections/{top['id']}/spaces").json()
    assert body["count"] == 1
    assert ids(body) == [direct["id"]]


def test_collection_spaces_pages_each_space_exactly_once(api):
    collection = make_collection(api)
    created = [make_space(api, parent=collection["id"])["id"] for _ in range(7)]
    seen, params = [], {"limit": 3}
    while True:
        body = api.get(f"collections/{collection['id']}/spaces", params=params).json()
        seen += ids(body)
        if "next" not in body:
            break
        params = {"limit": 3, "page": body["next"]["page"]}
    assert seen == created


def test_collection_spaces_of_unknown_collection_is_404(api):
    r = api.get("collections/nope/spaces")
    assert r.status_code == 404
    assert r.json() == error(404, "collection 'nope' not found")


# -- move --------------------------------------------------------------------------------------


def test_move_collection_under_another(api):
    target, moving = make_collection(api), make_collection(api)
    r = api.post(f"collections/{moving['id']}/move", json={"parent": target["id"]})
    assert r.status_code == 200
    assert r.json()["parent"] == target["id"]
    assert api.get(f"collections/{moving['id']}").json()["parent"] == target["id"]


def test_move_collection_to_top_level(api):
    parent = make_collection(api)
    child = make_collection(api, parent=parent["id"])
    moved = api.post(f"collections/{child['id']}/move", json={"parent": None}).json()
    assert "parent" not in moved
    listed = api.get(f"orgs/{ORG}/collections", params={"nested": "false"}).json()
    assert child["id"] in ids(listed)


def test_move_collection_into_itself_is_400(api):
    collection = make_collection(api)
    r = api.post(f"collections/{collection['id']}/move", json={"parent": collection["id"]})
    assert r.status_code == 400
    assert r.json() == error(
        400,
        f"parent: cannot move collection '{collection['id']}' into itself or one of its "
        "descendants",
    )


def test_move_collection_into_a_descendant_is_400(api):
    top = make_collection(api)
    middle = make_collection(api, parent=top["id"])
    bottom = make_collection(api, parent=middle["id"])
    r = api.post(f"collections/{top['id']}/move", json={"parent": bottom["id"]})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith(
        f"parent: cannot move collection '{top['id']}' into itself"
    )


def test_move_collection_where_it_already_is_is_409(api):
    parent = make_collection(api)
    child = make_collection(api, parent=parent["id"])
    r = api.post(f"collections/{child['id']}/move", json={"parent": parent["id"]})
    assert r.status_code == 409
    assert r.json() == error(
        409, f"moving collection '{child['id']}' would not result in any update"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_move_collection_with_empty_body_is_409(api):
    collection = make_collection(api)
    assert api.post(f"collections/{collection['id']}/move", json={}).status_code == 409


def test_move_collection_to_unknown_parent_is_400(api):
    collection = make_collection(api)
    r = api.post(f"collections/{collection['id']}/move", json={"parent": "nope"})
    assert r.status_code == 400
    assert r.json() == error(400, "parent: no collection 'nope' in this organization")


def test_move_collection_next_to_a_space_changes_its_rank(api, store):
    first_space = make_space(api)
    collection = make_collection(api)
    body = {"position": {"before": {"type": "space", "space": first_space["id"]}}}
    assert api.post(f"collections/{collection['id']}/move", json=body).status_code == 200
    assert store.rank_of("collection", collection["id"]) < store.rank_of("space", first_space["id"])


def test_move_collection_with_before_and_after_is_400(api):
    collection, space = make_collection(api), make_space(api)
    anchor = {"type": "space", "space": space["id"]}
    body = {"position": {"before": anchor, "after": anchor}}
    r = api.post(f"collections/{collection['id']}/move", json=body)
    assert r.status_code == 400
    assert r.json() == error(400, "position: give either before or after, not both")


def test_move_unknown_collection_is_404(api):
    r = api.post("collections/nope/move", json={"parent": None})
    assert r.status_code == 404
    assert r.json() == error(404, "collection 'nope' not found")
