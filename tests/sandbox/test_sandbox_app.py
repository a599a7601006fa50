"""The sandbox app through HTTP: lists, bodies, routing, auth, rate limits, stats, latency, clock
(sandbox/app.py and sandbox/http.py)."""

import time

import pytest

from conftest import ADMIN_TOKEN, ORG, SANDBOX_ADMIN_TOKEN, SyncApi
from docform_sandbox.app import SandboxConfig, create_app

LIST = f"orgs/{ORG}/openapi"


@pytest.fixture
def make_api(store):
    """A client as Alice on a sandbox with the given configuration."""
    clients = []

    def make(**config):
        config = {"admin_tokens": (SANDBOX_ADMIN_TOKEN,), **config}
        client = SyncApi(create_app(store, SandboxConfig(**config)), ADMIN_TOKEN)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def error(status, message):
    return {"error": {"code": status, "message": message}}


# -- lists -------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["1001", "-1"])
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_limit_outside_0_to_1000_is_400(api, limit):
    r = api.get(LIST, params={"limit": limit})
    assert r.status_code == 400
    assert r.json() == error(400, "limit: must be an integer from 0 to 1000")


def test_limit_1000_is_accepted(api):
    assert api.get(LIST, params={"limit": "1000"}).status_code == 200


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_limit_that_is_not_a_number_is_400(api):
    r = api.get(LIST, params={"limit": "ten"})
    assert r.json() == error(
        400, "limit: Input should be a valid integer, unable to parse string as an integer"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_order_other_than_asc_or_desc_is_400(api):
    r = api.get(LIST, params={"order": "random"})
    assert r.json() == error(400, "order: must be one of 'asc', 'desc'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_garbage_page_cursor_is_400(api):
    r = api.get(LIST, params={"page": "not-a-cursor"})
    assert r.status_code == 400
    assert r.json() == error(400, "page: not a cursor this list issued")


# -- bodies and routing ------------------------------------------------------------------------


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_malformed_json_body_is_400(api):
    r = api.patch(
        f"orgs/{ORG}", content=b'{"title": ', headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400
    assert r.json() == error(400, "request body is not valid JSON")


def test_body_over_1_mb_is_400(api):
    r = api.patch(f"orgs/{ORG}", json={"title": "x" * 1_000_001})
    assert r.status_code == 400
    assert r.json() == error(400, "request body is larger than 1000000 bytes")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_body_of_the_wrong_type_is_400(api):
    r = api.patch(f"orgs/{ORG}", json={"title": 5})
    assert r.json() == error(400, "title: Input should be a valid string")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_unknown_route_is_404_with_the_error_body(api):
    r = api.get("nope/nothing")
    assert r.status_code == 404
    assert r.json() == error(404, "no endpoint GET /v1/nope/nothing")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_wrong_method_is_405_with_the_error_body(api):
    r = api.delete(f"orgs/{ORG}")
    assert r.status_code == 405
    assert r.json() == error(405, f"DELETE is not allowed on /v1/orgs/{ORG}")


# -- authentication ----------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["", "Basic dXNlcjpwYXNz", "Bearer "])
def test_missing_bearer_token_is_401(api, header):
    r = api.get(f"orgs/{ORG}", headers={"Authorization": header})
    assert r.status_code == 401
    assert r.json() == error(401, "missing bearer token in the Authorization header")


def test_unknown_token_is_401(api):
    r = api.get(f"orgs/{ORG}", headers={"Authorization": "Bearer tok_nobody_0123456789"})
    assert r.status_code == 401
    assert r.json() == error(401, "the bearer token is not valid")


def test_admin_token_acts_as_admin_of_every_organization(make_api):
    client = make_api(admin_tokens=("root-token",))
    r = client.get("orgs/org_other", headers={"Authorization": "Bearer root-token"})
    assert r.status_code == 200
    assert r.json()["permissions"]["admin"] is True


# -- rate limits -------------------------------------------------------------------------------


def first_rate_limited(client, attempts=10):
    """The first 429 answer; a one-second window may roll over once, so allow a few tries."""
    for _ in range(attempts):
        r = client.get(f"orgs/{ORG}")
        if r.status_code == 429:
            return r
    raise AssertionError(f"no 429 after {attempts} requests")


def test_over_the_rate_limit_is_429_with_the_service_message(make_api):
    r = first_rate_limited(make_api(rate_limit=2))
    assert r.json() == error(429, "API rate limit exceeded. Please try again in 60 seconds")


def test_rate_limited_answer_has_retry_after_and_rate_limit_headers(make_api):
    before = int(time.time())
    r = first_rate_limited(make_api(rate_limit=2))
    assert r.headers["Retry-After"] == "1"
    assert r.headers["X-RateLimit-Limit"] == "2"
    assert r.headers["X-RateLimit-Remaining"] == "0"
    assert int(r.headers["X-RateLimit-Reset"]) > before


def test_admitted_answer_carries_rate_limit_headers(make_api):
    r = make_api(rate_limit=1000).get(f"orgs/{ORG}")
    assert r.status_code == 200
    assert r.headers["X-RateLimit-Limit"] == "1000"
    assert int(r.headers["X-RateLimit-Remaining"]) < 1000
    assert "Retry-After" not in r.headers


def test_without_a_rate_limit_there_are_no_rate_limit_headers(api):
    assert "X-RateLimit-Limit" not in api.get(f"orgs/{ORG}").headers


# -- stats -------------------------------------------------------------------------------------


def test_stats_count_requests_by_route_method_and_status(api):
    api.get(f"orgs/{ORG}")
    api.get(f"orgs/{ORG}")
    api.get(f"{LIST}/nope")
    assert api.control("GET", "stats").json() == {
        "total": 3,
        "byMethod": {"GET": 3},
        "byRoute": {
            "GET /orgs/{organizationId}": 2,
            "GET /orgs/{organizationId}/openapi/{specSlug}": 1,
        },
        "byStatus": {"200": 2, "404": 1},
    }


def test_stats_reset_starts_the_counts_again(api):
    api.get(f"orgs/{ORG}")
    assert api.control("POST", "stats/reset").status_code == 204
    assert api.control("GET", "stats").json()["total"] == 0


def test_stats_count_rate_limited_answers(make_api):
    client = make_api(rate_limit=2)
    first_rate_limited(client)
    assert client.control("GET", "stats").json()["byStatus"]["429"] >= 1


# -- latency -----------------------------------------------------------------------------------


def test_latency_delays_every_answer(make_api):
    client = make_api(latency_ms=150)
    started = time.perf_counter()
    assert client.get(f"orgs/{ORG}").status_code == 200
    assert time.perf_counter() - started >= 0.15


def test_latency_delays_error_answers_too(make_api):
    client = make_api(latency_ms=150)
    started = time.perf_counter()
    assert client.get("orgs/org_missing").status_code == 404
    assert time.perf_counter() - started >= 0.15


# -- clock -------------------------------------------------------------------------------------


def test_clock_get_answers_the_sandbox_time(api):
    now = api.control("GET", "clock").json()["now"]
    assert now.endswith("Z")
    assert now[:4].isdigit()


def test_clock_post_now_sets_the_time(api):
    r = api.control("POST", "clock", json={"now": "2030-01-01T00:00:00Z"})
    assert r.status_code == 200
    assert r.json()["now"].startswith("2030-01-01T00:00:0")
    assert api.control("GET", "clock").json()["now"].startswith("2030-01-01T00:00:0")


def test_clock_post_advance_seconds_moves_the_time_forward(api):
    api.control("POST", "clock", json={"now": "2030-01-01T00:00:00Z"})
    r = api.control("POST", "clock", json={"advanceSeconds": 86400})
    assert r.json()["now"].startswith("2030-01-02T00:00:0")


def test_clock_post_without_now_or_advance_is_400(api):
    r = api.control("POST", "clock", json={})
    assert r.status_code == 400
    assert r.json() == error(400, "body: give 'now' (ISO 8601) or 'advanceSeconds'")


def test_clock_post_with_a_bad_timestamp_is_400(api):
    r = api.control("POST", "clock", json={"now": "tomorrow"})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("body: ")


def test_clock_is_not_counted_in_stats(api):
    api.control("GET", "clock")
    assert api.control("GET", "stats").json()["total"] == 0


def test_clock_post_now_without_an_offset_is_utc(api):
    r = api.control("POST", "clock", json={"now": "2030-06-01T12:00:00"})
    assert r.status_code == 200
    assert r.json()["now"].startswith("2030-06-01T12:00:0")
