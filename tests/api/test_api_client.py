"""docform.api.ApiClient against the in-process sandbox (``sandbox:FILE`` URLs)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import EDITOR_TOKEN, ORG, SANDBOX_ADMIN_TOKEN, SEED_FILE
from docform.api import (
    ApiClient,
    ApiConfigError,
    ApiStatusError,
    MalformedAnswerError,
    ReadOnlyError,
    resolve_api_url,
    route_of,
)
from docform.api.client import MAX_LIST_ITEMS, ListBounds
from docform.errors import DocformError
from docform.kind_registry import list_names
from docform.workflow.connect import Client
from docform_sandbox.documents import member_document, user_document
from docform_sandbox.http import timestamp
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport

pytestmark = pytest.mark.anyio
WRONG_TOKEN = "tok_wrong_9f8e7d6c5b4a"


@pytest.fixture
def sandbox_file(tmp_path: Path) -> Path:
    """A sandbox file seeded with tests/fixtures/seed.yaml, closed so the client can open it."""
    path = tmp_path / "sandbox.sqlite"
    store = Store(path)
    apply_seed(store, load_seed_file(SEED_FILE))
    store.close()
    return path


@pytest.fixture
async def client(sandbox_file: Path) -> AsyncIterator[ApiClient]:
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN, backoff_base=0.01) as api:
        yield api


async def sandbox_stats(api: ApiClient) -> dict[str, Any]:
    """What the sandbox itself counted (``/_sandbox/stats`` sits outside ``/v1``)."""
    response = await api.http.get(f"{api.root_url}/_sandbox/stats")
    return response.json()


def as_user(sandbox_file: Path, token: str, **options: Any) -> ApiClient:
    """A client whose token the sandbox checks against its seeded tokens, not as an admin."""
    transport = SandboxTransport(sandbox_file)
    return Client("https://api.sandbox.test", token, transport=transport, **options)


# -- answers -----------------------------------------------------------------------------------


async def test_get_returns_the_parsed_answer(client: ApiClient) -> None:
    org = await client.get(f"/orgs/{ORG}")
    assert (org["object"], org["id"], org["title"]) == ("organization", ORG, "Acme")


async def test_path_without_leading_slash_is_relative_to_v1(client: ApiClient) -> None:
    org = await client.get(f"orgs/{ORG}")
    assert org["id"] == ORG


async def test_patch_returns_the_updated_object(client: ApiClient) -> None:
    org = await client.patch(f"/orgs/{ORG}", {"title": "Acme Corp"})
    assert org["title"] == "Acme Corp"
    assert (await client.get(f"/orgs/{ORG}"))["title"] == "Acme Corp"


async def test_put_creates_and_delete_returns_none_on_204(client: ApiClient) -> None:
    team = await client.put(f"/orgs/{ORG}/teams", {"title": "Platform"})
    assert await client.delete(f"/orgs/{ORG}/teams/{team['id']}") is None
    assert await client.list_all(f"/orgs/{ORG}/teams") == []


async def test_request_takes_the_method_in_any_case(client: ApiClient) -> None:
    org = await client.request("get", f"/orgs/{ORG}")
    assert org["id"] == ORG


# -- errors ------------------------------------------------------------------------------------


async def test_404_error_names_the_call_and_says_what_to_do(client: ApiClient) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await client.get("/orgs/org_missing")
    exc = caught.value
    assert (exc.status, exc.method, exc.path) == (404, "GET", "/orgs/org_missing")
    assert exc.api_message == "organization 'org_missing' not found"
    assert str(exc) == (
        "GET /orgs/org_missing failed: 404 organization 'org_missing' not found. Check the ids "
        "in the path: the object does not exist, or the token's user cannot see it."
    )


async def test_403_error_says_to_check_the_token_owner(sandbox_file: Path) -> None:
    async with as_user(sandbox_file, EDITOR_TOKEN) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.patch(f"/orgs/{ORG}", {"title": "Mine"})
    assert str(caught.value) == (
        f"PATCH /orgs/{ORG} failed: 403 changing organization '{ORG}' needs the admin role. "
        "Check that DOCFORM_API_TOKEN belongs to a member of the organization with a role "
        "allowed to do this (most changes need admin)."
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
async def test_400_error_carries_the_field_the_service_names(client: ApiClient) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await client.patch(f"/orgs/{ORG}", {"title": "A"})
    assert caught.value.status == 400
    assert caught.value.api_message.startswith("title: ")


async def test_api_errors_are_docform_errors(client: ApiClient) -> None:
    with pytest.raises(DocformError):
        await client.get("/orgs/org_missing")


async def test_401_with_a_wrong_token_says_to_check_the_token(sandbox_file: Path) -> None:
    async with as_user(sandbox_file, WRONG_TOKEN) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get("/orgs")
    assert caught.value.status == 401
    assert str(caught.value) == (
        "GET /orgs failed: 401 the bearer token is not valid. Check that DOCFORM_API_TOKEN is "
        "set to a valid, unexpired API token for this service."
    )


async def test_the_token_never_appears_in_errors_or_the_client_repr(sandbox_file: Path) -> None:
    async with as_user(sandbox_file, WRONG_TOKEN) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}")
        shown = [str(caught.value), repr(caught.value), repr(api), caught.value.api_message]
    assert all(WRONG_TOKEN not in text for text in shown)
    assert repr(api) == "ApiClient(url='https://api.sandbox.test/v1', read_only=False, token=set)"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
async def test_list_all_on_an_object_is_a_malformed_answer(client: ApiClient) -> None:
    with pytest.raises(MalformedAnswerError) as caught:
        await client.list_all(f"/orgs/{ORG}")
    assert str(caught.value) == (
        f"GET /orgs/{ORG} failed: the answer is not a list (no 'items' array); "
        f"is /orgs/{ORG} a list endpoint?"
    )


# -- read-only ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["PATCH", "POST", "PUT", "DELETE"])
async def test_read_only_client_refuses_changes_before_sending(
    sandbox_file: Path, method: str
) -> None:
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN, read_only=True) as api:
        with pytest.raises(ReadOnlyError) as caught:
            await api.request(method, f"/orgs/{ORG}", json={"title": "Changed"})
        stats = await sandbox_stats(api)
    assert str(caught.value) == (
        f"{method} /orgs/{ORG} refused before sending: this API client is read-only (plan, drift "
        "and export never change the organization). This is a bug in docform; please report it."
    )
    assert (stats["total"], api.stats.requests) == (0, 0)


async def test_read_only_transport_refuses_changes_that_bypass_the_client(
    sandbox_file: Path,
) -> None:
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN, read_only=True) as api:
        with pytest.raises(ReadOnlyError) as caught:
            await api.http.patch(f"orgs/{ORG}", json={"title": "Changed"})
        stats = await sandbox_stats(api)
        org = await api.get(f"/orgs/{ORG}")
    assert caught.value.path == f"/orgs/{ORG}"
    assert stats["total"] == 0
    assert org["title"] == "Acme"


async def test_read_only_client_reads(sandbox_file: Path) -> None:
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN, read_only=True) as api:
        orgs = await api.list_all("/orgs")
    assert sorted(org["id"] for org in orgs) == ["org_acme", "org_other"]


# -- lists -------------------------------------------------------------------------------------


def add_members(sandbox_file: Path, count: int) -> set[str]:
    store = Store(sandbox_file)
    now = timestamp(store.now())
    ids = {f"u_bulk_{i:05d}" for i in range(count)}
    with store.transaction():
        for user_id in ids:
            store.insert("user", user_document(user_id, f"{user_id}@acme.test", None))
            store.insert("member", member_document(ORG, user_id, "read", now), org=ORG)
    store.close()
    return ids


async def test_list_all_reads_2500_members_each_exactly_once(sandbox_file: Path) -> None:
    added = add_members(sandbox_file, 2500)
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN) as api:
        members = await api.list_all(f"/orgs/{ORG}/members")
    ids = [m["id"] for m in members]
    assert len(ids) == 2503
    assert set(ids) == added | {"u_alice", "u_erin", "u_bob"}
    assert api.stats.by_route == {"GET /orgs/{id}/members": 3}


async def test_list_all_keeps_the_callers_filters_on_every_page(sandbox_file: Path) -> None:
    add_members(sandbox_file, 1200)
    async with Client(f"sandbox:{sandbox_file}", SANDBOX_ADMIN_TOKEN) as api:
        admins = await api.list_all(f"/orgs/{ORG}/members", {"role": "admin"})
        readers = await api.list_all(f"/orgs/{ORG}/members", {"role": "read"})
    assert [m["id"] for m in admins] == ["u_alice"]
    assert len(readers) == 1200


# -- accounting --------------------------------------------------------------------------------


async def test_stats_count_requests_by_method_and_route(client: ApiClient) -> None:
    await client.get(f"/orgs/{ORG}")
    await client.get("/orgs/org_other")
    await client.patch(f"/orgs/{ORG}", {"title": "Acme Two"})
    assert client.stats.requests == 3
    assert client.stats.by_method == {"GET": 2, "PATCH": 1}
    assert client.stats.by_route == {"GET /orgs/{id}": 2, "PATCH /orgs/{id}": 1}
    assert client.stats.summary() == "3 API requests (GET 2, PATCH 1)"


def test_route_of_replaces_ids_after_list_names() -> None:
    assert route_of("/orgs/org_acme/teams/t1/members/u_bob", list_names()) == (
        "/orgs/{id}/teams/{id}/members/{id}"
    )
    assert route_of("/orgs/o/sites/s/structure/sort", list_names()) == (
        "/orgs/{id}/sites/{id}/structure/sort"
    )


# -- configuration -----------------------------------------------------------------------------


async def test_from_env_reads_url_and_token(sandbox_file: Path) -> None:
    environ = {"DOCFORM_API_URL": f"sandbox:{sandbox_file}", "DOCFORM_API_TOKEN": EDITOR_TOKEN}
    async with Client.from_env(environ=environ) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}/members/nobody")
    # The sandbox trusts the configured token as an admin, so this is a 404, not a 403.
    assert caught.value.status == 404


async def test_sandbox_url_without_token_uses_the_local_token(sandbox_file: Path) -> None:
    async with Client.from_env(environ={"DOCFORM_API_URL": f"sandbox:{sandbox_file}"}) as api:
        org = await api.get(f"/orgs/{ORG}")
    assert org["permissions"]["admin"] is True


def test_from_env_without_url_says_what_to_set() -> None:
    with pytest.raises(ApiConfigError) as caught:
        Client.from_env(environ={})
    assert str(caught.value) == (
        "DOCFORM_API_URL is not set: set it to the service's root URL (https://api.example.com) "
        "or sandbox:FILE."
    )


def test_real_url_without_token_says_what_to_set() -> None:
    with pytest.raises(ApiConfigError) as caught:
        Client.from_env(environ={"DOCFORM_API_URL": "https://api.example.test"})
    assert str(caught.value) == (
        "DOCFORM_API_TOKEN is not set: set it to an API token of a member of the organization "
        "(docform never takes the token as a command-line argument)."
    )


def test_missing_sandbox_file_says_how_to_create_it(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    with pytest.raises(ApiConfigError) as caught:
        Client(f"sandbox:{missing}")
    assert str(caught.value) == (
        f"the sandbox file {missing} does not exist: create it with "
        f"'docform sandbox seed --data {missing} SEED.yaml'."
    )


def test_api_url_is_the_service_root_and_v1_is_appended() -> None:
    assert resolve_api_url("https://api.example.test") == ("https://api.example.test/v1", None)
    assert resolve_api_url("https://api.example.test/v1/") == ("https://api.example.test/v1", None)
    assert resolve_api_url("http://127.0.0.1:8080") == ("http://127.0.0.1:8080/v1", None)


def test_plain_http_to_a_remote_host_is_refused() -> None:
    with pytest.raises(ApiConfigError) as caught:
        Client("http://user:pw@api.example.test", "tok_secret_123")
    assert str(caught.value) == (
        "DOCFORM_API_URL 'http://***@api.example.test' is plain http: docform sends the API "
        "token over https only (plain http is accepted for loopback addresses); use https://."
    )


def test_client_repr_masks_url_credentials() -> None:
    api = Client(
        "https://bot:pw@api.example.test", "tok_secret_123", transport=httpx.MockTransport(None)
    )
    assert (
        repr(api) == "ApiClient(url='https://***@api.example.test/v1', read_only=False, token=set)"
    )


def endless_list(count: int | None, per_page: int) -> tuple[httpx.MockTransport, list[str]]:
    """A service whose list names a fresh next page forever; it records each page asked."""
    asked: list[str] = []

    def service(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params.get("page", ""))
        items = [{"id": f"t{len(asked)}_{i}", "title": "x"} for i in range(per_page)]
        body: dict[str, Any] = {"items": items, "next": {"page": f"c{len(asked)}"}}
        if count is not None:
            body["count"] = count
        return httpx.Response(200, json=body)

    return httpx.MockTransport(service), asked


@pytest.mark.parametrize(
    ("count", "per_page", "problem"),
    [
        (3, 1, "names a next page after all 3 items its count allows"),
        (2500, 0, "names a next page after a page without items"),
        (None, 1000, "names more pages than its count allows (no count"),
    ],
    ids=["past-count", "empty-pages", "no-count"],
)
async def test_a_list_that_names_next_pages_forever_is_stopped(
    count: int | None, per_page: int, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("docform.api.client.MAX_LIST_PAGES", 5)
    transport, asked = endless_list(count, per_page)
    async with Client("https://service.test", "tok_pages_0123456789", transport=transport,
                      read_only=True) as api:  # fmt: skip
        with pytest.raises(MalformedAnswerError) as caught:
            await api.list_all("/orgs/org_acme/teams")
    assert problem in str(caught.value)
    assert str(caught.value).startswith("GET /orgs/org_acme/teams failed: ")
    assert len(asked) <= 6


@pytest.mark.parametrize("count", [None, 10**9], ids=["no-count", "count-1e9"])
async def test_a_list_of_full_pages_forever_stops_at_the_items_an_organization_holds(
    count: int | None,
) -> None:
    """1,000 new items a page and always a next page: whatever the count says, the read stops
    past `MAX_LIST_ITEMS` (201 pages), with an error naming the list and the variable."""
    transport, asked = endless_list(count, 1000)
    async with Client("https://service.test", "tok_pages_0123456789", transport=transport,
                      read_only=True) as api:  # fmt: skip
        with pytest.raises(MalformedAnswerError) as caught:
            await api.list_all("/orgs/org_acme/teams")
    assert str(caught.value) == (
        "GET /orgs/org_acme/teams failed: the answer holds more than 200,000 items, more than "
        "an organization holds (DOCFORM_API_MAX_LIST_ITEMS); docform stopped reading it"
    )
    assert len(asked) == 201


async def test_a_list_of_few_huge_items_stops_at_its_bytes() -> None:
    transport, asked = endless_list(None, 1)
    bounds = ListBounds(items=MAX_LIST_ITEMS, bytes=1000)
    async with Client("https://service.test", "tok_pages_0123456789", transport=transport,
                      read_only=True, list_bounds=bounds) as api:  # fmt: skip
        with pytest.raises(MalformedAnswerError) as caught:
            await api.list_all("/orgs/org_acme/teams")
    assert "takes more than 0 MiB in all (DOCFORM_API_MAX_LIST_MB)" in str(caught.value)
    assert len(asked) < 30


@pytest.mark.parametrize("value", ["0", "-3", "many", "1.5"])
def test_list_bounds_from_the_environment_are_whole_positive_numbers(value: str) -> None:
    with pytest.raises(ApiConfigError) as caught:
        ListBounds.from_env({"DOCFORM_API_MAX_LIST_ITEMS": value})
    assert str(caught.value) == (
        f"DOCFORM_API_MAX_LIST_ITEMS must be a whole number above 0 (like 200000), not {value!r}"
    )
    assert ListBounds.from_env({"DOCFORM_API_MAX_LIST_MB": "2"}).bytes == 2 * 1024 * 1024
