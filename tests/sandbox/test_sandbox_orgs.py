"""Organizations in the sandbox: list, get, patch, auth and errors (sandbox/routes/orgs.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN


def test_list_orgs_shows_only_the_callers_organizations(api):
    body = api.get("orgs").json()
    assert body["count"] == 1
    assert [o["id"] for o in body["items"]] == [ORG]
    assert "next" not in body


def test_get_org_has_object_urls_and_permissions(api):
    org = api.get(f"orgs/{ORG}").json()
    assert org["object"] == "organization"
    assert org["title"] == "Acme"
    assert org["urls"]["location"].endswith(f"/v1/orgs/{ORG}")
    assert org["permissions"]["admin"] is True


def test_patch_org_changes_fields(api):
    r = api.patch(f"orgs/{ORG}", json={"title": "Acme Inc", "emailDomains": ["acme.test"]})
    assert r.status_code == 200
    assert api.get(f"orgs/{ORG}").json()["title"] == "Acme Inc"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_org_title_too_short_is_400_naming_the_field(api):
    r = api.patch(f"orgs/{ORG}", json={"title": "A"})
    assert r.status_code == 400
    assert r.json() == {
        "error": {"code": 400, "message": "title: String should have at least 2 characters"}
    }


def test_patch_org_default_content_must_be_a_site_of_the_org(api):
    r = api.patch(f"orgs/{ORG}", json={"defaultContent": {"type": "site", "site": "nope"}})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("defaultContent.site:")


def test_unknown_org_is_404(api):
    r = api.get("orgs/org_missing")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "organization 'org_missing' not found"}}


def test_missing_token_is_401(api):
    r = api.get(f"orgs/{ORG}", headers={"Authorization": ""})
    assert r.status_code == 401
    assert r.json()["error"]["code"] == 401


def test_token_of_another_org_is_403(api):
    r = api.get(f"orgs/{ORG}", headers={"Authorization": f"Bearer {OTHER_ORG_TOKEN}"})
    assert r.status_code == 403
    assert r.json()["error"]["message"] == "you are not a member of organization 'org_acme'"


@pytest.mark.parametrize("name", ["emailDomains", "sso", "ai", "inviteLinks", "mergeRules"])
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_org_null_for_a_field_every_answer_carries_is_400(api, name):
    """These fields are in every Organization answer; null would leave them out."""
    r = api.patch(f"orgs/{ORG}", json={name: None})
    assert r.status_code == 400
    assert r.json() == {"error": {"code": 400, "message": f"{name}: must not be null"}}
    assert name in api.get(f"orgs/{ORG}").json()


def test_only_those_the_organization_lets_list_installations_may_read_them(api):
    """`permissions.listInstallations` says who may read the installations (an admin), and
    the installations answer so: an editor's read is refused with the API's error body."""
    editor = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
    installed = api.post("integrations/segment/installations", json={"organization": ORG})
    path = f"integrations/segment/installations/{installed.json()['id']}"
    for headers, allowed in (({}, True), (editor, False)):
        permissions = api.get(f"orgs/{ORG}", headers=headers).json()["permissions"]
        assert permissions["listInstallations"] is allowed
        for read in (f"orgs/{ORG}/installations", path, f"{path}/spaces"):
            answer = api.get(read, headers=headers)
            assert answer.status_code == (200 if allowed else 403), read
    refused = api.get(f"orgs/{ORG}/installations", headers=editor).json()
    assert refused == {
        "error": {
            "code": 403,
            "message": "reading the integration installations of organization 'org_acme' needs "
            "the admin role",
        }
    }
