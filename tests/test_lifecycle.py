"""A manifest set using every kind and every field, through its whole life on a seeded sandbox:
created from nothing, then changed, renamed, moved and pruned; each apply converges."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import apply, assert_converged, live_api, plan_json, seeded_sandbox

FULL = Path(__file__).parent / "manifests" / "valid" / "full"
SEEDED_IDS = {"org_acme", "site_docs", "u_erin"}
"""Pinned ids of the corpus that the test seed holds; every other pin is dropped."""


@pytest.fixture
def every_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The corpus of every field (tests/manifests/valid/full), made applicable to the seed."""
    monkeypatch.setenv("DOCFORM_TEST_SPEC_AUTH", "bot:s3cret")
    monkeypatch.setenv("DOCFORM_TEST_AZURE_CERT", "MIIazureCERT")
    directory = tmp_path / "manifests"
    shutil.copytree(FULL, directory)
    for path in directory.rglob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        _drop_unseeded_pins(doc)
        settings = doc.get("docform", {})
        settings.pop("api", None)
        settings.pop("ignore", None)
        settings.get("limits", {}).pop("maxDeletionShare", None)
        if "limits" in settings:
            settings["limits"]["maxDeletions"] = 10  # the second apply prunes one of each kind
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return directory


def _drop_unseeded_pins(node: Any) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("id"), str) and node["id"] not in SEEDED_IDS:
            del node["id"]
        for value in node.values():
            _drop_unseeded_pins(value)
    elif isinstance(node, list):
        for value in node:
            _drop_unseeded_pins(value)


def edit(directory: Path, name: str, change: Any) -> None:
    path = directory / name
    doc = yaml.safe_load(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def test_every_kind_is_created_then_changed_renamed_moved_and_pruned(
    tmp_path: Path, every_kind: Path
) -> None:
    sandbox = seeded_sandbox(tmp_path)
    edit(every_kind, "people.yaml", lambda doc: doc["teams"].update(temp={"title": "Temp"}))
    edit(every_kind, "content.yaml", lambda doc: doc["collections"].update(old={"title": "Old"}))
    edit(every_kind, "sites/docs.yaml", add_group)
    apply(every_kind, sandbox)
    assert_converged(every_kind, sandbox)
    first = ids_by_title(sandbox)

    # A space moves to another collection only when pinned: its key is (collection, title).
    handbook_id = first["space"]["Handbook"]
    edit(every_kind, "content.yaml", lambda doc: rename_and_move_content(doc, handbook_id))
    edit(every_kind, "people.yaml", change_people)
    edit(every_kind, "integrations.yaml", change_integrations)
    edit(every_kind, "sites/docs.yaml", change_sites)
    edit(every_kind, "organization.yaml", lambda doc: doc["organization"].update(title="Acme Inc"))
    plan = plan_json(every_kind, sandbox)
    actions = {(c["address"], c["action"]) for c in plan["changes"]}
    assert {
        ("collection.engineering", "update"),
        ("space.handbook", "move"),
        ("team.platform", "update"),
        ("team.platform", "membership"),
        ("member.bob@acme.test", "update"),
        ("site.docs.sectionGroup.guides", "update"),
    } <= actions
    deleted = sorted(c["kind"] for c in plan["changes"] if c["action"] == "delete")
    assert deleted == ["collection", "openapi", "section", "section_group", "site_space", "team"]
    apply(every_kind, sandbox)
    assert_converged(every_kind, sandbox)

    after = ids_by_title(sandbox)
    assert after["collection"]["Engineering Org"] == first["collection"]["Engineering"]
    assert after["team"]["Platform Team"] == first["team"]["Platform"]
    assert "petstore" not in after["openapi"]
    assert "Temp" not in after["team"] and "Old" not in after["collection"]
    handbook = live_api(sandbox, "GET", f"/spaces/{first['space']['Handbook']}")
    assert handbook["parent"] == first["collection"]["Runbooks"]


def add_group(doc: dict[str, Any]) -> None:
    doc["sites"]["docs"]["sectionGroups"]["extra"] = {"title": "Extra"}


def rename_and_move_content(doc: dict[str, Any], handbook_id: str) -> None:
    del doc["collections"]["old"]
    engineering = doc["collections"]["engineering"]
    engineering.update(title="Engineering Org", formerly=["Engineering"])
    doc["spaces"]["handbook"].update(id=handbook_id, collection="runbooks", emoji="📗")


def change_people(doc: dict[str, Any]) -> None:
    doc["members"]["bob@acme.test"]["role"] = "review"
    del doc["teams"]["temp"]
    platform = doc["teams"]["platform"]
    platform.update(title="Platform Team", formerly=["Platform"])
    platform["members"]["erin@acme.test"] = "member"


def change_integrations(doc: dict[str, Any]) -> None:
    del doc["openapi"]["petstore"]
    doc["saml"]["okta"]["label"] = "Okta SSO"
    doc["saml"]["okta"]["formerly"] = ["Okta"]
    doc["saml"]["okta"]["ssoURL"] = "https://acme.okta.test/app/sso/saml2"


def change_sites(doc: dict[str, Any]) -> None:
    docs = doc["sites"]["docs"]
    docs["sectionGroups"]["guides"].update(title="Handbooks", formerly=["Guides"])
    del docs["sectionGroups"]["extra"]
    docs["sectionGroups"]["guides"]["sections"].remove("operations")
    del docs["sections"]["operations"]
    doc["sites"]["blog"].update(title="Acme Journal", formerly=["Acme Blog"])
    docs["sections"]["start"]["description"] = "The very first steps"
    docs["sections"]["start"]["spaces"]["legacy"]["condition"] = "visitor.claims.v0"


def ids_by_title(sandbox: Path) -> dict[str, dict[str, str]]:
    """Live ids by title (slug for OpenAPI specs) of the kinds the test renames or prunes."""
    org = "/orgs/org_acme"
    lists = {
        "collection": (f"{org}/collections", "title"),
        "space": (f"{org}/spaces", "title"),
        "team": (f"{org}/teams", "title"),
        "openapi": (f"{org}/openapi", "slug"),
    }
    return {
        kind: {item[field]: item["id"] for item in live_api(sandbox, "GET", path)["items"]}
        for kind, (path, field) in lists.items()
    }
