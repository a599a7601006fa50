"""Endpoint families (`endpoint_families`): the organization, its members, teams, SAML, OpenAPI
specs, link invites, the caller, the audit log and agent instructions.
"""

from __future__ import annotations

import pytest
from endpoint_families import (
    ORG,
    Session,
    family,
    object_id,
    page_ids,
    record_calls,
)

from conftest import ADMIN_TOKEN
from docform.workflow.connect import Client

pytestmark = pytest.mark.anyio


@family
async def test_organizations_list_get_and_patch(session: Session) -> None:
    s = session
    orgs = await s.send("GET", "/orgs", 200)
    assert sorted(page_ids(orgs, "organization")) == [ORG, "org_other"]
    org = await s.send("GET", f"/orgs/{ORG}", 200)
    assert (object_id(org, "organization"), org["title"]) == (ORG, "Acme")
    patched = await s.send("PATCH", f"/orgs/{ORG}", 200, json={"title": "Acme Corp"})
    assert (object_id(patched, "organization"), patched["title"]) == (ORG, "Acme Corp")


@family
async def test_members_and_invites(session: Session) -> None:
    s, members = session, f"/orgs/{ORG}/members"
    listed = await s.send("GET", members, 200)
    assert sorted(page_ids(listed, "member")) == ["u_alice", "u_bob", "u_erin"]
    erin = await s.send("GET", f"{members}/u_erin", 200)
    assert (object_id(erin, "member"), erin["role"]) == ("u_erin", "edit")
    assert object_id(erin["user"], "user") == "u_erin"
    patched = await s.send("PATCH", f"{members}/u_erin", 200, json={"role": "review"})
    assert (object_id(patched, "member"), patched["role"]) == ("u_erin", "review")
    sso = await s.send("POST", f"{members}/u_erin/sso", 200)
    assert (object_id(sso, "member"), sso["sso"]) == ("u_erin", True)
    body = {"emails": ["dana@acme.test"], "role": "read"}
    invited = await s.send("POST", f"/orgs/{ORG}/invites", 200, json=body)
    assert set(invited) == {"users", "invited"} and invited["invited"] == 1
    (dana_id,) = invited["users"]
    dana = await s.send("GET", f"{members}/{dana_id}", 200)
    assert (object_id(dana, "member"), dana["user"]["email"]) == (dana_id, "dana@acme.test")
    claims = await s.send("POST", f"/orgs/{ORG}/ping", 200)
    assert isinstance(claims["gitbookVisitorClaims"], str)
    await s.send("DELETE", f"{members}/u_bob", 205)
    after = await s.send("GET", members, 200)
    assert sorted(page_ids(after, "member")) == sorted(["u_alice", "u_erin", dana_id])


@family
async def test_teams_and_team_members(session: Session) -> None:
    s, teams = session, f"/orgs/{ORG}/teams"
    created = await s.send("PUT", teams, 201, json={"title": "Writers", "members": ["u_erin"]})
    team_id = object_id(created, "team")
    assert created["members"] == 1
    assert page_ids(await s.send("GET", teams, 200), "team") == [team_id]
    team = f"{teams}/{team_id}"
    assert object_id(await s.send("GET", team, 200), "team") == team_id
    renamed = await s.send("PATCH", team, 200, json={"title": "Authors"})
    assert (object_id(renamed, "team"), renamed["title"]) == (team_id, "Authors")
    change = {"add": ["bob@acme.test"], "memberships": {"u_erin": {"role": "owner"}}}
    await s.send("PUT", f"{team}/members", 204, json=change)
    await s.send("PUT", f"{team}/members/u_alice", 204, json={"role": "owner"})
    await s.send("DELETE", f"{team}/members/u_bob", 204)
    listed = await s.send("GET", f"{team}/members", 200)
    page_ids(listed, None)
    roles = {i["organization"]["id"]: i["team"]["role"] for i in listed["items"]}
    assert roles == {"u_erin": "owner", "u_alice": "owner"}
    assert all(i["organization"]["object"] == "member" for i in listed["items"])
    await s.send("DELETE", team, 204)
    assert page_ids(await s.send("GET", teams, 200), "team") == []


@family
async def test_the_caller(session: Session) -> None:
    # A seeded user's token, since the session's own token belongs to no user.
    async with Client(f"sandbox:{session.sandbox}", token=ADMIN_TOKEN) as alice:
        record_calls(session, alice)
        user = await alice.get("/user")
        assert session.calls[-1] == ("GET", "/user", 200)
    assert (object_id(user, "user"), user["email"]) == ("u_alice", "alice@acme.test")


@family
async def test_audit_events(session: Session) -> None:
    s, events = session, f"/orgs/{ORG}/audit-events"
    await s.send("PUT", f"/orgs/{ORG}/teams", 201, json={"title": "Audited", "members": []})
    listed = await s.send("GET", events, 200, params={"limit": 5})
    newest = listed["items"][0]
    assert (newest["object"], newest["source"], newest["target"]["label"]) == (
        "audit-event",
        "api",
        "Audited",
    )
    detail = await s.send("GET", f"{events}/{newest['id']}", 200)
    assert detail["id"] == newest["id"] and isinstance(detail["payload"], dict)
    actions = await s.send("GET", f"/orgs/{ORG}/audit-event-actions", 200)
    assert newest["action"] in {item["id"] for item in actions["items"]}


@family
async def test_link_invites(session: Session) -> None:
    s, invites = session, f"/orgs/{ORG}/link-invites"
    invite_id = object_id(await s.send("POST", invites, 201, json={"role": "read"}), "invite")
    assert page_ids(await s.send("GET", invites, 200), "invite") == [invite_id]
    assert (await s.send("GET", f"{invites}/{invite_id}", 200))["role"] == "read"
    patched = await s.send("PATCH", f"{invites}/{invite_id}", 200, json={"role": "edit"})
    assert patched["role"] == "edit"
    await s.send("DELETE", f"{invites}/{invite_id}", 205)


@family
async def test_saml_providers_and_sso(session: Session) -> None:
    s, providers = session, f"/orgs/{ORG}/saml"
    created = await s.send("POST", providers, 201, json={"label": "Okta"})
    provider_id = object_id(created, "saml-provider")
    assert created["status"] == "pending"
    assert page_ids(await s.send("GET", providers, 200), "saml-provider") == [provider_id]
    provider = f"{providers}/{provider_id}"
    assert object_id(await s.send("GET", provider, 200), "saml-provider") == provider_id
    config = {
        "entityID": "https://idp.example.test/metadata",
        "ssoURL": "https://idp.example.test/sso",
        "certificate": "MIIC-test-certificate",
    }
    patched = await s.send("PATCH", provider, 200, json=config)
    assert (object_id(patched, "saml-provider"), patched["status"]) == (provider_id, "active")
    start_url = created["service"]["startURL"]
    sso = await s.send("GET", f"/orgs/{ORG}/sso", 200)
    assert sso == {"items": [{"id": provider_id, "label": "Okta", "startURL": start_url}]}
    await s.send("DELETE", provider, 204)
    assert page_ids(await s.send("GET", providers, 200), "saml-provider") == []


@family
async def test_openapi_specs_and_versions(session: Session) -> None:
    s, specs = session, f"/orgs/{ORG}/openapi"
    old_url, new_url = "https://example.test/pets-1.yaml", "https://example.test/pets-2.yaml"
    body = {"slug": "pets", "source": {"url": old_url}}
    created = await s.send("POST", specs, 201, json=body)
    spec_id, first = object_id(created, "openapi-spec"), created["lastVersion"]
    assert page_ids(await s.send("GET", specs, 200), "openapi-spec") == [spec_id]
    spec = f"{specs}/pets"
    assert object_id(await s.send("GET", spec, 200), "openapi-spec") == spec_id
    updated = await s.send("PUT", spec, 200, json={"source": {"url": new_url}})
    assert (object_id(updated, "openapi-spec"), updated["sourceURL"]) == (spec_id, new_url)
    latest = updated["lastVersion"]
    public = await s.send("PATCH", spec, 200, json={"visibility": "public"})
    assert (object_id(public, "openapi-spec"), public["visibility"]) == (spec_id, "public")
    versions = await s.send("GET", f"{spec}/versions", 200)
    assert sorted(page_ids(versions, "openapi-spec-version")) == sorted([first, latest])
    newest = await s.send("GET", f"{spec}/versions/latest", 200)
    assert (object_id(newest, "openapi-spec-version"), newest["url"]) == (latest, new_url)
    content = await s.send("GET", f"{spec}/versions/latest/content", 200)
    assert content == {"filesystem": {}, "urls": {"source": new_url, "public": new_url}}
    older = await s.send("GET", f"{spec}/versions/{first}", 200)
    assert (object_id(older, "openapi-spec-version"), older["url"]) == (first, old_url)
    content = await s.send("GET", f"{spec}/versions/{first}/content", 200)
    assert content == {"filesystem": {}, "urls": {"source": old_url, "public": old_url}}
    await s.send("DELETE", spec, 204)
    assert page_ids(await s.send("GET", specs, 200), "openapi-spec") == []


@family
async def test_agent_instructions(session: Session) -> None:
    s, path = session, f"/orgs/{ORG}/agent-instructions"
    assert (await s.send("GET", path, 200))["instructions"]["nodes"] == []
    leaf = {"object": "leaf", "text": "Be brief.", "marks": []}
    block = {
        "object": "block",
        "type": "paragraph",
        "nodes": [{"object": "text", "leaves": [leaf]}],
    }
    document = {"object": "document", "data": {}, "nodes": [block]}
    put = await s.send("PUT", path, 200, json={"instructions": document})
    assert (put["object"], put["instructions"]) == ("agent-instructions", document)
