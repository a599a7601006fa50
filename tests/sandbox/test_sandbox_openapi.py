"""OpenAPI specs and their versions in the sandbox (sandbox/routes/openapi.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

SPECS = f"orgs/{ORG}/openapi"
PETSTORE_URL = "https://specs.acme.test/petstore.yaml"
PETSTORE_V2_URL = "https://specs.acme.test/petstore-v2.yaml"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


@pytest.fixture
def petstore(api):
    """The spec `petstore` created by POST, as answered."""
    r = api.post(SPECS, json={"slug": "petstore", "source": {"url": PETSTORE_URL}})
    assert r.status_code == 201
    return r.json()


def test_create_answers_201_with_the_spec_object(api, petstore):
    assert petstore["object"] == "openapi-spec"
    assert petstore["slug"] == "petstore"
    assert petstore["sourceURL"] == PETSTORE_URL
    assert petstore["visibility"] == "private"
    assert petstore["createdAt"] == petstore["updatedAt"]
    assert petstore["permissions"] == {"view": True, "edit": True}
    assert petstore["urls"]["location"] == f"https://api.sandbox.test/v1/{SPECS}/petstore"
    assert set(petstore["urls"]) == {"location", "app", "published"}


def test_created_spec_is_processed_at_creation(petstore):
    assert petstore["processingState"] == "complete"
    assert petstore["lastProcessedAt"] == petstore["createdAt"]


def test_create_records_the_first_version(api, petstore):
    versions = api.get(f"{SPECS}/petstore/versions").json()
    assert versions["count"] == 1
    [version] = versions["items"]
    assert version["id"] == petstore["lastVersion"]
    assert version["object"] == "openapi-spec-version"
    assert version["url"] == PETSTORE_URL
    assert version["urls"]["location"].endswith(f"/{SPECS}/petstore/versions/{version['id']}")


def test_source_url_with_credentials_is_kept_as_given(api):
    url = "https://user:s3cret@specs.acme.test/private.yaml"
    api.post(SPECS, json={"slug": "private", "source": {"url": url}})
    assert api.get(f"{SPECS}/private").json()["sourceURL"] == url


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_used_slug_is_409(api, petstore):
    r = api.post(SPECS, json={"slug": "petstore", "source": {"url": PETSTORE_V2_URL}})
    assert r.status_code == 409
    assert r.json() == {
        "error": {
            "code": 409,
            "message": "slug: an OpenAPI spec with slug 'petstore' already exists",
        }
    }


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_bad_slug_is_400_naming_the_pattern(api):
    r = api.post(SPECS, json={"slug": "pet_store", "source": {"url": PETSTORE_URL}})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        "slug: String should match pattern '^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$'"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_slug_over_100_characters_is_400(api):
    r = api.post(SPECS, json={"slug": "a" * 101, "source": {"url": PETSTORE_URL}})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "slug: String should have at most 100 characters"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_without_source_is_400(api):
    r = api.post(SPECS, json={"slug": "petstore"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "source: Field required"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_source_url_over_2048_characters_is_400(api):
    url = "https://specs.acme.test/" + "a" * 2048
    r = api.post(SPECS, json={"slug": "long", "source": {"url": url}})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        "source.url: String should have at most 2048 characters"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_source_that_is_not_a_url_is_400(api):
    r = api.post(SPECS, json={"slug": "petstore", "source": {"url": "petstore.yaml"}})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "source.url: Value error, must be an http or https URL"


def test_create_by_a_non_admin_is_403(api):
    r = api.post(SPECS, json={"slug": "petstore", "source": {"url": PETSTORE_URL}}, headers=EDITOR)
    assert r.status_code == 403


def test_member_reads_a_spec_without_edit_permission(api, petstore):
    r = api.get(f"{SPECS}/petstore", headers=EDITOR)
    assert r.status_code == 200
    assert r.json()["permissions"] == {"view": True, "edit": False}


def test_other_organization_cannot_read_specs(api, petstore):
    r = api.get(SPECS, headers={"Authorization": f"Bearer {OTHER_ORG_TOKEN}"})
    assert r.status_code == 403


def test_list_is_newest_first_with_count(api, petstore):
    api.post(SPECS, json={"slug": "billing", "source": {"url": PETSTORE_URL}})
    body = api.get(SPECS).json()
    assert body["count"] == 2
    assert [s["slug"] for s in body["items"]] == ["billing", "petstore"]


def test_list_pages_with_limit(api, petstore):
    api.post(SPECS, json={"slug": "billing", "source": {"url": PETSTORE_URL}})
    first = api.get(SPECS, params={"limit": 1}).json()
    second = api.get(SPECS, params={"limit": 1, "page": first["next"]["page"]}).json()
    assert [s["slug"] for s in first["items"] + second["items"]] == ["billing", "petstore"]
    assert "next" not in second


def test_get_unknown_slug_is_404(api):
    r = api.get(f"{SPECS}/nope")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "openapi spec 'nope' not found"}}


def test_put_creates_a_missing_spec_with_200(api):
    r = api.put(f"{SPECS}/billing", json={"source": {"url": PETSTORE_URL}})
    assert r.status_code == 200
    assert r.json()["slug"] == "billing"
    assert api.get(f"{SPECS}/billing/versions").json()["count"] == 1


def test_put_with_a_bad_slug_is_400(api):
    r = api.put(f"{SPECS}/bad--slug", json={"source": {"url": PETSTORE_URL}})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("slug: String should match pattern")


def test_put_with_a_new_url_adds_a_version(api, petstore):
    api.control("POST", "clock", json={"advanceSeconds": 60})
    spec = api.put(f"{SPECS}/petstore", json={"source": {"url": PETSTORE_V2_URL}}).json()
    assert spec["sourceURL"] == PETSTORE_V2_URL
    assert spec["lastVersion"] != petstore["lastVersion"]
    assert spec["updatedAt"] > petstore["updatedAt"]
    assert spec["lastProcessedAt"] == spec["updatedAt"]
    assert spec["createdAt"] == petstore["createdAt"]
    urls = [v["url"] for v in api.get(f"{SPECS}/petstore/versions").json()["items"]]
    assert urls == [PETSTORE_V2_URL, PETSTORE_URL]


def test_put_with_the_same_url_changes_nothing(api, petstore):
    api.control("POST", "clock", json={"advanceSeconds": 60})
    spec = api.put(f"{SPECS}/petstore", json={"source": {"url": PETSTORE_URL}}).json()
    assert spec["updatedAt"] == petstore["updatedAt"]
    assert api.get(f"{SPECS}/petstore/versions").json()["count"] == 1


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_put_without_source_is_400(api, petstore):
    r = api.put(f"{SPECS}/petstore", json={})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "source: Field required"


def test_patch_sets_visibility(api, petstore):
    r = api.patch(f"{SPECS}/petstore", json={"visibility": "public"})
    assert r.status_code == 200
    assert r.json()["visibility"] == "public"
    assert api.get(f"{SPECS}/petstore").json()["visibility"] == "public"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_without_visibility_is_400(api, petstore):
    r = api.patch(f"{SPECS}/petstore", json={})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "visibility: Field required"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_with_an_unknown_visibility_is_400(api, petstore):
    r = api.patch(f"{SPECS}/petstore", json={"visibility": "unlisted"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "visibility: Input should be 'private' or 'public'"


def test_patch_unknown_slug_is_404(api):
    assert api.patch(f"{SPECS}/nope", json={"visibility": "public"}).status_code == 404


def test_delete_removes_the_spec_and_its_versions(api, petstore, store):
    r = api.delete(f"{SPECS}/petstore")
    assert r.status_code == 204
    assert r.content == b""
    assert api.get(f"{SPECS}/petstore").status_code == 404
    assert store.count("openapi-spec-version") == 0


def test_delete_of_a_missing_spec_is_204(api):
    assert api.delete(f"{SPECS}/nope").status_code == 204


def test_slug_is_free_again_after_delete(api, petstore):
    api.delete(f"{SPECS}/petstore")
    r = api.post(SPECS, json={"slug": "petstore", "source": {"url": PETSTORE_V2_URL}})
    assert r.status_code == 201
    assert api.get(f"{SPECS}/petstore/versions").json()["count"] == 1


def test_latest_version_is_the_last_one_added(api, petstore):
    api.put(f"{SPECS}/petstore", json={"source": {"url": PETSTORE_V2_URL}})
    latest = api.get(f"{SPECS}/petstore/versions/latest").json()
    assert latest["url"] == PETSTORE_V2_URL
    assert latest["id"] == api.get(f"{SPECS}/petstore").json()["lastVersion"]


def test_get_version_by_id(api, petstore):
    r = api.get(f"{SPECS}/petstore/versions/{petstore['lastVersion']}")
    assert r.status_code == 200
    assert r.json()["url"] == PETSTORE_URL


def test_version_of_another_spec_is_404(api, petstore):
    api.post(SPECS, json={"slug": "billing", "source": {"url": PETSTORE_URL}})
    r = api.get(f"{SPECS}/billing/versions/{petstore['lastVersion']}")
    assert r.status_code == 404
    assert r.json()["error"]["message"] == (
        f"openapi spec version '{petstore['lastVersion']}' not found"
    )


def test_version_content_is_the_url_and_an_empty_filesystem(api, petstore):
    r = api.get(f"{SPECS}/petstore/versions/{petstore['lastVersion']}/content")
    assert r.json() == {"filesystem": {}, "urls": {"source": PETSTORE_URL, "public": None}}


def test_a_public_specs_content_has_its_source_as_public_url(api, petstore):
    api.patch(f"{SPECS}/petstore", json={"visibility": "public"})
    r = api.get(f"{SPECS}/petstore/versions/latest/content")
    assert r.json()["urls"] == {"source": PETSTORE_URL, "public": PETSTORE_URL}


def test_latest_content_follows_the_latest_version(api, petstore):
    api.put(f"{SPECS}/petstore", json={"source": {"url": PETSTORE_V2_URL}})
    r = api.get(f"{SPECS}/petstore/versions/latest/content")
    assert r.json() == {"filesystem": {}, "urls": {"source": PETSTORE_V2_URL, "public": None}}


def test_versions_of_unknown_slug_is_404(api):
    assert api.get(f"{SPECS}/nope/versions").status_code == 404
