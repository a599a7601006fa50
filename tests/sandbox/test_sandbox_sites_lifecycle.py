"""A site's life in the sandbox: created unpublished, published and unpublished, filtered by
that and by type, served through a proxy, deleted with 205 and everything that hangs off it
(sandbox/routes/site_publishing.py, sandbox/routes/sites.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

SITES = f"orgs/{ORG}/sites"
SITE = f"{SITES}/site_docs"
OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == status
    return body["error"]["message"]


def create_site(api, **body):
    response = api.post(SITES, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def listed_ids(api, **params):
    return [site["id"] for site in api.get(SITES, params=params).json()["items"]]


# -- publishing ----------------------------------------------------------------------------------


def test_a_new_site_is_not_published(api):
    site = create_site(api, title="Portal")
    assert site["published"] is False
    assert api.get(f"{SITES}/{site['id']}").json()["published"] is False


def test_publish_and_unpublish_answer_the_site_with_its_flag(api):
    published = api.post(f"{SITE}/publish")
    assert published.status_code == 200
    assert (published.json()["object"], published.json()["published"]) == ("site", True)
    assert api.get(SITE).json()["published"] is True
    again = api.post(f"{SITE}/publish")
    assert again.json() == published.json()
    unpublished = api.post(f"{SITE}/unpublish")
    assert (unpublished.status_code, unpublished.json()["published"]) == (200, False)
    assert api.get(SITE).json()["published"] is False


def test_list_sites_filters_by_published(api):
    site = create_site(api, title="Shown")
    api.post(f"{SITES}/{site['id']}/publish")
    assert listed_ids(api, published="true") == [site["id"]]
    assert listed_ids(api, published="false") == ["site_docs"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_sites_filters_by_type_and_refuses_an_unknown_one(api):
    ultimate = create_site(api, title="Big", type="ultimate")
    assert listed_ids(api, type="ultimate") == [ultimate["id"]]
    message = error(api.get(SITES, params={"type": "gold"}), 400)
    assert message.startswith("type: Input should be 'basic', 'premium'"), message


def test_publishing_needs_the_admin_role_of_the_sites_organization(api):
    for action in ("publish", "unpublish"):
        assert error(api.post(f"{SITE}/{action}", headers=EDITOR), 403) == (
            f"changing organization '{ORG}' needs the admin role"
        )
        assert error(api.post(f"{SITE}/{action}", headers=OTHER), 403) == (
            f"you are not a member of organization '{ORG}'"
        )
        assert error(api.post(f"{SITES}/nope/{action}"), 404) == "site 'nope' not found"
    assert api.get(SITE).json()["published"] is False


# -- proxy ---------------------------------------------------------------------------------------


def test_a_proxy_is_a_host_and_path_and_becomes_the_published_url(api):
    api.post(f"{SITE}/publish")  # the published URL shows only while published
    site = api.patch(SITE, json={"proxy": "acme.test/docs"}).json()
    # The definition's SiteProxyOrigin: the proxy as set, without a scheme.
    assert site["proxy"] == {
        "origin": "acme.test/docs",
        "target": "https://docs.sandbox.test/site-docs",
    }
    assert site["urls"]["published"] == "https://acme.test/docs"
    site = api.patch(SITE, json={"proxy": None}).json()
    assert "proxy" not in site
    assert site["urls"]["published"] == "https://docs.sandbox.test/site-docs"


@pytest.mark.parametrize(
    "proxy",
    [
        "https://acme.test/docs",
        "acme",
        "acme.test//docs",
        "a b.test",
        "acme.test",
        "acme.test/docs/",
        "acme.test/v1.2",
        "acme.t3st/docs",
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_proxy_that_is_not_a_host_and_path_is_400(api, proxy):
    assert error(api.patch(SITE, json={"proxy": proxy}), 400) == (
        "proxy: must be a host and path without a scheme, such as 'example.com/docs', "
        f"not {proxy!r}"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_proxy_of_more_than_512_characters_is_400(api):
    proxy = "acme.test/" + "d" * 503
    assert error(api.patch(SITE, json={"proxy": proxy}), 400) == (
        "proxy: String should have at most 512 characters"
    )
    assert api.patch(SITE, json={"proxy": proxy[:-1]}).status_code == 200


# -- deletion ------------------------------------------------------------------------------------


def test_delete_answers_205_then_204(api):
    first, again = api.delete(SITE), api.delete(SITE)
    assert (first.status_code, first.content) == (205, b"")
    assert (again.status_code, again.content) == (204, b"")
    assert api.get(SITE).status_code == 404


def test_deleting_a_site_deletes_its_redirects_and_grants(api, store):
    redirect = {"source": "/old", "destination": {"kind": "external", "url": "https://x.test"}}
    assert api.post(f"{SITE}/redirects", json=redirect).status_code == 201
    grant = {"role": "read", "users": ["u_erin"]}
    assert api.post(f"{SITE}/permissions", json=grant).status_code == 204
    assert api.delete(SITE).status_code == 205
    assert store.count("site-redirect") == 0
    assert store.count("content-permission") == 0


def test_another_organizations_token_cannot_delete_the_site(api):
    assert error(api.delete(SITE, headers=OTHER), 403) == (
        f"you are not a member of organization '{ORG}'"
    )
    assert api.get(SITE).status_code == 200
