"""The check of one exchange against the service's pinned definition (contract_definition.py),
on the sandbox's real answers and on exchanges written to depart from it one way each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract_definition import Definition, Mismatch

from conftest import ADMIN_TOKEN, ORG, SyncApi
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.exchange_log import LOG_VARIABLE
from docform_sandbox.store import Store

ERROR_404 = json.dumps({"error": {"code": 404, "message": "nothing there"}})


@pytest.fixture(scope="module")
def definition() -> Definition:
    return Definition()


def only(mismatches: tuple[Mismatch, ...]) -> tuple[str, str, str]:
    assert len(mismatches) == 1, mismatches
    return mismatches[0].where, mismatches[0].path, mismatches[0].message


def test_the_sandboxs_organization_answer_fits(definition: Definition, api: SyncApi) -> None:
    answer = api.get(f"orgs/{ORG}")
    assert answer.status_code == 200
    assert definition.check("GET", f"/v1/orgs/{ORG}", "", None, 200, answer.text) == ()


def test_an_answer_missing_a_required_field_names_it(definition: Definition, api: SyncApi) -> None:
    members = api.get(f"orgs/{ORG}/members").json()
    path = f"/v1/orgs/{ORG}/members"
    assert definition.check("GET", path, "", None, 200, json.dumps(members)) == ()
    del members["items"][1]["role"]
    assert only(definition.check("GET", path, "", None, 200, json.dumps(members))) == (
        "answer",
        "$.items[1]",
        "'role' is a required property",
    )


def test_a_value_outside_its_format_is_a_mismatch(definition: Definition, api: SyncApi) -> None:
    organization = api.get(f"orgs/{ORG}").json()
    organization["createdAt"] = "yesterday"
    text = json.dumps(organization)
    where, path, message = only(definition.check("GET", f"/v1/orgs/{ORG}", "", None, 200, text))
    assert (where, path) == ("answer", "$.createdAt")
    assert "date-time" in message


def test_a_path_the_definition_lacks_is_a_mismatch_of_the_request(
    definition: Definition,
) -> None:
    path = f"/v1/orgs/{ORG}/sites/s1/section-groups/g1/sections"
    mismatches = definition.check("POST", path, "", "{}", 404, ERROR_404)
    assert [m.line() for m in mismatches] == [
        f"POST {path.removeprefix('/v1')} -> 404: request $: the definition has no such operation"
    ]
    assert mismatches[0].on_request


def test_a_request_body_field_of_the_wrong_type_names_its_path(definition: Definition) -> None:
    body = json.dumps({"title": 5})
    answer = json.dumps({"error": {"code": 400, "message": "title: not a string"}})
    assert only(definition.check("PATCH", f"/v1/orgs/{ORG}", "", body, 400, answer))[:2] == (
        "request body",
        "$.title",
    )


def test_a_query_parameter_the_operation_lacks_is_named(definition: Definition) -> None:
    answer = json.dumps({"items": []})
    mismatches = definition.check("GET", f"/v1/orgs/{ORG}/teams", "colour=red", None, 200, answer)
    assert only(mismatches) == (
        "query parameter colour",
        "$",
        "the operation has no such parameter",
    )


def test_a_query_parameter_is_read_as_its_schemas_type(definition: Definition) -> None:
    answer = json.dumps({"items": []})
    path = f"/v1/orgs/{ORG}/teams"
    assert definition.check("GET", path, "limit=100&title=ops", None, 200, answer) == ()
    assert only(definition.check("GET", path, "limit=5000", None, 200, answer)) == (
        "query parameter limit",
        "$",
        "5000 is greater than the maximum of 1000",
    )


def test_a_status_the_operation_does_not_list_is_a_mismatch(definition: Definition) -> None:
    answer = json.dumps({"error": {"code": 418, "message": "teapot"}})
    body = json.dumps({"title": "Acme"})
    assert only(definition.check("PATCH", f"/v1/orgs/{ORG}", "", body, 418, answer)) == (
        "answer status",
        "$",
        "418 is not listed for this operation",
    )


@pytest.mark.parametrize("status", [401, 403, 429, 500, 503])
def test_statuses_any_operation_may_answer_need_the_error_body(
    definition: Definition, status: int
) -> None:
    good = json.dumps({"error": {"code": status, "message": "no"}})
    assert definition.check("GET", "/v1/", "", None, status, good) == ()
    wrong_code = json.dumps({"error": {"code": 400, "message": "no"}})
    assert only(definition.check("GET", "/v1/", "", None, status, wrong_code))[:2] == (
        "answer",
        "$.error.code",
    )


@pytest.mark.parametrize("error", [None, "no", [], 500])
def test_an_error_that_is_no_object_is_the_schemas_mismatch(
    definition: Definition, error: object
) -> None:
    answer = json.dumps({"error": error})
    where, path, message = only(definition.check("GET", "/v1/", "", None, 500, answer))
    assert (where, path) == ("answer", "$.error")
    assert message.endswith("is not of type 'object'")


def test_404_goes_unlisted_only_where_the_path_names_an_object(definition: Definition) -> None:
    assert definition.check("GET", f"/v1/orgs/{ORG}/teams", "", None, 404, ERROR_404) == ()
    assert only(definition.check("GET", "/v1/", "", None, 404, ERROR_404))[0] == "answer status"


def test_literal_segments_win_over_parameters(definition: Definition) -> None:
    operation = definition.operation("GET", f"/orgs/{ORG}/members")
    assert operation is not None and operation.template == "/orgs/{organizationId}/members"
    assert definition.operation("GET", "/no/such/thing") is None


def test_the_sandbox_logs_each_api_exchange_without_its_headers(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "exchanges.jsonl"
    monkeypatch.setenv(LOG_VARIABLE, str(log))
    client = SyncApi(create_app(store, SandboxConfig()), ADMIN_TOKEN)
    try:
        client.patch(f"orgs/{ORG}", params={"x": "1"}, json={"title": "Acme"})
        client.get(f"orgs/{ORG}")
    finally:
        client.close()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["method"], e["path"], e["query"], e["status"]) for e in lines] == [
        ("PATCH", f"/v1/orgs/{ORG}", "x=1", 200),
        ("GET", f"/v1/orgs/{ORG}", "", 200),
    ]
    assert json.loads(lines[0]["request"]) == {"title": "Acme"}
    assert lines[1]["request"] is None  # a GET's body is never read
    assert json.loads(lines[1]["answer"])["title"] == "Acme"
    assert lines[0]["client"].startswith("python-httpx/")  # docform's own says docform/
    assert ADMIN_TOKEN not in log.read_text()


def test_a_temporary_schema_gets_its_own_validator_never_one_of_a_freed_schema(
    definition: Definition,
) -> None:
    """Schemas made and dropped one after another (ids the interpreter reuses) each validate
    as they say."""
    kinds = ["integer", "string", "boolean", "array"]
    samples = {"integer": 1, "string": "s", "boolean": True, "array": []}
    for round_ in range(40):
        kind = kinds[round_ % len(kinds)]
        validator = definition.validator({"type": kind})
        assert [k for k in kinds if validator.is_valid(samples[k])] == [kind]
