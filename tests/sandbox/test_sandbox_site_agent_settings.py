"""A site's agent settings in the sandbox: there from the site's creation with the UI's
defaults, replaced whole by a PUT that needs every part and a Document for the instructions
(sandbox/routes/site_agent_settings.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG

SETTINGS = f"orgs/{ORG}/sites/site_docs/agent-settings"
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
EMPTY = {"object": "document", "data": {"schemaVersion": 1}, "nodes": []}
WRITTEN = {
    "scans": {"topics": "never"},
    "findings": {"changeRequests": "always"},
    "editing": {"customInstructions": EMPTY},
}


def test_settings_never_written_are_the_defaults_without_who_or_when(api):
    settings = api.get(SETTINGS).json()
    assert {k: settings[k] for k in ("scans", "findings", "editing")} == {
        "scans": {"topics": "auto"},
        "findings": {"changeRequests": "auto-fixable"},
        "editing": {"customInstructions": EMPTY},
    }
    assert "updatedAt" not in settings and "updatedBy" not in settings


def test_a_put_replaces_them_and_says_who_and_when(api):
    put = api.put(SETTINGS, json=WRITTEN)
    assert put.status_code == 200, put.text
    settings = api.get(SETTINGS).json()
    assert {k: settings[k] for k in WRITTEN} == WRITTEN
    assert settings["updatedBy"] == "u_alice" and settings["updatedAt"]


@pytest.mark.contract_exempt("sends settings the service refuses, to check the refusal")
def test_a_put_without_every_part_or_with_no_document_is_refused(api):
    partial = {k: WRITTEN[k] for k in ("scans", "findings")}
    assert api.put(SETTINGS, json=partial).status_code == 400
    not_a_document = {**WRITTEN, "editing": {"customInstructions": {"nodes": []}}}
    response = api.put(SETTINGS, json=not_a_document)
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("editing.customInstructions: must be")
    assert api.get(SETTINGS).json()["scans"] == {"topics": "auto"}


def test_an_editor_reads_them_and_cannot_change_them(api):
    assert api.get(SETTINGS, headers=EDITOR).status_code == 200
    assert api.put(SETTINGS, json=WRITTEN, headers=EDITOR).status_code == 403
