"""End to end: plan and apply of OpenAPI specs and SAML providers.

Live state is arranged through the API of a seeded in-process sandbox; each test checks the
plan's actions, calls and dependencies, applies it, checks that a second plan is empty and
reads the result back through the API.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from live_objects import create_team
from planning import (
    actions,
    apply_and_converge,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
SPEC_URL = "https://example.test/petstore.yaml"
CERT = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----"
NEW_CERT = "-----BEGIN CERTIFICATE-----\nMIIBrotated\n-----END CERTIFICATE-----"


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    directory = tmp_path / "manifests"
    directory.mkdir()
    (directory / "cert.pem").write_text(CERT + "\n", encoding="utf-8")
    (directory / "new.pem").write_text(NEW_CERT + "\n", encoding="utf-8")
    return directory


def write(manifests: Path, doc: dict[str, Any], prune: dict[str, bool] | None = None) -> None:
    doc = {"organization": {"id": "org_acme"}, **copy.deepcopy(doc)}
    if prune:
        doc["docform"] = {"prune": prune}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))


# -- OpenAPI -------------------------------------------------------------------------------------


def create_spec(sandbox: Path, slug: str = "petstore", url: str = SPEC_URL) -> str:
    body = {"slug": slug, "source": {"url": url}}
    return live_api(sandbox, "POST", f"{ORG_PATH}/openapi", body)["id"]


def live_spec(sandbox: Path, slug: str = "petstore") -> dict[str, Any]:
    return live_api(sandbox, "GET", f"{ORG_PATH}/openapi/{slug}")


def spec_doc(**fields: Any) -> dict[str, Any]:
    return {"openapi": {"petstore": {"slug": "petstore", "source": {"url": SPEC_URL}, **fields}}}


def test_openapi_spec_created_then_made_public(sandbox: Path, manifests: Path) -> None:
    write(manifests, spec_doc(visibility="public"))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("openapi.petstore", "create")]
    assert calls(change(plan, "openapi.petstore")) == [
        ("POST", f"{ORG_PATH}/openapi", {"slug": "petstore", "source": {"url": SPEC_URL}}),
        ("PATCH", f"{ORG_PATH}/openapi/petstore", {"visibility": "public"}),
    ]
    apply_and_converge(manifests, sandbox)
    spec = live_spec(sandbox)
    assert (spec["sourceURL"], spec["visibility"]) == (SPEC_URL, "public")


def test_openapi_spec_created_without_visibility_is_one_call(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, spec_doc())
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "openapi.petstore")) == [
        ("POST", f"{ORG_PATH}/openapi", {"slug": "petstore", "source": {"url": SPEC_URL}}),
    ]
    apply_and_converge(manifests, sandbox)
    assert live_spec(sandbox)["visibility"] == "private"


def test_openapi_source_url_change_is_a_put(sandbox: Path, manifests: Path) -> None:
    spec_id = create_spec(sandbox)
    new_url = "https://example.test/petstore-v2.yaml"
    write(manifests, {"openapi": {"petstore": {"slug": "petstore", "source": {"url": new_url}}}})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("openapi.petstore", "update")]
    spec = change(plan, "openapi.petstore")
    assert spec["id"] == spec_id
    assert spec["fields"] == [{"path": "sourceURL", "before": SPEC_URL, "after": new_url}]
    assert calls(spec) == [
        ("PUT", f"{ORG_PATH}/openapi/petstore", {"source": {"url": new_url}}),
    ]
    apply_and_converge(manifests, sandbox)
    assert live_spec(sandbox)["sourceURL"] == new_url


def test_openapi_visibility_change_is_a_patch(sandbox: Path, manifests: Path) -> None:
    create_spec(sandbox)
    write(manifests, spec_doc(visibility="public"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "openapi.petstore", "update")) == [
        ("PATCH", f"{ORG_PATH}/openapi/petstore", {"visibility": "public"}),
    ]
    apply_and_converge(manifests, sandbox)
    assert live_spec(sandbox)["visibility"] == "public"


def test_openapi_entry_renamed_keeps_matching_by_slug(sandbox: Path, manifests: Path) -> None:
    create_spec(sandbox)
    write(manifests, {"openapi": {"pets": {"slug": "petstore", "source": {"url": SPEC_URL}}}})
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert [u for u in plan["unmanaged"] if u["kind"] == "openapi"] == []


def test_openapi_spec_pinned_by_id(sandbox: Path, manifests: Path) -> None:
    spec_id = create_spec(sandbox)
    write(manifests, spec_doc(id=spec_id, visibility="public"))
    plan = plan_json(manifests, sandbox)
    spec = change(plan, "openapi.petstore", "update")
    assert (spec["id"], "pinned id" in spec["action_reason"]) == (spec_id, True)
    apply_and_converge(manifests, sandbox)


@pytest.mark.parametrize("identity", ["id", "formerly"])
def test_openapi_slug_change_is_an_error(sandbox: Path, manifests: Path, identity: str) -> None:
    spec_id = create_spec(sandbox)
    extra = {"id": spec_id} if identity == "id" else {"formerly": ["petstore"]}
    entry = {"slug": "pets", "source": {"url": SPEC_URL}, **extra}
    write(manifests, {"openapi": {"petstore": entry}})
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1, result.output
    assert "openapi.petstore: slug" in result.stderr


def test_unmanaged_openapi_spec_is_listed(sandbox: Path, manifests: Path) -> None:
    spec_id = create_spec(sandbox, "old-api")
    write(manifests, {})
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "openapi", "id": spec_id, "title": "old-api"} in plan["unmanaged"]


def test_unmanaged_openapi_spec_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    spec_id = create_spec(sandbox, "old-api")
    create_spec(sandbox)
    write(manifests, spec_doc(), prune={"openapi": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"openapi.~{spec_id}", "delete")]
    assert calls(change(plan, f"openapi.~{spec_id}")) == [
        ("DELETE", f"{ORG_PATH}/openapi/old-api", None)
    ]
    apply_and_converge(manifests, sandbox)
    slugs = [s["slug"] for s in live_api(sandbox, "GET", f"{ORG_PATH}/openapi")["items"]]
    assert slugs == ["petstore"]


# -- SAML ----------------------------------------------------------------------------------------


OKTA = {
    "label": "Okta",
    "entityID": "http://okta.test/x",
    "ssoURL": "https://okta.test/sso",
    "certificate": {"file": "cert.pem"},
    "defaultRole": "read",
}


def create_provider(sandbox: Path, **fields: Any) -> str:
    body = {"label": "Okta", "entityID": "http://okta.test/x", "ssoURL": "https://okta.test/sso"}
    body |= {"certificate": CERT, "defaultRole": "read", **fields}
    return live_api(sandbox, "POST", f"{ORG_PATH}/saml", body)["id"]


def live_provider(sandbox: Path, provider_id: str) -> dict[str, Any]:
    return live_api(sandbox, "GET", f"{ORG_PATH}/saml/{provider_id}")


def only_provider(sandbox: Path) -> dict[str, Any]:
    [provider] = live_api(sandbox, "GET", f"{ORG_PATH}/saml")["items"]
    return provider


def test_saml_provider_created_with_a_new_default_team(sandbox: Path, manifests: Path) -> None:
    write(
        manifests,
        {
            "teams": {"platform": {"title": "Platform"}},
            "saml": {"okta": {**OKTA, "defaultTeam": "platform"}},
        },
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("team.platform", "create"), ("saml.okta", "create")]
    saml = change(plan, "saml.okta")
    assert saml["depends_on"] == ["team.platform#create"]
    body = {
        "label": "Okta",
        "entityID": "http://okta.test/x",
        "ssoURL": "https://okta.test/sso",
        "certificate": {"$secret": "saml.okta.certificate"},
        "defaultTeam": {"$placeholder": "team.platform.id"},
        "defaultRole": "read",
    }
    assert calls(saml) == [("POST", f"{ORG_PATH}/saml", body)]
    apply_and_converge(manifests, sandbox)
    provider = only_provider(sandbox)
    assert provider["certificate"] == CERT
    assert provider["defaultTeam"]["title"] == "Platform"
    assert provider["status"] == "active"


@pytest.mark.parametrize(
    ("field", "value", "sent"),
    [
        ("entityID", "http://okta.test/y", "http://okta.test/y"),
        ("ssoURL", "https://okta.test/sso2", "https://okta.test/sso2"),
        ("defaultRole", "edit", "edit"),
        ("defaultRole", "guest", None),
    ],
)
def test_saml_field_update(
    sandbox: Path, manifests: Path, field: str, value: str, sent: str | None
) -> None:
    provider_id = create_provider(sandbox)
    write(manifests, {"saml": {"okta": {**OKTA, field: value}}})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("saml.okta", "update")]
    saml = change(plan, "saml.okta")
    assert saml["id"] == provider_id
    assert calls(saml) == [("PATCH", f"{ORG_PATH}/saml/{provider_id}", {field: sent})]
    apply_and_converge(manifests, sandbox)
    assert live_provider(sandbox, provider_id)[field] == sent


def test_saml_certificate_update(sandbox: Path, manifests: Path) -> None:
    provider_id = create_provider(sandbox)
    write(manifests, {"saml": {"okta": {**OKTA, "certificate": {"file": "new.pem"}}}})
    plan = plan_json(manifests, sandbox)
    saml = change(plan, "saml.okta", "update")
    secret = {"$secret": "saml.okta.certificate"}
    assert calls(saml) == [("PATCH", f"{ORG_PATH}/saml/{provider_id}", {"certificate": secret})]
    assert saml["fields"] == [
        {"path": "certificate", "before": "(sensitive)", "after": "(sensitive)"}
    ]
    apply_and_converge(manifests, sandbox)
    assert live_provider(sandbox, provider_id)["certificate"] == NEW_CERT


def test_saml_default_team_set_to_a_live_team(sandbox: Path, manifests: Path) -> None:
    provider_id = create_provider(sandbox)
    team_id = create_team(sandbox, "Platform")
    doc = {"teams": {"platform": {"title": "Platform"}}}
    doc["saml"] = {"okta": {**OKTA, "defaultTeam": "platform"}}
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    saml = change(plan, "saml.okta", "update")
    assert saml["depends_on"] == []
    assert calls(saml) == [("PATCH", f"{ORG_PATH}/saml/{provider_id}", {"defaultTeam": team_id})]
    apply_and_converge(manifests, sandbox)
    assert live_provider(sandbox, provider_id)["defaultTeam"]["id"] == team_id


@pytest.mark.parametrize("identity", ["id", "formerly"])
def test_saml_provider_relabelled(sandbox: Path, manifests: Path, identity: str) -> None:
    provider_id = create_provider(sandbox)
    extra = {"id": provider_id} if identity == "id" else {"formerly": ["Okta"]}
    write(manifests, {"saml": {"okta": {**OKTA, "label": "Okta EU", **extra}}})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("saml.okta", "update")]
    saml = change(plan, "saml.okta")
    assert ("pinned id" if identity == "id" else "formerly") in saml["action_reason"]
    assert calls(saml) == [("PATCH", f"{ORG_PATH}/saml/{provider_id}", {"label": "Okta EU"})]
    apply_and_converge(manifests, sandbox)
    assert live_provider(sandbox, provider_id)["label"] == "Okta EU"


def test_unmanaged_saml_provider_is_listed(sandbox: Path, manifests: Path) -> None:
    provider_id = create_provider(sandbox, label="Legacy")
    write(manifests, {})
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "saml", "id": provider_id, "title": "Legacy"} in plan["unmanaged"]


def test_unmanaged_saml_provider_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    legacy = create_provider(sandbox, label="Legacy")
    okta = create_provider(sandbox)
    write(manifests, {"saml": {"okta": OKTA}}, prune={"saml": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"saml.~{legacy}", "delete")]
    assert calls(change(plan, f"saml.~{legacy}")) == [("DELETE", f"{ORG_PATH}/saml/{legacy}", None)]
    apply_and_converge(manifests, sandbox)
    assert only_provider(sandbox)["id"] == okta
