"""Who can get in, in the sandbox: a site's visitor authentication (routes/visitor_auth.py), its
share links (routes/share_links.py) and the organization's link invites
(routes/link_invites.py), secrets included, as the service answers them."""

import pytest

from conftest import EDITOR_TOKEN, ORG

SITE = f"orgs/{ORG}/sites/site_docs"
AUTH = f"{SITE}/publishing/auth"
LINKS = f"{SITE}/share-links"
INVITES = f"orgs/{ORG}/link-invites"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == status
    return body["error"]["message"]


# -- visitor authentication ---------------------------------------------------------------------


def test_a_site_has_visitor_authentication_with_a_private_key_from_its_first_read(api):
    first = api.get(AUTH).json()
    assert first["object"] == "publishing-auth"
    assert first["backend"] == "custom"
    assert len(first["privateKey"]) >= 40
    assert not {"fallbackURL", "logoutURL", "integration"} & set(first)
    assert api.get(AUTH).json() == first


def test_patch_sets_urls_keeps_what_it_leaves_out_and_null_removes(api):
    key = api.get(AUTH).json()["privateKey"]
    body = {"backend": "custom", "fallbackURL": "https://id.acme.test/login"}
    patched = api.patch(AUTH, json={**body, "logoutURL": "https://id.acme.test/logout"}).json()
    assert patched["fallbackURL"] == "https://id.acme.test/login"
    assert patched["privateKey"] == key
    kept = api.patch(AUTH, json={"backend": "integration", "logoutURL": None}).json()
    assert kept["backend"] == "integration"
    assert kept["fallbackURL"] == "https://id.acme.test/login"
    assert "logoutURL" not in kept


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "backend: Field required"),
        ({"backend": "saml"}, "backend: Input should be 'custom' or 'integration'"),
        (
            {"backend": "custom", "fallbackURL": "/login"},
            "fallbackURL: Value error, must be an absolute",
        ),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_bad_patch_is_a_400_naming_the_field(api, body, message):
    assert error(api.patch(AUTH, json=body), 400).startswith(message)


def test_regenerate_replaces_the_key_at_once(api):
    before = api.get(AUTH).json()["privateKey"]
    after = api.post(f"{AUTH}/regenerate").json()["privateKey"]
    assert after != before
    assert api.get(AUTH).json()["privateKey"] == after


def test_visitor_authentication_needs_the_admin_role(api):
    assert "needs the admin role" in error(api.get(AUTH, headers=EDITOR), 403)


# -- share links --------------------------------------------------------------------------------


@pytest.mark.contract_exempt("sends order, and links without the name the definition requires")
def test_share_links_each_carry_their_own_key_in_the_published_url(api):
    first = api.post(LINKS, json={"name": "Partners"})
    assert first.status_code == 201
    assert first.headers["Location"].endswith(f"/share-links/{first.json()['id']}")
    second = api.post(LINKS, json={}).json()
    assert first.json()["active"] is True and "name" not in second
    urls = {first.json()["urls"]["published"], second["urls"]["published"]}
    assert len(urls) == 2
    listed = api.get(LINKS, params={"order": "asc"}).json()
    assert [link["id"] for link in listed["items"]] == [first.json()["id"], second["id"]]
    assert listed["count"] == 2


def test_search_finds_a_link_by_name_or_by_key(api):
    link = api.post(LINKS, json={"name": "Partner Preview"}).json()
    api.post(LINKS, json={"name": "Other"})
    key = link["urls"]["published"].rstrip("/").rsplit("/", 1)[1]
    for search in ("preview", key):
        found = api.get(LINKS, params={"search": search}).json()["items"]
        assert [item["id"] for item in found] == [link["id"]]


@pytest.mark.contract_exempt("sends a request the service refuses, to check the refusal")
def test_patch_renames_and_deactivates_keeping_the_key(api):
    link = api.post(LINKS, json={"name": "Partners"}).json()
    patched = api.patch(f"{LINKS}/{link['id']}", json={"active": False, "name": "Old"}).json()
    assert (patched["active"], patched["name"]) == (False, "Old")
    assert patched["urls"] == link["urls"]
    assert error(api.patch(f"{LINKS}/{link['id']}", json={}), 400) == (
        "the body must set active or name"
    )


def test_delete_answers_205_then_204(api):
    link = api.post(LINKS, json={"name": "Partners"}).json()
    assert api.delete(f"{LINKS}/{link['id']}").status_code == 205
    assert api.delete(f"{LINKS}/{link['id']}").status_code == 204
    assert api.get(LINKS).json()["items"] == []


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_long_name_is_a_400(api):
    assert error(api.post(LINKS, json={"name": "x" * 51}), 400).startswith("name: ")


def test_deleting_the_site_deletes_its_share_links_and_visitor_authentication(api, store):
    api.post(LINKS, json={"name": "Partners"})
    api.get(AUTH)
    assert api.delete(SITE).status_code == 205
    assert store.all("share-link") == [] and store.all("publishing-auth") == []


# -- link invites -------------------------------------------------------------------------------


@pytest.fixture
def space(api):
    return api.post(f"orgs/{ORG}/spaces", json={"title": "Handbook"}).json()


@pytest.mark.contract_exempt("the sandbox honours an order parameter the definition lacks")
def test_invites_to_the_organization_and_to_a_space(api, space):
    joining = api.post(INVITES, json={"role": "read"})
    assert joining.status_code == 201
    invite = joining.json()
    assert (invite["object"], invite["role"], invite["redundant"]) == ("invite", "read", True)
    to_space = api.post(INVITES, json={"level": None, "space": space["id"]}).json()
    assert to_space["level"] is None and to_space["space"]["id"] == space["id"]
    assert api.get(f"{INVITES}/{invite['id']}").json() == invite
    listed = api.get(INVITES, params={"order": "asc"}).json()["items"]
    assert [i["id"] for i in listed] == [invite["id"], to_space["id"]]


@pytest.mark.contract_exempt("sends a request the service refuses, to check the refusal")
def test_patch_changes_the_role_never_the_target(api, space):
    invite = api.post(INVITES, json={"level": "read", "space": space["id"]}).json()
    changed = api.patch(f"{INVITES}/{invite['id']}", json={"level": "edit"}).json()
    assert changed["level"] == "edit"
    other = api.post(f"orgs/{ORG}/spaces", json={"title": "Other"}).json()
    message = error(api.patch(f"{INVITES}/{invite['id']}", json={"space": other["id"]}), 400)
    assert message == "space: a space invite takes {level} only; its target never changes"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "role: required (a role, or null for guest)"),
        (
            {"role": "owner"},
            "role: must be one of admin, create, review, edit, comment, read or null",
        ),
        ({"level": "read"}, "level: goes with space or collection"),
        ({"level": "read", "space": "nope"}, "space: no space 'nope' in this organization"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_bad_invite_is_a_400(api, body, message):
    assert error(api.post(INVITES, json=body), 400).startswith(message)


def test_an_invite_goes_with_its_space_and_delete_answers_205_then_204(api, space):
    invite = api.post(INVITES, json={"level": "read", "space": space["id"]}).json()
    api.delete(f"spaces/{space['id']}")
    assert error(api.get(f"{INVITES}/{invite['id']}"), 404).startswith("invite ")
    kept = api.post(INVITES, json={"role": "read"}).json()
    assert api.delete(f"{INVITES}/{kept['id']}").status_code == 205
    assert api.delete(f"{INVITES}/{kept['id']}").status_code == 204


def test_invites_need_the_admin_role(api):
    assert "needs the admin role" in error(api.get(INVITES, headers=EDITOR), 403)
