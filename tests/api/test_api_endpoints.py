"""Every sandbox endpoint, called through docform's own `ApiClient` on a ``sandbox:FILE`` URL.

One test per endpoint family checks, for each call, the HTTP status the sandbox answered and the
answer as a user of the client sees it (parsed JSON, None for 204): its ``object``, its ids, and
the list envelope ``{count, items}``. `test_every_sandbox_endpoint_is_called_by_a_family_test`
runs the family tests again while recording each call below the client, maps the concrete paths
to the sandbox's path templates and fails naming every endpoint of ``ENDPOINTS`` that no family
test calls successfully, so a new endpoint cannot land without a client test.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest

from conftest import ADMIN_TOKEN, ORG, SANDBOX_ADMIN_TOKEN, SEED_FILE
from docform.api import ApiClient, ApiStatusError
from docform.api.urls import API_PREFIX
from docform.workflow.connect import Client
from docform_sandbox.http import Endpoint
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.routes.custom_hostnames import connect
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport

pytestmark = pytest.mark.anyio

ID = re.compile(r"^[a-zA-Z0-9_-]+$")
SITE = "site_docs"
SITES = f"/orgs/{ORG}/sites"
WRONG_TOKEN = "tok_wrong_5a4b3c2d1e0f"


class SentCall(NamedTuple):
    method: str
    path: str
    status: int


@dataclass
class Session:
    """A client on a freshly seeded sandbox, and every call it sent with the answer's status."""

    api: ApiClient
    sandbox: Path
    calls: list[SentCall] = field(default_factory=list)

    async def send(self, method: str, path: str, expect: int, **kwargs: Any) -> Any:
        """Call through the client's method for ``method``; check the status the call got."""
        answer = await getattr(self.api, method.lower())(path, **kwargs)
        assert self.calls[-1] == (method, path, expect), f"{method} {path}: expected {expect}"
        if expect in (204, 205):
            assert answer is None
        return answer


def seeded_sandbox(directory: Path) -> Path:
    """A sandbox file seeded with tests/fixtures/seed.yaml, closed so a client can open it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "sandbox.sqlite"
    store = Store(path)
    apply_seed(store, load_seed_file(SEED_FILE))
    store.close()
    return path


@asynccontextmanager
async def open_session(directory: Path) -> AsyncIterator[Session]:
    """A client on a new seeded sandbox under ``directory``, recording each answered call."""
    sandbox = seeded_sandbox(directory)
    async with Client(f"sandbox:{sandbox}", token=SANDBOX_ADMIN_TOKEN) as api:
        session = Session(api, sandbox)
        record_calls(session, api)
        yield session


def record_calls(session: Session, api: ApiClient) -> None:
    """Add each call ``api`` gets an answer to to ``session.calls``."""

    async def record(response: httpx.Response) -> None:
        request = response.request
        path = request.url.path.removeprefix(API_PREFIX)
        session.calls.append(SentCall(request.method, path, response.status_code))

    api.http.event_hooks["response"].append(record)


@pytest.fixture
async def session(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Session]:
    async with open_session(tmp_path) as opened:
        yield opened
    if request.function in FAMILY_TESTS:
        FAMILY_CALLS[request.function.__name__] = opened.calls


def object_id(answer: Any, kind: str) -> str:
    """The id of an answer that is one API object of ``kind``."""
    assert isinstance(answer, dict)
    assert answer["object"] == kind
    assert ID.match(answer["id"])
    return answer["id"]


def page_ids(answer: Any, kind: str | None) -> list[str]:
    """The item ids of a one-page list answer ``{count, items}`` whose items are ``kind``."""
    assert set(answer) == {"count", "items"}
    assert answer["count"] == len(answer["items"])
    if kind is None:
        return []
    return [object_id(item, kind) for item in answer["items"]]


FamilyTest = Callable[[Session], Awaitable[None]]
FAMILY_TESTS: list[FamilyTest] = []
FAMILY_CALLS: dict[str, list[SentCall]] = {}
"""The calls of each family test run in this process, by its name: the coverage test runs
again only those it finds no calls of (another worker ran them, or only it was selected)."""


def family(test: FamilyTest) -> FamilyTest:
    """Mark a test as one endpoint family's, for the coverage test to run again."""
    FAMILY_TESTS.append(test)
    return test


async def new_space(s: Session, title: str, parent: str | None = None) -> str:
    # The definition gives parent no null: a top-level space is created without one.
    body = {"title": title} if parent is None else {"title": title, "parent": parent}
    return object_id(await s.send("POST", f"/orgs/{ORG}/spaces", 201, json=body), "space")


# -- families ----------------------------------------------------------------------------------


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
async def test_collections(session: Session) -> None:
    s, listing = session, f"/orgs/{ORG}/collections"
    outer = object_id(await s.send("POST", listing, 201, json={"title": "Guides"}), "collection")
    body = {"title": "Inner", "parent": outer}
    inner = object_id(await s.send("POST", listing, 201, json=body), "collection")
    assert sorted(page_ids(await s.send("GET", listing, 200), "collection")) == sorted(
        [outer, inner]
    )
    got = await s.send("GET", f"/collections/{inner}", 200)
    assert (object_id(got, "collection"), got["parent"]) == (inner, outer)
    patched = await s.send("PATCH", f"/collections/{inner}", 200, json={"description": "How"})
    assert (object_id(patched, "collection"), patched["description"]) == (inner, "How")
    moved = await s.send("POST", f"/collections/{inner}/move", 200, json={"parent": None})
    assert object_id(moved, "collection") == inner and "parent" not in moved
    await s.send("DELETE", f"/collections/{outer}", 204)
    assert page_ids(await s.send("GET", listing, 200), "collection") == [inner]


@family
async def test_spaces_with_restore_and_move(session: Session) -> None:
    s = session
    body = {"title": "Guides"}
    coll = object_id(await s.send("POST", f"/orgs/{ORG}/collections", 201, json=body), "collection")
    space_id = await new_space(s, "Handbook", parent=coll)
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == [space_id]
    assert page_ids(await s.send("GET", f"/collections/{coll}/spaces", 200), "space") == [space_id]
    space = f"/spaces/{space_id}"
    got = await s.send("GET", space, 200)
    assert (object_id(got, "space"), got["visibility"]) == (space_id, "in-collection")
    patched = await s.send("PATCH", space, 200, json={"title": "Staff handbook"})
    assert (object_id(patched, "space"), patched["title"]) == (space_id, "Staff handbook")
    moved = await s.send("POST", f"{space}/move", 200, json={"parent": None})
    assert (object_id(moved, "space"), moved["visibility"]) == (space_id, "private")
    await s.send("DELETE", space, 204)
    assert object_id(deleted := await s.send("GET", space, 200), "space") == space_id
    assert "deletedAt" in deleted
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == []
    restored = await s.send("POST", f"{space}/restore", 200)
    assert object_id(restored, "space") == space_id and "deletedAt" not in restored
    assert page_ids(await s.send("GET", f"/orgs/{ORG}/spaces", 200), "space") == [space_id]


@family
async def test_sites(session: Session) -> None:
    s = session
    space_id = await new_space(s, "Portal home")
    body = {"title": "Dev Portal", "spaces": [space_id]}
    created = await s.send("POST", SITES, 201, json=body)
    site_id = object_id(created, "site")
    assert created["basename"] == "dev-portal"
    assert sorted(page_ids(await s.send("GET", SITES, 200), "site")) == sorted([SITE, site_id])
    site = f"{SITES}/{site_id}"
    assert object_id(await s.send("GET", site, 200), "site") == site_id
    patched = await s.send("PATCH", site, 200, json={"visibility": "unlisted"})
    assert (object_id(patched, "site"), patched["visibility"]) == (site_id, "unlisted")
    published = await s.send("POST", f"{site}/publish", 200)
    assert (object_id(published, "site"), published["published"]) == (site_id, True)
    unpublished = await s.send("POST", f"{site}/unpublish", 200)
    assert (object_id(unpublished, "site"), unpublished["published"]) == (site_id, False)
    await s.send("DELETE", site, 205)
    assert page_ids(await s.send("GET", SITES, 200), "site") == [SITE]


@family
async def test_site_structure_and_sort(session: Session) -> None:
    s = session
    first, second = await new_space(s, "First"), await new_space(s, "Second")
    body = {"title": "Ordered", "spaces": [first, second]}
    site = f"{SITES}/{object_id(await s.send('POST', SITES, 201, json=body), 'site')}"
    structure = await s.send("GET", f"{site}/structure", 200)
    assert structure["type"] == "siteSpaces"
    shown = [item["space"]["id"] for item in structure["structure"]]
    assert shown == [first, second]
    a, b = [object_id(item, "site-space") for item in structure["structure"]]
    sort = {
        "item": {"type": "site-space", "id": b},
        "position": {"before": {"type": "site-space", "id": a}},
    }
    sorted_item = await s.send("PATCH", f"{site}/structure/sort", 200, json=sort)
    assert object_id(sorted_item, "site-space") == b
    after = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in after["structure"]] == [b, a]


@family
async def test_section_groups(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    sections = []
    for title in ("Guides", "Reference"):
        space_id = await new_space(s, title)
        made = await s.send("POST", f"{site}/sections", 201, json={"spaceId": space_id})
        sections.append(object_id(made, "site-section"))
    groups = f"{site}/section-groups"
    created = await s.send("POST", groups, 201, json={"title": "Learn"})
    group_id = object_id(created, "site-section-group")
    assert (created["sections"], created["children"]) == ([], [])
    assert page_ids(await s.send("GET", groups, 200), "site-section-group") == [group_id]
    group = f"{groups}/{group_id}"
    renamed = await s.send("PATCH", group, 200, json={"title": "Learning"})
    assert (object_id(renamed, "site-section-group"), renamed["title"]) == (group_id, "Learning")
    joined = await s.send(
        "PATCH", f"{site}/sections/{sections[0]}", 200, json={"siteSectionGroupId": group_id}
    )
    assert (object_id(joined, "site-section"), joined["sectionGroup"]) == (sections[0], group_id)
    inner = await s.send("POST", groups, 201, json={"title": "Inner", "parent": group_id})
    inner_id = object_id(inner, "site-section-group")
    out = await s.send("PATCH", f"{groups}/{inner_id}", 200, json={"parentSectionGroupId": None})
    assert "sectionGroup" not in out
    await s.send("DELETE", f"{groups}/{inner_id}", 204)
    position = {"position": {"after": {"type": "site-section", "id": sections[1]}}}
    moved = await s.send("POST", f"{group}/move", 200, json=position)
    assert object_id(moved, "site-section-group") == group_id
    structure = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in structure["structure"]] == [sections[1], group_id]
    await s.send("DELETE", group, 204)
    assert page_ids(await s.send("GET", groups, 200), "site-section-group") == []


@family
async def test_sections(session: Session) -> None:
    s, listing = session, f"{SITES}/{SITE}/sections"
    made = []
    for title in ("Guides", "Reference"):
        section = await s.send("POST", listing, 201, json={"spaceId": await new_space(s, title)})
        made.append(object_id(section, "site-section"))
        assert len([object_id(x, "site-space") for x in section["siteSpaces"]]) == 1
    guides, reference = made
    assert page_ids(await s.send("GET", listing, 200), "site-section") == [guides, reference]
    patched = await s.send("PATCH", f"{listing}/{guides}", 200, json={"path": "learn"})
    assert (object_id(patched, "site-section"), patched["path"]) == (guides, "learn")
    position = {"position": {"before": {"type": "site-section", "siteSection": guides}}}
    moved = await s.send("POST", f"{listing}/{reference}/move", 200, json=position)
    assert object_id(moved, "site-section") == reference
    assert page_ids(await s.send("GET", listing, 200), "site-section") == [reference, guides]
    await s.send("DELETE", f"{listing}/{guides}", 204)
    assert page_ids(await s.send("GET", listing, 200), "site-section") == [reference]


@family
async def test_site_spaces(session: Session) -> None:
    s, listing = session, f"{SITES}/{SITE}/site-spaces"
    made = []
    for title in ("Intro", "Setup"):
        shown = await s.send("POST", listing, 201, json={"spaceId": await new_space(s, title)})
        made.append(object_id(shown, "site-space"))
    intro, setup = made
    assert page_ids(await s.send("GET", listing, 200), "site-space") == [intro, setup]
    body = {"path": "start", "hidden": True}
    patched = await s.send("PATCH", f"{listing}/{setup}", 200, json=body)
    assert object_id(patched, "site-space") == setup
    assert (patched["path"], patched["hidden"]) == ("start", True)
    position = {"position": {"before": {"type": "site-space", "siteSpace": intro}}}
    moved = await s.send("POST", f"{listing}/{setup}/move", 200, json=position)
    assert object_id(moved, "site-space") == setup
    assert page_ids(await s.send("GET", listing, 200), "site-space") == [setup, intro]
    await s.send("DELETE", f"{listing}/{intro}", 204)
    assert page_ids(await s.send("GET", listing, 200), "site-space") == [setup]


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
async def test_the_caller(session: Session) -> None:
    # A seeded user's token, since the session's own token belongs to no user.
    async with Client(f"sandbox:{session.sandbox}", token=ADMIN_TOKEN) as alice:
        record_calls(session, alice)
        user = await alice.get("/user")
        assert session.calls[-1] == ("GET", "/user", 200)
    assert (object_id(user, "user"), user["email"]) == ("u_alice", "alice@acme.test")


async def exercise_permissions(s: Session, permissions: str) -> None:
    """Every content-permission operation on one object, through ``permissions``."""
    team_body = {"title": "Writers", "members": ["u_bob"]}
    team_id = object_id(await s.send("PUT", f"/orgs/{ORG}/teams", 201, json=team_body), "team")
    await s.send("POST", permissions, 204, json={"role": "read", "teams": [team_id]})
    await s.send("POST", permissions, 204, json={"role": "comment", "users": ["u_erin"]})
    await s.send("PATCH", f"{permissions}/teams/{team_id}", 204, json={"role": "edit"})
    await s.send("PATCH", f"{permissions}/users/u_erin", 204, json={"role": "admin"})
    teams = await s.send("GET", f"{permissions}/teams", 200)
    page_ids(teams, None)
    assert [(i["permission"], object_id(i["team"], "team")) for i in teams["items"]] == [
        ("edit", team_id)
    ]
    users = await s.send("GET", f"{permissions}/users", 200)
    page_ids(users, None)
    assert [(i["permission"], object_id(i["user"], "user")) for i in users["items"]] == [
        ("admin", "u_erin")
    ]
    everyone = await s.send("GET", f"{permissions}/aggregate", 200)
    page_ids(everyone, None)
    roles = {object_id(i["user"], "user"): i["permission"] for i in everyone["items"]}
    assert roles == {"u_alice": "admin", "u_bob": "edit", "u_erin": "admin"}
    await s.send("DELETE", f"{permissions}/teams/{team_id}", 205)
    await s.send("DELETE", f"{permissions}/users/u_erin", 205)
    assert (await s.send("GET", f"{permissions}/users", 200))["items"] == []


@family
async def test_space_permissions(session: Session) -> None:
    space_id = await new_space(session, "Handbook")
    await exercise_permissions(session, f"/spaces/{space_id}/permissions")


@family
async def test_collection_permissions(session: Session) -> None:
    body = {"title": "Guides"}
    made = await session.send("POST", f"/orgs/{ORG}/collections", 201, json=body)
    await exercise_permissions(session, f"/collections/{object_id(made, 'collection')}/permissions")


@family
async def test_site_permissions(session: Session) -> None:
    await exercise_permissions(session, f"{SITES}/{SITE}/permissions")


@family
async def test_site_redirects(session: Session) -> None:
    s, redirects = session, f"{SITES}/{SITE}/redirects"
    body = {"source": "/old/*", "destination": {"kind": "external", "url": "https://x.test"}}
    created = await s.send("POST", redirects, 201, json=body)
    redirect_id = object_id(created, "site-redirect")
    assert page_ids(await s.send("GET", redirects, 200), "site-redirect") == [redirect_id]
    patched = await s.send("PATCH", f"{redirects}/{redirect_id}", 200, json={"permanent": True})
    assert (object_id(patched, "site-redirect"), patched["permanent"]) == (redirect_id, True)
    await s.send("DELETE", f"{redirects}/{redirect_id}", 204)
    assert page_ids(await s.send("GET", redirects, 200), "site-redirect") == []


@family
async def test_visitor_authentication(session: Session) -> None:
    s, auth = session, f"{SITES}/{SITE}/publishing/auth"
    first = await s.send("GET", auth, 200)
    body = {"backend": "custom", "fallbackURL": "https://id.acme.test/"}
    patched = await s.send("PATCH", auth, 200, json=body)
    assert (patched["fallbackURL"], patched["privateKey"]) == (
        body["fallbackURL"],
        first["privateKey"],
    )
    renewed = await s.send("POST", f"{auth}/regenerate", 200)
    assert renewed["privateKey"] != first["privateKey"]


@family
async def test_share_links(session: Session) -> None:
    s, links = session, f"{SITES}/{SITE}/share-links"
    link_id = object_id(await s.send("POST", links, 201, json={"name": "Partners"}), "share-link")
    assert page_ids(await s.send("GET", links, 200), "share-link") == [link_id]
    patched = await s.send("PATCH", f"{links}/{link_id}", 200, json={"active": False})
    assert patched["active"] is False
    await s.send("DELETE", f"{links}/{link_id}", 205)
    assert page_ids(await s.send("GET", links, 200), "share-link") == []


@family
async def test_context_connections(session: Session) -> None:
    s, connections = session, f"{SITES}/{SITE}/context-connections"
    made = await s.send("POST", connections, 201, json={"connector": "builtin:api"})
    connection_id = made["id"]
    listed = await s.send("GET", connections, 200)
    assert [item["id"] for item in listed["items"]] == [connection_id]
    one = await s.send("GET", f"{connections}/{connection_id}", 200)
    assert one["id"] == connection_id
    patched = await s.send("PATCH", f"{connections}/{connection_id}", 200, json={"label": "API"})
    assert patched["label"] == "API"
    await s.send("DELETE", f"{connections}/{connection_id}", 205)
    assert (await s.send("GET", connections, 200))["items"] == []


@family
async def test_mcp_servers(session: Session) -> None:
    s, servers = session, f"{SITES}/{SITE}/mcp-servers"
    body = {"name": "Search", "url": "https://mcp.acme.test/sse", "headers": {}}
    server_id = (await s.send("POST", servers, 201, json=body))["id"]
    listed = await s.send("GET", servers, 200)
    assert [item["id"] for item in listed["items"]] == [server_id]
    assert (await s.send("GET", f"{servers}/{server_id}", 200))["id"] == server_id
    patched = await s.send("PATCH", f"{servers}/{server_id}", 200, json={"transport": "http"})
    assert patched["transport"] == "http"
    await s.send("DELETE", f"{servers}/{server_id}", 205)


@family
async def test_site_channels(session: Session) -> None:
    s, channels = session, f"{SITES}/{SITE}/channels"
    body = {"type": "builtin:slack", "setupSettings": {"allowedChannels": ["docs"]}}
    made = await s.send("POST", channels, 201, json=body)
    assert (made["status"], made["role"]) == ("pending", "support")
    listed = await s.send("GET", channels, 200)
    assert [item["id"] for item in listed["items"]] == [made["id"]]
    assert (await s.send("GET", f"{channels}/{made['id']}", 200))["type"] == "builtin:slack"
    patched = await s.send("PATCH", f"{channels}/{made['id']}", 200, json={"role": "collaborator"})
    assert patched["role"] == "collaborator"
    await s.send("DELETE", f"{channels}/{made['id']}", 205)
    await s.send("DELETE", f"{channels}/{made['id']}", 204)


@family
async def test_site_agent_settings(session: Session) -> None:
    s, settings = session, f"{SITES}/{SITE}/agent-settings"
    made = await s.send("GET", settings, 200)
    assert (made["scans"]["topics"], "updatedAt" in made) == ("auto", False)
    body = {name: made[name] for name in ("scans", "findings", "editing")}
    put = await s.send("PUT", settings, 200, json={**body, "scans": {"topics": "never"}})
    assert put["scans"]["topics"] == "never" and put["findings"] == made["findings"]


@family
async def test_custom_hostnames(session: Session) -> None:
    s, hostname = session, "/custom-hostnames/docs.acme.test"
    store = Store(s.sandbox)
    try:
        connect(store, ORG, "docs.acme.test", SITE)  # as the service's app connects one
        connected = store.get("custom-hostname", "docs.acme.test")
        assert connected is not None
        store.update("custom-hostname", {**connected, "status": "dns_no_cname"})
    finally:
        store.close()
    answer = await s.send("GET", hostname, 200)
    assert (answer["target"], answer["isActive"]) == ({"type": "site", "site": SITE}, True)
    await s.send("PATCH", hostname, 204)
    assert (await s.send("GET", hostname, 200))["status"] == "live"
    await s.send("DELETE", hostname, 205)
    await s.send("DELETE", hostname, 204)


@family
async def test_translation_glossary(session: Session) -> None:
    s, glossary = session, f"/orgs/{ORG}/translations-glossary"
    insert = {"type": "insert", "translations": {"en": "Workspace", "fr": "Espace de travail"}}
    await s.send("PUT", glossary, 204, json={"operations": [insert]})
    (entry,) = (await s.send("GET", glossary, 200))["items"]
    assert (await s.send("GET", f"{glossary}/{entry['id']}", 200))["translations"] == (
        insert["translations"]
    )
    await s.send("PUT", glossary, 204, json={"operations": [{"type": "delete", "id": entry["id"]}]})


@family
async def test_custom_fonts(session: Session) -> None:
    s, fonts = session, f"/orgs/{ORG}/fonts"
    body = {"fontFamily": "Acme Sans", "fontFaces": [{"weight": 400, "storageKey": "a.woff2"}]}
    font_id = (await s.send("PUT", fonts, 201, json=body))["id"]
    listed = await s.send("GET", fonts, 200)
    assert [item["id"] for item in listed["items"]] == [font_id]
    assert (await s.send("GET", f"{fonts}/{font_id}", 200))["fontFamily"] == "Acme Sans"
    renamed = await s.send("POST", f"{fonts}/{font_id}", 201, json={"fontFamily": "Acme"})
    assert renamed["fontFamily"] == "Acme"
    await s.send("DELETE", f"{fonts}/{font_id}", 205)
    await s.send("DELETE", f"{fonts}/{font_id}", 204)


@family
async def test_site_ads_and_styleguide(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    await s.send("POST", f"{site}/ads", 204, json={"status": "in-review", "topic": "webdev"})
    assert (await s.send("GET", site, 200))["ads"]["status"] == "in-review"
    made = await s.send("POST", f"{site}/styleguide", 200, json={})
    assert made is not None


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
async def test_site_customization(session: Session) -> None:
    s, path = session, f"{SITES}/{SITE}/customization"
    document = await s.send("GET", path, 200)
    assert "updatedAt" not in document
    document["styling"]["primaryColor"]["light"] = "#0B5FFF"
    document["ai"] = {"mode": "assistant"}
    document["pageActions"] = {"items": ["pdf"]}
    stored = await s.send("PUT", path, 200, json=document)
    assert stored["styling"]["primaryColor"]["light"] == "#0B5FFF"
    assert stored["pageActions"]["items"] == ["assistant", "pdf"]
    assert "updatedAt" in stored


@family
async def test_site_space_customization(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    space_id = await new_space(s, "Handbook")
    made = await s.send("POST", f"{site}/site-spaces", 201, json={"spaceId": space_id})
    path = f"{site}/site-spaces/{object_id(made, 'site-space')}/customization"
    # The definition answers SiteCustomizationSettings, which has no hasOverrides.
    assert "hasOverrides" not in await s.send("GET", path, 200)
    patched = await s.send("PATCH", path, 200, json={"themes": {"default": "dark"}})
    assert patched["themes"]["default"] == "dark" and "hasOverrides" not in patched
    await s.send("DELETE", path, 205)
    await s.send("DELETE", path, 204)


@family
async def test_site_external_links(session: Session) -> None:
    s, site = session, f"{SITES}/{SITE}"
    section = await s.send(
        "POST", f"{site}/sections", 201, json={"spaceId": await new_space(s, "G")}
    )
    body = {"title": "Status", "url": "https://status.acme.test"}
    created = await s.send("POST", f"{site}/external-links", 201, json=body)
    link_id = object_id(created, "site-external-link")
    patched = await s.send("PATCH", f"{site}/external-links/{link_id}", 200, json={"icon": "x"})
    assert (object_id(patched, "site-external-link"), patched["icon"]) == (link_id, "x")
    sort = {
        "item": {"type": "site-external-link", "id": link_id},
        "position": {"before": {"type": "site-section", "id": section["id"]}},
    }
    await s.send("PATCH", f"{site}/structure/sort", 200, json=sort)
    structure = await s.send("GET", f"{site}/structure", 200)
    assert [item["id"] for item in structure["structure"]] == [link_id, section["id"]]
    await s.send("DELETE", f"{site}/external-links/{link_id}", 205)
    await s.send("DELETE", f"{site}/external-links/{link_id}", 204)


@family
async def test_site_adaptive_schema(session: Session) -> None:
    s, path = session, f"{SITES}/{SITE}/adaptive-schema"
    schema = {
        "type": "object",
        "properties": {"beta": {"type": "boolean", "description": "In the beta"}},
        "additionalProperties": False,
    }
    stored = await s.send("PUT", path, 200, json={"jsonSchema": schema})
    assert stored["object"] == "site-adaptive-schema"
    assert (await s.send("GET", path, 200))["jsonSchema"]["properties"] == schema["properties"]
    switched = await s.send(
        "PATCH", f"{SITES}/{SITE}", 200, json={"adaptiveContent": {"enabled": True}}
    )
    assert switched["adaptiveContent"] == {"enabled": True}


@family
async def test_translations(session: Session) -> None:
    s, translations = session, f"/orgs/{ORG}/translations"
    source = {"space": await new_space(s, "Handbook"), "language": "en"}
    body = {"language": "fr", "source": source}
    made = object_id(await s.send("POST", translations, 201, json=body), "translation")
    assert page_ids(await s.send("GET", translations, 200), "translation") == [made]
    one = f"{translations}/{made}"
    assert object_id(await s.send("GET", one, 200), "translation") == made
    document = {"object": "document", "data": {}, "nodes": []}
    put = await s.send("PUT", one, 200, json={"instructions": document})
    assert put["instructions"]["nodes"] == []
    await s.send("POST", f"{one}/run", 204)
    await s.send("DELETE", one, 204)
    assert page_ids(await s.send("GET", translations, 200), "translation") == []


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


@family
async def test_integration_installations(session: Session) -> None:
    s, org = session, f"/orgs/{ORG}"
    assert (await s.send("GET", "/integrations/segment", 200))["name"] == "segment"
    made = await s.send(
        "POST", "/integrations/segment/installations", 201, json={"organization": ORG}
    )
    one = f"/integrations/segment/installations/{made['id']}"
    listed = await s.send("GET", f"{org}/installations", 200)
    assert [i["installation"]["id"] for i in listed["items"]] == [made["id"]]
    assert (await s.send("GET", one, 200))["status"] == "active"
    patched = await s.send("PATCH", one, 200, json={"configuration": {"siteId": "x"}})
    assert patched["configuration"] == {"siteId": "x"}
    status = f"{org}/integrations/segment/installation_status"
    assert await s.send("GET", status, 200) == {"status": "active"}
    space = await new_space(s, "Handbook")
    for target, body, key in (
        ("spaces", {"space": space}, space),
        ("sites", {"siteId": SITE}, SITE),
    ):
        created = await s.send("POST", f"{one}/{target}", 201, json=body)
        assert created["installation"] == made["id"]
        assert len((await s.send("GET", f"{one}/{target}", 200))["items"]) == 1
        await s.send("GET", f"{one}/{target}/{key}", 200)
        await s.send("PATCH", f"{one}/{target}/{key}", 200, json={"configuration": {"a": 1}})
        await s.send("DELETE", f"{one}/{target}/{key}", 205)
    statuses = await s.send("GET", f"{org}/integrations/installations-status", 200)
    assert [i["integration"]["name"] for i in statuses["items"]] == ["segment"]
    await s.send("DELETE", one, 205)


@family
async def test_git_sync(session: Session) -> None:
    s = session
    space = await new_space(s, "Handbook")
    body = {"provider": "github", "target": {"type": "space", "spaceId": space, "siteId": SITE}}
    made = await s.send("POST", "/git/installations", 201, json=body)
    assert made["status"] == "pending"
    one = f"/git/installations/{made['id']}"
    config = {"repositoryId": 7, "branch": "refs/heads/main"}
    setup = {"provider": "github", "providerConfiguration": config}
    assert (await s.send("PATCH", one, 200, json=setup))["status"] == "active"
    assert (await s.send("GET", one, 200))["id"] == made["id"]
    info = await s.send("GET", f"/spaces/{space}/git/info", 200)
    assert info["installationId"] == made["id"]
    listed = await s.send("GET", f"{SITES}/{SITE}/spaces/git/installations", 200)
    assert [i["id"] for i in listed["items"]] == [made["id"]]
    await s.send("DELETE", one, 205)


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
async def test_a_limit_above_1000_raises_400_with_the_sandbox_message(session: Session) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await session.api.get(f"/orgs/{ORG}/teams", params={"limit": 1001})
    exc = caught.value
    assert (exc.status, exc.method, exc.path) == (400, "GET", f"/orgs/{ORG}/teams")
    assert exc.api_message == "limit: must be an integer from 0 to 1000"
    assert str(exc) == (
        f"GET /orgs/{ORG}/teams failed: 400 limit: must be an integer from 0 to 1000. "
        "The service refused the request as invalid; check the value the message names."
    )


async def test_an_unknown_team_raises_404_naming_it(session: Session) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await session.api.get(f"/orgs/{ORG}/teams/team_missing")
    exc = caught.value
    assert (exc.status, exc.path) == (404, f"/orgs/{ORG}/teams/team_missing")
    assert exc.api_message == "team 'team_missing' not found"


async def test_a_wrong_token_raises_401_without_the_token(tmp_path: Path) -> None:
    sandbox = seeded_sandbox(tmp_path)
    # A transport of its own makes the sandbox check the token instead of trusting it.
    transport = SandboxTransport(sandbox)
    async with Client(f"sandbox:{sandbox}", token=WRONG_TOKEN, transport=transport) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}")
    exc = caught.value
    assert (exc.status, exc.api_message) == (401, "the bearer token is not valid")
    assert WRONG_TOKEN not in f"{exc} {exc!r} {exc.api_message}"


# -- coverage ----------------------------------------------------------------------------------


def template_pattern(template: str) -> re.Pattern[str]:
    """A path template (``/spaces/{spaceId}``) as a pattern of the concrete paths it routes."""
    segments = [
        "[^/]+" if s.startswith("{") and s.endswith("}") else re.escape(s)
        for s in template.split("/")
    ]
    return re.compile("/".join(segments))


def endpoint_of(method: str, path: str) -> Endpoint | None:
    """The endpoint a call reaches; a literal segment (``versions/latest``) beats a variable."""
    matches = [
        ep for ep in ENDPOINTS if ep.method == method and template_pattern(ep.path).fullmatch(path)
    ]
    return min(matches, key=lambda ep: ep.path.count("{"), default=None)


async def test_every_sandbox_endpoint_is_called_by_a_family_test(tmp_path: Path) -> None:
    calls: list[SentCall] = []
    for test in FAMILY_TESTS:
        if test.__name__ not in FAMILY_CALLS:
            async with open_session(tmp_path / test.__name__) as session:
                await test(session)
                FAMILY_CALLS[test.__name__] = session.calls
        calls.extend(FAMILY_CALLS[test.__name__])
    reached = {(c.method, c.path): endpoint_of(c.method, c.path) for c in calls}
    assert [call for call, ep in reached.items() if ep is None] == []
    covered = {
        (ep.method, ep.path)
        for c in calls
        if 200 <= c.status < 300 and (ep := reached[c.method, c.path]) is not None
    }
    missing = [f"{ep.method} {ep.path}" for ep in ENDPOINTS if (ep.method, ep.path) not in covered]
    assert missing == [], f"endpoints no client test calls: {', '.join(missing)}"
