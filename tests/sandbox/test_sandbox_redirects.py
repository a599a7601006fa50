"""Site redirects in the sandbox: create, list (search, draft, orderBy, cursors), change and
delete, with sources checked against their pattern and destinations against the site
(sandbox/routes/redirects.py)."""

import pytest

from conftest import ADMIN_TOKEN, EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN, SyncApi
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.faults import FaultSettings

SITE = f"orgs/{ORG}/sites/site_docs"
REDIRECTS = f"{SITE}/redirects"
OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
EXTERNAL = {"kind": "external", "url": "https://example.test/new"}


def error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == status
    return body["error"]["message"]


def redirect(api, source, destination=EXTERNAL, **flags):
    response = api.post(REDIRECTS, json={"source": source, "destination": destination, **flags})
    assert response.status_code == 201, response.text
    return response.json()


def sources(api, **params):
    body = api.get(REDIRECTS, params=params).json()
    return [item["source"] for item in body["items"]]


@pytest.fixture
def structure(api):
    """A section of site_docs showing a new space: (section id, site space id)."""
    space = api.post(f"orgs/{ORG}/spaces", json={"title": "Guides"}).json()
    section = api.post(f"{SITE}/sections", json={"spaceId": space["id"]}).json()
    return section["id"], section["siteSpaces"][0]["id"]


# -- create --------------------------------------------------------------------------------------


def test_a_new_redirect_has_its_fields_and_defaults(api):
    made = redirect(api, "/old-page")
    assert set(made) == {
        "object", "id", "source", "destination", "captureWildcard", "permanent", "draft",
        "createdAt",
    }  # fmt: skip
    assert made["object"] == "site-redirect"
    assert (made["source"], made["destination"]) == ("/old-page", EXTERNAL)
    assert (made["captureWildcard"], made["permanent"], made["draft"]) == (False, False, False)


def test_every_kind_of_destination_of_this_site_is_accepted(api, structure):
    section_id, site_space_id = structure
    destinations = [
        {"kind": "site-section", "siteSectionId": section_id},
        {"kind": "site-space", "siteSpaceId": site_space_id},
        {"kind": "site-page", "siteSpaceId": site_space_id, "pageId": "page_42"},
        EXTERNAL,
    ]
    for i, destination in enumerate(destinations):
        assert redirect(api, f"/from-{i}", destination)["destination"] == destination
    assert api.get(REDIRECTS).json()["count"] == 4


@pytest.mark.parametrize(
    "source",
    ["/a", "/docs/old_page", "/a/b", "/v1.2/~x+y", "/caf%C3%A9", "/docs/*", "/docs*"],
)
def test_a_source_matching_the_pattern_is_accepted(api, source):
    assert redirect(api, source, captureWildcard=source.endswith("*"))["source"] == source


@pytest.mark.parametrize(
    "source",
    [
        *("old", "", "/a//b", "/a b", "/100%", "/%G1", "/a/*/b", "/a**", "/docs?x=1", "/é"),
        # The definition's pattern: at least one segment, no trailing slash.
        *("/", "/*", "/a/b/"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_source_not_matching_the_pattern_is_400(api, source):
    answer = api.post(REDIRECTS, json={"source": source, "destination": EXTERNAL})
    assert error(answer, 400) == (
        f"source: {source!r} is not a redirect source: a path starting with '/' of one or more "
        "segments of the characters A-Z a-z 0-9 - . _ ~ + or %XX escapes between single "
        "slashes, no trailing '/', optionally ending in '*' or '/*'"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_source_of_512_characters_is_accepted_and_513_is_400(api):
    redirect(api, "/" + "a" * 511)
    answer = api.post(REDIRECTS, json={"source": "/" + "b" * 512, "destination": EXTERNAL})
    assert error(answer, 400) == "source: must be at most 512 characters"


@pytest.mark.parametrize(
    ("destination", "message"),
    [
        ({"kind": "site-section", "siteSectionId": "nope"},
         "destination.siteSectionId: no section 'nope' in this site"),
        ({"kind": "site-space", "siteSpaceId": "nope"},
         "destination.siteSpaceId: no site space 'nope' in this site"),
        ({"kind": "site-page", "siteSpaceId": "nope", "pageId": "p1"},
         "destination.siteSpaceId: no site space 'nope' in this site"),
        ({"kind": "external", "url": "example.test"},
         "destination.url: must be an absolute http(s) URL"),
        ({"kind": "space", "spaceId": "x"},
         "destination: Input tag 'space' found using 'kind' does not match any of the expected "
         "tags: 'site-section', 'site-space', 'site-page', 'external'"),
        ({"kind": "site-section"}, "destination.site-section.siteSectionId: Field required"),
    ],
)  # fmt: skip
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_destination_that_is_not_of_this_site_is_400(api, destination, message):
    answer = api.post(REDIRECTS, json={"source": "/old", "destination": destination})
    assert error(answer, 400) == message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_section_of_another_site_is_not_a_destination(api, structure):
    other = api.post(f"orgs/{ORG}/sites", json={"title": "Other"}).json()
    section_id, _ = structure
    body = {"source": "/x", "destination": {"kind": "site-section", "siteSectionId": section_id}}
    answer = api.post(f"orgs/{ORG}/sites/{other['id']}/redirects", json=body)
    assert (
        error(answer, 400) == f"destination.siteSectionId: no section '{section_id}' in this site"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_second_redirect_from_the_same_source_is_409(api):
    first = redirect(api, "/old")
    answer = api.post(REDIRECTS, json={"source": "/old", "destination": EXTERNAL})
    assert error(answer, 409) == (
        f"source: site 'site_docs' already has a redirect from '/old' ('{first['id']}')"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_capturing_the_wildcard_needs_a_source_ending_in_a_star(api):
    body = {"source": "/old", "destination": EXTERNAL, "captureWildcard": True}
    assert error(api.post(REDIRECTS, json=body), 400) == (
        "captureWildcard: needs a source ending in '*' (a wildcard)"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_source_and_destination_are_required(api):
    assert error(api.post(REDIRECTS, json={"source": "/a"}), 400) == ("destination: Field required")
    assert error(api.post(REDIRECTS, json={"destination": EXTERNAL}), 400) == (
        "source: Field required"
    )


# -- list ----------------------------------------------------------------------------------------


def test_the_list_is_newest_first_and_pages_with_cursors(api):
    for source in ("/a", "/b", "/c"):
        redirect(api, source)
    first = api.get(REDIRECTS, params={"limit": 2}).json()
    assert (first["count"], [i["source"] for i in first["items"]]) == (3, ["/c", "/b"])
    second = api.get(REDIRECTS, params={"limit": 2, "page": first["next"]["page"]}).json()
    assert [i["source"] for i in second["items"]] == ["/a"]
    assert "next" not in second


def test_the_list_orders_by_source_and_by_update(api):
    ids = {source: redirect(api, source)["id"] for source in ("/b", "/c", "/a")}
    assert sources(api, orderBy="source") == ["/a", "/b", "/c"]
    api.patch(f"{REDIRECTS}/{ids['/b']}", json={"permanent": True})
    assert sources(api, orderBy="updatedAt") == ["/b", "/a", "/c"]
    assert sources(api) == ["/a", "/c", "/b"]


def test_the_list_searches_sources_and_urls_and_filters_drafts(api):
    redirect(api, "/Guides/old", draft=True)
    redirect(api, "/api", {"kind": "external", "url": "https://guides.example.test"})
    redirect(api, "/other")
    assert sources(api, search="GUIDES", orderBy="source") == ["/Guides/old", "/api"]
    assert sources(api, draft="true") == ["/Guides/old"]
    assert sources(api, draft="false", orderBy="source") == ["/api", "/other"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_an_unknown_order_is_400(api):
    message = error(api.get(REDIRECTS, params={"orderBy": "title"}), 400)
    assert message == "orderBy: Input should be 'createdAt', 'updatedAt' or 'source'"


# -- change and delete ---------------------------------------------------------------------------


def test_patch_changes_only_the_fields_given_and_sets_updated_at(api, structure):
    made = redirect(api, "/old/*", captureWildcard=True)
    section_id, _ = structure
    destination = {"kind": "site-section", "siteSectionId": section_id}
    answer = api.patch(f"{REDIRECTS}/{made['id']}", json={"destination": destination})
    assert answer.status_code == 200
    changed = answer.json()
    assert changed["destination"] == destination
    assert (changed["source"], changed["captureWildcard"]) == ("/old/*", True)
    assert changed["createdAt"] == made["createdAt"]
    assert "updatedAt" in changed
    assert api.get(REDIRECTS).json()["items"] == [changed]


def test_patch_that_changes_nothing_leaves_updated_at_out(api):
    made = redirect(api, "/old")
    same = api.patch(f"{REDIRECTS}/{made['id']}", json={"source": "/old"}).json()
    assert same == made


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"source": None}, 400, "source: must not be null"),
        ({"source": "nope"}, 400, "source: 'nope' is not a redirect source: a path starting "
         "with '/' of one or more segments of the characters A-Z a-z 0-9 - . _ ~ + or %XX "
         "escapes between single slashes, no trailing '/', optionally ending in '*' or '/*'"),
        ({"captureWildcard": True}, 400, "captureWildcard: needs a source ending in '*' (a "
         "wildcard)"),
        ({"draft": "yes"}, 400, "draft: Input should be a valid boolean"),
        ({"destination": {"kind": "site-space", "siteSpaceId": "nope"}}, 400,
         "destination.siteSpaceId: no site space 'nope' in this site"),
    ],
)  # fmt: skip
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_bad_patch_is_refused_and_changes_nothing(api, body, status, message):
    made = redirect(api, "/old")
    assert error(api.patch(f"{REDIRECTS}/{made['id']}", json=body), status) == message
    assert api.get(REDIRECTS).json()["items"] == [made]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_to_a_source_another_redirect_has_is_409(api):
    first, second = redirect(api, "/a"), redirect(api, "/b")
    answer = api.patch(f"{REDIRECTS}/{second['id']}", json={"source": "/a"})
    assert error(answer, 409) == (
        f"source: site 'site_docs' already has a redirect from '/a' ('{first['id']}')"
    )


def test_patch_of_an_unknown_redirect_or_one_of_another_site_is_404(api):
    other = api.post(f"orgs/{ORG}/sites", json={"title": "Other"}).json()
    made = redirect(api, "/old")
    answer = api.patch(f"orgs/{ORG}/sites/{other['id']}/redirects/{made['id']}", json={})
    assert error(answer, 404) == f"site redirect '{made['id']}' not found"
    assert error(api.patch(f"{REDIRECTS}/nope", json={}), 404) == ("site redirect 'nope' not found")


def test_delete_answers_204_and_again_204(api):
    made = redirect(api, "/old")
    for _ in range(2):
        answer = api.delete(f"{REDIRECTS}/{made['id']}")
        assert (answer.status_code, answer.content) == (204, b"")
    assert api.get(REDIRECTS).json() == {"count": 0, "items": []}


# -- who may -------------------------------------------------------------------------------------


def test_a_member_may_list_but_only_an_admin_change(api):
    made = redirect(api, "/old")
    assert api.get(REDIRECTS, headers=EDITOR).json()["count"] == 1
    admin_only = f"changing organization '{ORG}' needs the admin role"
    body = {"source": "/new", "destination": EXTERNAL}
    assert error(api.post(REDIRECTS, json=body, headers=EDITOR), 403) == admin_only
    target = f"{REDIRECTS}/{made['id']}"
    assert error(api.patch(target, json={"draft": True}, headers=EDITOR), 403) == admin_only
    assert error(api.delete(target, headers=EDITOR), 403) == admin_only


def test_another_organizations_token_is_403(api):
    assert error(api.get(REDIRECTS, headers=OTHER), 403) == (
        f"you are not a member of organization '{ORG}'"
    )


def test_an_unknown_site_is_404(api):
    assert error(api.get(f"orgs/{ORG}/sites/nope/redirects"), 404) == "site 'nope' not found"


# -- faults and rate limits reach these routes like any other -----------------------------------


def test_an_injected_fault_on_a_redirect_write_answers_the_error_and_writes_nothing(store):
    faults = FaultSettings("503:1@POST:/orgs/*/sites/*/redirects")
    client = SyncApi(create_app(store, SandboxConfig(faults=faults)), ADMIN_TOKEN)
    try:
        answer = client.post(REDIRECTS, json={"source": "/old", "destination": EXTERNAL})
        assert answer.status_code == 503
        assert answer.json()["error"]["code"] == 503
        assert client.get(REDIRECTS).json() == {"count": 0, "items": []}
    finally:
        client.close()


def test_redirect_lists_are_rate_limited_with_the_service_headers(store):
    client = SyncApi(create_app(store, SandboxConfig(rate_limit=2)), ADMIN_TOKEN)
    try:
        answers = [client.get(REDIRECTS) for _ in range(10)]
    finally:
        client.close()
    assert "X-RateLimit-Remaining" in answers[0].headers
    limited = next(a for a in answers if a.status_code == 429)
    assert limited.json()["error"]["message"] == (
        "API rate limit exceeded. Please try again in 60 seconds"
    )
    assert limited.headers["Retry-After"] == "1"
