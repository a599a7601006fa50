"""End to end: a site's visitor authentication (``visitorAuth:``, rotation once) and its share
links (``shareLinks:``, tied by id in docform.lock), planned, applied, drifted and exported
through the CLI against a seeded in-process sandbox."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
AUTH = f"{DOCS}/publishing/auth"
LINKS = f"{DOCS}/share-links"


def manifests(directory: Path, **site: Any) -> Path:
    doc = {"organization": {"id": "org_acme"}, "sites": {"docs": {"id": "site_docs", **site}}}
    return write_manifests(directory, yaml.safe_dump(doc, sort_keys=False))


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    return tmp_path / "manifests"


LOGIN = {"backend": "custom", "fallbackURL": "https://id.acme.test/login"}


# -- visitor authentication ---------------------------------------------------------------------


def test_visitor_auth_is_patched_and_its_key_is_nowhere(sandbox: Path, directory: Path) -> None:
    manifests(directory, visibility="visitor-auth", visitorAuth=LOGIN)
    plan = plan_json(directory, sandbox)
    assert calls(change(plan, "site.docs.visitorAuth", "update")) == [
        ("PATCH", AUTH, {"backend": "custom", "fallbackURL": "https://id.acme.test/login"})
    ]
    output = apply(directory, sandbox).output
    assert "Note: ways in read back: 1 object open and closed as the plan predicted" in output
    live = live_api(sandbox, "GET", AUTH)
    assert live["fallbackURL"] == "https://id.acme.test/login"
    assert_converged(directory, sandbox)
    lock = (directory / "docform.lock").read_text()
    assert live["privateKey"] not in lock and "visitorAuth" not in lock


def test_rotate_regenerates_the_key_once(sandbox: Path, directory: Path) -> None:
    manifests(directory, visitorAuth={**LOGIN, "rotate": "2026-11-01"})
    first_key = live_api(sandbox, "GET", AUTH)["privateKey"]
    plan = plan_json(directory, sandbox)
    rotation = change(plan, "site.docs.visitorAuth", "rotate")
    assert calls(rotation) == [("POST", f"{AUTH}/regenerate", None)]
    assert rotation["fields"] == [{"path": "rotate", "before": None, "after": "2026-11-01"}]
    apply(directory, sandbox)
    second_key = live_api(sandbox, "GET", AUTH)["privateKey"]
    assert second_key != first_key
    assert "site.docs.visitorAuth: 2026-11-01" in (directory / "docform.lock").read_text()
    assert_converged(directory, sandbox)
    apply(directory, sandbox)
    assert live_api(sandbox, "GET", AUTH)["privateKey"] == second_key
    manifests(directory, visitorAuth={**LOGIN, "rotate": "2027-05"})
    assert actions(plan_json(directory, sandbox)) == [("site.docs.visitorAuth", "rotate")]


def test_a_visitor_auth_site_without_visitor_auth_is_refused(
    sandbox: Path, directory: Path
) -> None:
    manifests(directory, visibility="visitor-auth")
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:6" in result.output
    assert "sites.docs.visibility: a visitor-auth site needs visitorAuth:" in result.output


def test_export_writes_visitor_auth_of_visitor_auth_sites(sandbox: Path, tmp_path: Path) -> None:
    live_api(sandbox, "PATCH", DOCS, {"visibility": "visitor-auth"})
    live_api(sandbox, "PATCH", AUTH, {"backend": "custom", "logoutURL": "https://id.acme.test/out"})
    out = tmp_path / "exported"
    assert run(["export", "org_acme", out], sandbox).exit_code == 0
    sites = yaml.safe_load((out / "sites.yaml").read_text())["sites"]
    (site,) = sites.values()
    assert site["visitorAuth"] == {"backend": "custom", "logoutURL": "https://id.acme.test/out"}
    assert_converged(out, sandbox)


# -- share links --------------------------------------------------------------------------------


def test_share_links_are_created_tied_by_id_renamed_and_deactivated(
    sandbox: Path, directory: Path
) -> None:
    manifests(directory, shareLinks={"partners": {"title": "Partners"}, "press": {}})
    plan = plan_json(directory, sandbox)
    assert calls(change(plan, "site.docs.shareLink.partners")) == [
        ("POST", LINKS, {"name": "Partners"})
    ]
    apply(directory, sandbox)
    links = {link["name"]: link for link in live_api(sandbox, "GET", LINKS)["items"]}
    assert set(links) == {"Partners", "press"}
    lock = (directory / "docform.lock").read_text()
    assert f"site.docs.shareLink.partners: {links['Partners']['id']}" in lock
    assert_converged(directory, sandbox)
    manifests(
        directory, shareLinks={"partners": {"title": "Partners 2026", "active": False}, "press": {}}
    )
    plan = plan_json(directory, sandbox)
    partners = links["Partners"]["id"]
    assert calls(change(plan, "site.docs.shareLink.partners")) == [
        ("PATCH", f"{LINKS}/{partners}", {"name": "Partners 2026", "active": False})
    ]
    apply(directory, sandbox)
    assert_converged(directory, sandbox)


def test_unmanaged_share_links_are_listed_then_pruned(sandbox: Path, directory: Path) -> None:
    made = live_api(sandbox, "POST", LINKS, {"name": "Old"})
    manifests(directory, shareLinks={})
    plan = plan_json(directory, sandbox)
    links = [u for u in plan["unmanaged"] if u["kind"] == "share_link"]
    assert links == [{"kind": "share_link", "id": made["id"], "title": "Old"}]
    doc = yaml.safe_load((directory / "main.yaml").read_text())
    doc["docform"] = {"prune": {"shareLinks": True}}
    write_manifests(directory, yaml.safe_dump(doc))
    plan = plan_json(directory, sandbox)
    assert calls(change(plan, f"shareLink.~{made['id']}")) == [
        ("DELETE", f"{LINKS}/{made['id']}", None)
    ]
    apply(directory, sandbox)
    assert live_api(sandbox, "GET", LINKS)["items"] == []


def test_two_links_of_one_name_ask_for_a_pin(sandbox: Path, directory: Path) -> None:
    for _ in range(2):
        live_api(sandbox, "POST", LINKS, {"name": "Partners"})
    manifests(directory, shareLinks={"partners": {"title": "Partners"}})
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 1
    assert "pin" in result.output


def test_export_writes_share_links_and_plans_no_change(sandbox: Path, tmp_path: Path) -> None:
    live_api(sandbox, "POST", LINKS, {"name": "Partners"})
    out = tmp_path / "exported"
    assert run(["export", "org_acme", out], sandbox).exit_code == 0
    (site,) = yaml.safe_load((out / "sites.yaml").read_text())["sites"].values()
    (link,) = site["shareLinks"].values()
    assert link["title"] == "Partners"
    assert_converged(out, sandbox)


# -- what the token needs -----------------------------------------------------------------------


def test_explain_token_names_the_role_and_the_site_auth_scopes(
    sandbox: Path, directory: Path
) -> None:
    manifests(directory, visitorAuth={**LOGIN, "rotate": "2026-11"}, shareLinks={"p": {}})
    result = run(["plan", directory, "--explain-token"], sandbox)
    assert result.exit_code == 0, result.output
    text = result.stdout[result.stdout.index("What the token needs for this plan:") :]
    assert "  role: admin (the plan changes the organization" in text
    reads = "GET /orgs/{id}/sites/{id}/publishing/auth, GET /orgs/{id}/sites/{id}/share-links"
    assert f"    site:auth:read   {reads}\n" in text
    assert "    site:auth:write  PATCH /orgs/{id}/sites/{id}/publishing/auth, POST " in text
    token = plan_json_with(directory, sandbox, "--explain-token")["token"]
    assert token["role"] == "admin"
    assert set(token["scopes"]) == {"site:auth:read", "site:auth:write", "site:read"}
    assert "GET /orgs/{id}/teams" in token["unscoped"]


def test_a_plan_that_only_reads_needs_an_admin_for_the_secrets_it_reads(
    sandbox: Path, directory: Path
) -> None:
    """Every plan reads the integration installations (their configuration is a secret), so
    even one that changes nothing needs an admin's token to be whole; the role of reads without
    secrets is in tests/api/test_api_token_kinds.py."""
    manifests(directory, title="Acme Docs")
    token = plan_json_with(directory, sandbox, "--explain-token")["token"]
    assert token["role"] == "admin"
    assert "integration installations" in token["why"]
    assert "GET /orgs/{id}/installations" in token["unscoped"]
    manifests(directory, title="Acme Docs", shareLinks={})
    token = plan_json_with(directory, sandbox, "--explain-token")["token"]
    assert token["role"] == "admin"


def plan_json_with(directory: Path, sandbox: Path, *options: str) -> dict[str, Any]:
    result = run(["plan", directory, "--json", *options], sandbox)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_an_integration_backend_without_an_integration_is_refused_at_plan(
    sandbox: Path, directory: Path
) -> None:
    manifests(directory, visibility="visitor-auth", visitorAuth={"backend": "integration"})
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 1
    assert (
        "main.yaml:4:3: site.docs.visitorAuth: backend: integration needs a visitor-auth "
        "integration installed on the site, and it has none; install one in the service first, "
        "or use backend: custom" in result.output
    )


def test_after_the_apply_the_user_is_told_where_the_hidden_values_are(
    sandbox: Path, directory: Path
) -> None:
    """A share link's URL and a visitor signing key admit whoever holds them: docform never
    prints them, and after the apply that made them says where to find them."""
    manifests(
        directory,
        visibility="visitor-auth",
        visitorAuth=LOGIN,
        shareLinks={"partners": {"title": "Partners"}},
    )
    output = apply(directory, sandbox).output
    link = live_api(sandbox, "GET", LINKS)["items"][0]
    key = live_api(sandbox, "GET", AUTH)["privateKey"]
    assert key not in output and link["urls"]["published"] not in output
    flat = " ".join(output.split())
    assert (
        "Note: site.docs.shareLink.partners: its URL admits whoever holds it, so docform never "
        "shows it: find it in the service's site settings (Share links), or read it with "
        f"GET {LINKS}"
    ) in flat
    assert (
        "Note: site.docs.visitorAuth: the service holds the site's visitor signing key, which your "
        "sign-in backend needs and docform never shows: find it in the site's settings (visitor "
        f"authentication), or read it with GET {AUTH}"
    ) in flat
    again = apply(directory, sandbox).output
    assert "docform never shows" not in again
