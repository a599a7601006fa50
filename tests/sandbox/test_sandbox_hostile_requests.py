"""The sandbox answers hostile requests with the API's error body and a 4xx, never a 500 with a
traceback: deeply nested bodies, forged cursors, absurd clock moves; and its control routes
(``/_sandbox/*``) answer only the sandbox admin token."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from click.testing import CliRunner

from conftest import ADMIN_TOKEN, ORG, SANDBOX_ADMIN_TOKEN
from docform.cli import cli
from planning import SERVE_TOKEN, served_sandbox


def error(status: int, message: str) -> dict:
    return {"error": {"code": status, "message": message}}


def forged_cursor(parts: list) -> str:
    return base64.urlsafe_b64encode(json.dumps(parts).encode()).decode().rstrip("=")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_body_nested_100000_levels_deep_is_400(api):
    deep = b"[" * 100_000 + b"]" * 100_000
    r = api.put(f"orgs/{ORG}/teams", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.json() == error(400, "request body is nested deeper than 32 levels")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_body_nested_deeper_than_the_limit_but_parsable_is_400(api):
    body = {"title": "Platform", "extra": json.loads("[" * 40 + "]" * 40)}
    r = api.put(f"orgs/{ORG}/teams", json=body)
    assert r.status_code == 400
    assert r.json() == error(400, "request body is nested deeper than 32 levels")


@pytest.mark.contract_exempt(
    "sends a JSON null body, which the definition does not allow, to check how it is read"
)
def test_a_json_null_body_is_still_read_as_null(api):
    r = api.patch(f"orgs/{ORG}", content=b"null", headers={"Content-Type": "application/json"})
    assert r.status_code == 200


@pytest.mark.parametrize("route", ["teams", "members", "collections"])
@pytest.mark.parametrize("number", [2**63, -(2**63) - 1, 10**400])
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_forged_cursor_with_a_huge_integer_is_400(api, route, number):
    for cursor in (forged_cursor([number, 1, 0]), forged_cursor(["x", number, 0])):
        r = api.get(f"orgs/{ORG}/{route}", params={"page": cursor})
        assert r.status_code == 400, r.text
        assert r.json() == error(400, "page: not a cursor this list issued")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_forged_cursor_nested_deeply_is_400(api):
    cursor = base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode()
    r = api.get(f"orgs/{ORG}/teams", params={"page": cursor})
    assert r.status_code == 400
    assert r.json() == error(400, "page: not a cursor this list issued")


@pytest.mark.parametrize("seconds", [1e308, -1e308, 10**400])
def test_advancing_the_clock_beyond_any_date_is_400(api, seconds):
    r = api.control("POST", "clock", json={"advanceSeconds": seconds})
    assert r.status_code == 400
    assert r.json()["error"]["message"].startswith("body: ")
    assert api.control("GET", "clock").status_code == 200


# -- control routes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "route"),
    [("GET", "stats"), ("POST", "stats/reset"), ("GET", "clock"), ("POST", "clock"),
     ("GET", "faults"), ("PUT", "faults")],
)  # fmt: skip
def test_control_routes_refuse_a_seeded_users_token(api, method, route):
    r = api.request(method, f"http://sandbox.test/_sandbox/{route}", json={"spec": "500:1"})
    assert r.status_code == 401
    assert r.json() == error(
        401,
        f"/_sandbox/{route} needs the sandbox admin token (the --token of 'docform sandbox "
        "serve') as 'Authorization: Bearer TOKEN'",
    )
    assert api.get(f"orgs/{ORG}").status_code == 200


def test_control_routes_refuse_a_request_without_a_token(api):
    r = api.request("PUT", "http://sandbox.test/_sandbox/faults", headers={"Authorization": ""})
    assert r.status_code == 401
    assert api.control("GET", "faults").json()["spec"] == ""


def test_control_routes_answer_the_sandbox_admin_token(api):
    r = api.control("PUT", "faults", json={"spec": "503:1#1"})
    assert r.status_code == 200
    assert r.json()["spec"] == "503:1#1"
    assert SANDBOX_ADMIN_TOKEN != ADMIN_TOKEN


def test_the_openapi_description_needs_no_token(api):
    r = api.request(
        "GET", "http://sandbox.test/_sandbox/openapi.json", headers={"Authorization": ""}
    )
    assert r.status_code == 200


def test_serve_refuses_a_host_beyond_loopback_without_allow_remote(tmp_path):
    args = ["sandbox", "serve", "--host", "0.0.0.0", "--data", str(tmp_path / "s.sqlite")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert (
        "Invalid value for '--host': 0.0.0.0 is not a loopback address: other machines could "
        "reach the sandbox, its seeded tokens and data, over plain http. Use 127.0.0.1, or add "
        "--allow-remote if that is what you want."
    ) in result.stderr
    assert not (tmp_path / "s.sqlite").exists()


def test_serve_with_allow_remote_listens_beyond_loopback_and_warns(tmp_path):
    options = ("--host", "0.0.0.0", "--allow-remote")
    with served_sandbox(tmp_path / "served.sqlite", *options) as (root, output):
        anonymous = httpx.get(f"{root}/_sandbox/stats")
        admin = httpx.get(
            f"{root}/_sandbox/stats", headers={"Authorization": f"Bearer {SERVE_TOKEN}"}
        )
    assert anonymous.status_code == 401
    assert admin.status_code == 200
    assert (
        "Warning: the sandbox listens on 0.0.0.0, beyond loopback: anyone who can reach this "
        "port can call it with a seeded token, over plain http. Stop it when done."
    ) in output[0]


LIST_ROUTES = ["teams", "members", "collections", "spaces", "sites", "openapi", "saml"]


@pytest.mark.parametrize("route", LIST_ROUTES)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_forged_cursor_with_a_lone_surrogate_is_400(api, route):
    cursor = base64.urlsafe_b64encode(b'["\\ud800",35,0]').decode().rstrip("=")
    r = api.get(f"orgs/{ORG}/{route}", params={"page": cursor})
    assert r.status_code == 400, r.text
    assert r.json() == error(400, "page: not a cursor this list issued")


def test_an_invite_of_an_email_with_a_lone_surrogate_is_400(api):
    body = b'{"emails": ["a\\ud800@acme.test"], "role": "read"}'
    r = api.post(f"orgs/{ORG}/invites", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == 400


def test_a_clock_at_the_end_of_time_answers_4xx_not_500(api):
    r = api.control("POST", "clock", json={"now": "9999-12-31T23:59:59.999Z"})
    if r.status_code == 400:
        return  # refused outright: nothing can overflow
    assert r.status_code == 200, r.text
    r = api.control("POST", "clock", json={"advanceSeconds": 1})
    assert r.status_code in (200, 400), r.text
    assert api.control("GET", "clock").status_code == 200
    created = api.put(f"orgs/{ORG}/teams", json={"title": "Late"})
    assert created.status_code in (201, 400), created.text
