"""The sandbox as served: every /v1 endpoint needs a valid token, and one organization's token
can neither read nor change another organization (sandbox/app.py, sandbox/access.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from conftest import ADMIN_TOKEN, ORG, OTHER_ORG_TOKEN, SANDBOX_ADMIN_TOKEN, SyncApi
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.routes.custom_hostnames import connect

PARAM = re.compile(r"{(\w+)}")


@pytest.fixture
def served(store) -> Iterator:
    """Clients of the app `docform sandbox serve --token ...` runs, one per token."""
    app = create_app(store, SandboxConfig(admin_tokens=(SANDBOX_ADMIN_TOKEN,)))
    clients: list[SyncApi] = []

    def as_token(token: str) -> SyncApi:
        clients.append(SyncApi(app, token))
        return clients[-1]

    yield as_token
    for client in clients:
        client.close()


def path_of(template: str, ids: dict[str, str]) -> str:
    return PARAM.sub(lambda m: ids.get(m.group(1), "x0unknown"), template).removeprefix("/")


def acme_ids(alice: SyncApi) -> dict[str, str]:
    """Real ids of org_acme objects, made by its admin, for every path parameter."""
    org = f"orgs/{ORG}"
    collection = alice.post(f"{org}/collections", json={"title": "Secret"}).json()["id"]
    space = alice.post(f"{org}/spaces", json={"title": "Plans", "parent": collection}).json()
    team = alice.put(f"{org}/teams", json={"title": "Inner", "members": []}).json()["id"]
    spec = {"slug": "internal", "source": {"url": "https://example.test/internal.yaml"}}
    alice.post(f"{org}/openapi", json=spec)
    saml = alice.post(f"{org}/saml", json={"label": "Okta"}).json()["id"]
    site = f"{org}/sites/site_docs"
    section = alice.post(f"{site}/sections", json={"spaceId": space["id"]}).json()
    group = alice.post(f"{site}/section-groups", json={"title": "Group"}).json()["id"]
    destination = {"kind": "site-section", "siteSectionId": section["id"]}
    redirect = alice.post(f"{site}/redirects", json={"source": "/old", "destination": destination})
    for granted_on in (f"spaces/{space['id']}", f"collections/{collection}", site):
        alice.post(f"{granted_on}/permissions", json={"role": "edit", "teams": [team]})
        alice.post(f"{granted_on}/permissions", json={"role": "read", "users": ["u_erin"]})
    return {
        "organizationId": ORG,
        "userId": "u_erin",
        "teamId": team,
        "collectionId": collection,
        "spaceId": space["id"],
        "siteId": "site_docs",
        "siteSectionId": section["id"],
        "siteSectionGroupId": group,
        "siteSpaceId": section["siteSpaces"][0]["id"],
        "specSlug": "internal",
        "samlProviderId": saml,
        "siteRedirectId": redirect.json()["id"],
    }


@pytest.mark.parametrize("token", [None, "not-a-token-0123456789"])
@pytest.mark.contract_exempt("calls every route with made-up ids, to check the refusal")
def test_every_endpoint_refuses_a_request_without_a_valid_token(served, token) -> None:
    client = served(token or "")
    if token is None:
        del client._client.headers["Authorization"]
    for ep in ENDPOINTS:
        answer = client.request(ep.method, path_of(ep.path, {}), json={})
        assert answer.status_code == 401, f"{ep.method} {ep.path}"
        assert answer.json()["error"]["code"] == 401


@pytest.mark.contract_exempt("calls every route with made-up ids, to check the refusal")
def test_another_organizations_token_cannot_read_or_change_it(served, store) -> None:
    alice, carol = served(ADMIN_TOKEN), served(OTHER_ORG_TOKEN)
    ids = acme_ids(alice)
    connect(store, ORG, "docs.acme.test", "site_docs")  # as the service's app connects one
    ids["hostname"] = "docs.acme.test"
    before = alice.get(f"orgs/{ORG}/spaces").json()["items"]
    # A route whose path names no object of the organization is aimed at it by its body.
    aimed = {
        ("POST", "/git/installations"): {
            "provider": "github",
            "target": {"type": "space", "spaceId": ids["spaceId"]},
        }
    }
    for ep in ENDPOINTS:
        body = aimed.get((ep.method, ep.path), {"title": "Taken over"})
        answer = carol.request(ep.method, path_of(ep.path, ids), json=body)
        if ep.path == "/orgs":
            assert [o["id"] for o in answer.json()["items"]] == ["org_other"]
            continue
        if ep.path == "/user":
            assert answer.json()["id"] == "u_carol"
            continue
        assert answer.status_code in (403, 404), f"{ep.method} {ep.path}: {answer.status_code}"
        assert set(answer.json()) == {"error"}
    assert alice.get(f"orgs/{ORG}/spaces").json()["items"] == before
    assert alice.get(f"collections/{ids['collectionId']}").json()["title"] == "Secret"
    site = f"orgs/{ORG}/sites/site_docs"
    assert [r["source"] for r in alice.get(f"{site}/redirects").json()["items"]] == ["/old"]
    assert alice.get(f"{site}/permissions/teams").json()["count"] == 1
