"""Audit events in the sandbox: one per successful write, actor from the token, source api
or ui (``POST /_sandbox/ui``), listed newest first with filters and cursors
(sandbox/audit.py, sandbox/ui.py, sandbox/routes/audit_events.py)."""

from __future__ import annotations

import pytest

from conftest import EDITOR_TOKEN, ORG
from docform_sandbox.audit import describe
from docform_sandbox.routes import ENDPOINTS

EVENTS = f"orgs/{ORG}/audit-events"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def events(api, **query):
    r = api.get(EVENTS, params=query)
    assert r.status_code == 200, r.text
    return r.json()


def in_ui(api, user, method, path, body=None):
    r = api.control("POST", "ui", json={"user": user, "method": method, "path": path, "body": body})
    return r


def test_a_write_through_the_api_is_recorded_with_the_tokens_user(api):
    team = api.put(f"orgs/{ORG}/teams", json={"title": "Platform"}).json()
    (event,) = events(api)["items"]
    assert event["action"] == "organization.team.created"
    assert event["source"] == "api"
    assert event["actor"] == {"type": "user", "id": "u_alice", "label": "Alice Admin"}
    assert event["target"] == {"type": "team", "id": team["id"], "label": "Platform"}
    assert set(event) == {
        "object",
        "id",
        "occurredAt",
        "action",
        "actor",
        "source",
        "target",
        "urls",
    }


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_reads_and_refused_writes_record_nothing(api):
    api.get(f"orgs/{ORG}/teams")
    assert api.put(f"orgs/{ORG}/teams", json={"title": ""}).status_code == 400
    assert events(api)["items"] == []


def test_a_change_in_the_ui_names_the_person_and_the_source(api):
    team = api.put(f"orgs/{ORG}/teams", json={"title": "Platform"}).json()
    r = in_ui(api, "alice@acme.test", "PATCH", f"/orgs/{ORG}/teams/{team['id']}", {"title": "Core"})
    assert r.status_code == 200, r.text
    assert r.json()["title"] == "Core"
    newest = events(api)["items"][0]
    assert newest["source"] == "ui"
    assert newest["action"] == "organization.team.updated"
    assert newest["actor"]["label"] == "Alice Admin"
    assert newest["target"]["label"] == "Core"


def test_the_ui_acts_with_the_persons_rights(api):
    r = in_ui(api, "u_erin", "PATCH", f"/orgs/{ORG}", {"title": "Erin's"})
    assert r.status_code == 403
    assert events(api)["items"] == []


def test_the_ui_route_needs_the_sandbox_admin_token(api):
    body = {"user": "u_alice", "method": "PATCH", "path": f"/orgs/{ORG}", "body": {}}
    r = api.post("http://sandbox.test/_sandbox/ui", json=body)
    assert r.status_code == 401


def test_the_ui_route_names_what_is_wrong(api):
    assert in_ui(api, "nobody@acme.test", "GET", "/user").json()["error"]["message"] == (
        "user: no user 'nobody@acme.test' in the sandbox"
    )
    assert in_ui(api, "u_alice", "GET", "/nowhere").status_code == 404


def test_events_filter_by_target_action_actor_and_time_and_page_newest_first(api):
    ids = [api.put(f"orgs/{ORG}/teams", json={"title": f"T{i}"}).json()["id"] for i in range(5)]
    api.patch(f"orgs/{ORG}/teams/{ids[0]}", json={"title": "First"})
    first = events(api, limit=2)
    assert first["count"] == 6
    assert [e["action"] for e in first["items"]] == [
        "organization.team.updated",
        "organization.team.created",
    ]
    second = events(api, limit=2, page=first["next"]["page"])
    assert [e["target"]["label"] for e in second["items"]] == ["T3", "T2"]
    by_target = events(api, target=ids[0])["items"]
    assert [e["action"] for e in by_target] == [
        "organization.team.updated",
        "organization.team.created",
    ]
    assert events(api, target="First")["count"] == 1
    assert events(api, action="organization.team.updated")["count"] == 1
    assert events(api, actor="Alice Admin")["count"] == 6
    assert events(api, actor="u_erin")["count"] == 0
    when = by_target[0]["occurredAt"]
    assert events(api, to=when, **{"from": when})["count"] >= 1
    assert events(api, **{"from": "2999-01-01T00:00:00Z"})["count"] == 0


def test_one_event_in_detail(api):
    api.put(f"orgs/{ORG}/teams", json={"title": "Platform"})
    (listed,) = events(api)["items"]
    r = api.get(f"{EVENTS}/{listed['id']}")
    assert r.status_code == 200
    detail = r.json()
    assert detail["schemaVersion"] == 1
    assert detail["payload"] == {"fields": ["title"]}
    assert detail["correlationId"]
    assert api.get(f"{EVENTS}/00000000-0000-0000-0000-000000000000").status_code == 404


@pytest.mark.parametrize("limit", [0, 101, "x"])
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_limit_is_1_to_100(api, limit):
    assert api.get(EVENTS, params={"limit": limit}).status_code == 400


def test_only_admins_read_the_audit_log(api):
    r = api.get(EVENTS, headers=EDITOR)
    assert r.status_code == 403
    assert r.json()["error"]["message"] == (
        "reading the audit log needs the organization's admin role"
    )


def test_an_organization_without_audit_logs_answers_403(api, store):
    org = store.get("organization", ORG)
    store.update("organization", {**org, "auditLogs": False})
    r = api.get(EVENTS)
    assert r.status_code == 403
    assert "does not include audit logs" in r.json()["error"]["message"]


def test_the_actions_endpoint_names_every_action_a_route_records(api):
    r = api.get(f"orgs/{ORG}/audit-event-actions")
    assert r.status_code == 200
    served = {item["id"] for item in r.json()["items"]}
    recorded = {d.action for ep in ENDPOINTS if (d := describe(ep)) is not None}
    # A batch route records one action per operation: created, updated, deleted.
    batches = {a for a in recorded if a.endswith(".*")}
    recorded -= batches
    recorded |= {a[:-1] + verb for a in batches for verb in ("created", "updated", "deleted")}
    assert served == recorded
    assert {"organization.team.created", "organization.team.member-added"} <= served
    assert "site.redirect.created" in served


def test_the_organization_says_whether_its_audit_log_is_readable(api, store):
    assert api.get(f"orgs/{ORG}").json()["auditLogs"] is True
    org = store.get("organization", ORG)
    store.update("organization", {**org, "auditLogs": False})
    assert api.get(f"orgs/{ORG}").json()["auditLogs"] is False
