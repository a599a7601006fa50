"""SAML providers and SSO start entries in the sandbox (sandbox/routes/saml.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

SAML = f"orgs/{ORG}/saml"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
CAROL = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
IDP = {
    "entityID": "https://idp.acme.test/metadata",
    "ssoURL": "https://idp.acme.test/sso",
    "certificate": "MIIC-test-certificate",
}


@pytest.fixture
def okta(api):
    """A provider with only its label, as answered by the create."""
    r = api.post(SAML, json={"label": "Okta"})
    assert r.status_code == 201
    return r.json()


@pytest.fixture
def platform_team(api):
    """A team of org_acme, created through the teams API."""
    r = api.put(f"orgs/{ORG}/teams", json={"title": "Platform"})
    assert r.status_code == 201
    return r.json()


@pytest.fixture
def other_org_team(api):
    """A team of org_other, created by its admin Carol."""
    r = api.put("orgs/org_other/teams", json={"title": "Else"}, headers=CAROL)
    assert r.status_code == 201
    return r.json()


def test_create_with_only_a_label_is_a_pending_provider(okta):
    assert okta["object"] == "saml-provider"
    assert okta["label"] == "Okta"
    assert okta["status"] == "pending"
    # The definition's answer requires these three: not set yet, they are empty.
    assert (okta["entityID"], okta["ssoURL"], okta["certificate"]) == ("", "", "")
    assert "defaultTeam" not in okta
    assert okta["defaultRole"] is None
    assert okta["urls"] == {"location": f"https://api.sandbox.test/v1/{SAML}/{okta['id']}"}


def test_create_answers_the_service_urls(okta):
    assert set(okta["service"]) == {"acsURL", "startURL", "entityID"}
    assert okta["service"]["startURL"].endswith(f"/auth/saml/{okta['id']}/start")


def test_created_at_follows_the_sandbox_clock(api):
    api.control("POST", "clock", json={"now": "2031-05-01T10:00:00Z"})
    created = api.post(SAML, json={"label": "Okta"}).json()["createdAt"]
    assert created.startswith("2031-05-01T10:00:0")


def test_provider_with_entity_id_sso_url_and_certificate_is_active(api):
    r = api.post(SAML, json={"label": "Okta", **IDP})
    assert r.json()["status"] == "active"
    assert {k: r.json()[k] for k in IDP} == IDP


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_without_label_is_400(api):
    r = api.post(SAML, json=IDP)
    assert r.status_code == 400
    assert r.json() == {"error": {"code": 400, "message": "label: Field required"}}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_label_over_30_characters_is_400(api):
    r = api.post(SAML, json={"label": "x" * 31})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "label: String should have at most 30 characters"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_an_empty_label_is_400(api):
    r = api.post(SAML, json={"label": ""})
    assert r.json()["error"]["message"] == "label: String should have at least 1 character"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_an_entity_id_over_1024_characters_is_400(api):
    r = api.post(SAML, json={"label": "Okta", "entityID": "e" * 1025})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "entityID: String should have at most 1024 characters"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_certificate_over_10000_characters_is_400(api):
    r = api.post(SAML, json={"label": "Okta", "certificate": "c" * 10001})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        "certificate: String should have at most 10000 characters"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_an_sso_url_that_is_not_a_url_is_400(api):
    r = api.post(SAML, json={"label": "Okta", "ssoURL": "idp.acme.test"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "ssoURL: Value error, must be an http or https URL"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_an_unknown_role_is_400(api):
    r = api.post(SAML, json={"label": "Okta", "defaultRole": "owner"})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("defaultRole: must be one of 'admin'")


def test_create_with_a_default_role(api):
    assert (
        api.post(SAML, json={"label": "Okta", "defaultRole": "read"}).json()["defaultRole"]
        == "read"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_an_unknown_default_team_is_400(api):
    r = api.post(SAML, json={"label": "Okta", "defaultTeam": "team_nope"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "defaultTeam: no team 'team_nope' in this organization"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_with_a_team_of_another_org_is_400(api, other_org_team):
    team_id = other_org_team["id"]
    r = api.post(SAML, json={"label": "Okta", "defaultTeam": team_id})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == f"defaultTeam: no team '{team_id}' in this organization"


def test_default_team_is_embedded_as_a_team(api, platform_team):
    r = api.post(SAML, json={"label": "Okta", "defaultTeam": platform_team["id"]})
    assert r.status_code == 201
    assert r.json()["defaultTeam"] == platform_team


def test_default_team_deleted_since_is_left_out(api, platform_team):
    provider = api.post(SAML, json={"label": "Okta", "defaultTeam": platform_team["id"]}).json()
    api.delete(f"orgs/{ORG}/teams/{platform_team['id']}")
    assert "defaultTeam" not in api.get(f"{SAML}/{provider['id']}").json()


def test_create_by_a_non_admin_is_403(api):
    assert api.post(SAML, json={"label": "Okta"}, headers=EDITOR).status_code == 403


def test_list_is_admin_only(api, okta):
    r = api.get(SAML, headers=EDITOR)
    assert r.status_code == 403
    assert r.json()["error"]["message"] == (
        "reading the SAML providers of organization 'org_acme' needs the admin role"
    )


def test_list_is_a_paged_list_newest_first(api, okta):
    api.post(SAML, json={"label": "Azure"})
    body = api.get(SAML).json()
    assert body["count"] == 2
    assert [p["label"] for p in body["items"]] == ["Azure", "Okta"]


def test_get_by_id(api, okta):
    assert api.get(f"{SAML}/{okta['id']}").json() == okta


def test_get_unknown_provider_is_404(api):
    r = api.get(f"{SAML}/nope")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "saml provider 'nope' not found"}}


def test_provider_of_another_org_is_404_under_that_org(api, okta):
    r = api.get(f"orgs/org_other/saml/{okta['id']}", headers=CAROL)
    assert r.status_code == 404


def test_patch_completes_the_configuration(api, okta):
    r = api.patch(f"{SAML}/{okta['id']}", json=IDP)
    assert r.status_code == 200
    assert r.json()["status"] == "active"
    assert r.json()["label"] == "Okta"


def test_patch_changes_only_given_fields(api):
    provider = api.post(SAML, json={"label": "Okta", "defaultRole": "edit", **IDP}).json()
    patched = api.patch(f"{SAML}/{provider['id']}", json={"label": "Okta SSO"}).json()
    assert patched == {**provider, "label": "Okta SSO"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
@pytest.mark.parametrize("name", ["entityID", "ssoURL", "certificate"])
def test_patch_null_for_a_setting_is_400_as_the_definition_takes_a_string(api, name):
    provider = api.post(SAML, json={"label": "Okta", **IDP}).json()
    r = api.patch(f"{SAML}/{provider['id']}", json={name: None})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == (
        f"{name}: must not be null (set a value; it cannot be cleared)"
    )
    assert api.get(f"{SAML}/{provider['id']}").json()["status"] == "active"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_null_label_is_400(api, okta):
    r = api.patch(f"{SAML}/{okta['id']}", json={"label": None})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "label: must be a string of 1 to 30 characters"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_unknown_default_team_is_400(api, okta):
    r = api.patch(f"{SAML}/{okta['id']}", json={"defaultTeam": "team_nope"})
    assert r.status_code == 400
    assert r.json()["error"]["message"] == "defaultTeam: no team 'team_nope' in this organization"


def test_patch_unknown_provider_is_404(api):
    assert api.patch(f"{SAML}/nope", json={"label": "x"}).status_code == 404


def test_delete_removes_the_provider(api, okta):
    r = api.delete(f"{SAML}/{okta['id']}")
    assert r.status_code == 204
    assert api.get(f"{SAML}/{okta['id']}").status_code == 404


def test_delete_of_a_missing_provider_is_204(api):
    assert api.delete(f"{SAML}/nope").status_code == 204


def test_sso_lists_start_entries_in_creation_order(api, okta):
    azure = api.post(SAML, json={"label": "Azure"}).json()
    body = api.get(f"orgs/{ORG}/sso").json()
    assert body == {
        "items": [
            {"id": okta["id"], "label": "Okta", "startURL": okta["service"]["startURL"]},
            {"id": azure["id"], "label": "Azure", "startURL": azure["service"]["startURL"]},
        ]
    }


def test_sso_is_readable_by_any_member(api, okta):
    r = api.get(f"orgs/{ORG}/sso", headers=EDITOR)
    assert r.status_code == 200
    assert [e["label"] for e in r.json()["items"]] == ["Okta"]
