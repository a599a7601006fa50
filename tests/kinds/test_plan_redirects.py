"""End to end: a site's redirects (``sites.<s>.redirects``) planned, applied, pruned, drifted and
exported through the CLI against a seeded in-process sandbox.

The seed holds site_docs with no structure and no redirects; each test writes manifests as a
dict dumped to YAML, checks the plan's changes and calls, applies, checks that a second plan is
empty and reads the redirects back through the API.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform_sandbox.seed import Seed, apply_seed
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    plan_request_count,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
DOCS = f"{ORG_PATH}/sites/site_docs"
REDIRECTS = f"{DOCS}/redirects"
GUIDES = "site.docs.section.guides"
MAIN = f"{GUIDES}.space.main"
OLD = "site.docs.redirect./old"


def site_doc(redirects: dict[str, Any] | None) -> dict[str, Any]:
    """Manifests of site_docs with one section (guides) showing the space Handbook (main)."""
    site: dict[str, Any] = {
        "id": "site_docs",
        "sections": {
            "guides": {
                "title": "Guides",
                "path": "guides",
                "spaces": {"main": {"space": "handbook", "path": "handbook"}},
            }
        },
    }
    if redirects is not None:
        site["redirects"] = redirects
    return {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }


def write(manifests: Path, doc: dict[str, Any], prune: dict[str, bool] | None = None) -> Path:
    doc = copy.deepcopy(doc)
    if prune:
        doc["docform"] = {"prune": prune}
    return write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def live_redirects(sandbox: Path) -> list[dict[str, Any]]:
    """site_docs' redirects, A to Z by source."""
    return live_api(sandbox, "GET", f"{REDIRECTS}?orderBy=source")["items"]


def live_structure(sandbox: Path) -> tuple[str, str]:
    """The live ids of the section guides and of its site space main."""
    [section] = live_api(sandbox, "GET", f"{DOCS}/sections")["items"]
    return section["id"], section["siteSpaces"][0]["id"]


def applied_site(sandbox: Path, manifests: Path, redirects: dict[str, Any]) -> tuple[str, str]:
    """site_doc(redirects) applied; returns the live ids of the section and its site space."""
    write(manifests, site_doc(redirects))
    apply(manifests, sandbox)
    return live_structure(sandbox)


def external(url: str) -> dict[str, str]:
    return {"kind": "external", "url": url}


def make_redirect(sandbox: Path, source: str, destination: dict[str, Any], **flags: bool) -> str:
    body = {"source": source, "destination": destination, **flags}
    return live_api(sandbox, "POST", REDIRECTS, body)["id"]


def seed_external_redirects(sandbox: Path, urls: dict[str, str]) -> None:
    """Redirects of site_docs from each source to its external URL, made by the sandbox's
    seeding (as ``docform sandbox seed`` does): a thousand take one transaction, not a
    thousand API calls."""
    redirects = [{"source": source, "url": url} for source, url in urls.items()]
    site = {"id": "site_docs", "title": "Acme Docs", "redirects": redirects}
    seed = Seed.model_validate(
        {"organizations": [{"id": "org_acme", "title": "Acme", "sites": [site]}]}
    )
    with open_store(sandbox) as store:
        apply_seed(store, seed)


# -- create --------------------------------------------------------------------------------------


def test_redirects_to_every_destination_are_created_with_what_they_point_at(
    sandbox: Path, manifests: Path
) -> None:
    write(
        manifests,
        site_doc(
            {
                "/old": {"to": {"section": "guides"}},
                "/handbook/*": {
                    "to": {"section": "guides", "space": "main"},
                    "captureWildcard": True,
                    "permanent": True,
                },
                "/intro": {"to": {"section": "guides", "space": "main", "page": "pg_intro"}},
                "/blog": {"to": "https://blog.acme.test/", "draft": True},
            }
        ),
    )
    plan = plan_json(manifests, sandbox)
    assert [a for a in actions(plan) if ".redirect." in a[0]] == [
        (OLD, "create"),
        ("site.docs.redirect./handbook/*", "create"),
        ("site.docs.redirect./intro", "create"),
        ("site.docs.redirect./blog", "create"),
    ]
    to_section = change(plan, OLD)
    section_id = {"$placeholder": f"{GUIDES}.id"}
    assert calls(to_section) == [
        (
            "POST",
            REDIRECTS,
            {
                "source": "/old",
                "destination": {"kind": "site-section", "siteSectionId": section_id},
            },
        )
    ]
    assert f"{GUIDES}#create" in to_section["depends_on"]
    assert calls(change(plan, "site.docs.redirect./blog")) == [
        (
            "POST",
            REDIRECTS,
            {"source": "/blog", "destination": external("https://blog.acme.test/"), "draft": True},
        )
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    section, site_space = live_structure(sandbox)
    assert [
        (r["source"], r["destination"], r["captureWildcard"], r["permanent"], r["draft"])
        for r in live_redirects(sandbox)
    ] == [
        ("/blog", external("https://blog.acme.test/"), False, False, True),
        ("/handbook/*", {"kind": "site-space", "siteSpaceId": site_space}, True, True, False),
        (
            "/intro",
            {"kind": "site-page", "siteSpaceId": site_space, "pageId": "pg_intro"},
            False,
            False,
            False,
        ),
        ("/old", {"kind": "site-section", "siteSectionId": section}, False, False, False),
    ]


def test_redirect_of_a_site_without_sections_points_at_a_root_site_space(
    sandbox: Path, manifests: Path
) -> None:
    doc = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {
            "docs": {
                "id": "site_docs",
                "spaces": {"main": {"space": "handbook", "path": "handbook"}},
                "redirects": {"/old": {"to": {"space": "main"}}},
            }
        },
    }
    write(manifests, doc)
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    [site_space] = live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]
    [made] = live_redirects(sandbox)
    assert made["destination"] == {"kind": "site-space", "siteSpaceId": site_space["id"]}


def test_a_new_site_its_sections_and_redirects_are_one_plan(sandbox: Path, manifests: Path) -> None:
    doc = site_doc({"/old": {"to": {"section": "guides"}}})
    doc["sites"] = {"help": {**doc["sites"]["docs"], "title": "Help Center"}}
    del doc["sites"]["help"]["id"]
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan)[1:] == [
        ("site.help", "create"),
        ("site.help.section.guides", "create"),
        ("site.help.section.guides.space.main", "create"),
        ("site.help.redirect./old", "create"),
    ]
    made = change(plan, "site.help.redirect./old")
    assert [(method, path) for method, path, _ in calls(made)] == [
        ("POST", f"{ORG_PATH}/sites/${{site.help.id}}/redirects")
    ]
    assert {"site.help#create", "site.help.section.guides#create"} <= set(made["depends_on"])
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    [site] = [
        s for s in live_api(sandbox, "GET", f"{ORG_PATH}/sites")["items"] if s["id"] != "site_docs"
    ]
    [section] = live_api(sandbox, "GET", f"{ORG_PATH}/sites/{site['id']}/sections")["items"]
    [redirect] = live_api(sandbox, "GET", f"{ORG_PATH}/sites/{site['id']}/redirects")["items"]
    assert redirect["destination"] == {"kind": "site-section", "siteSectionId": section["id"]}


# -- change --------------------------------------------------------------------------------------


def test_a_changed_redirect_is_patched_with_only_what_differs(
    sandbox: Path, manifests: Path
) -> None:
    section, _ = applied_site(
        sandbox, manifests, {"/old": {"to": "https://acme.test/old", "permanent": False}}
    )
    [before] = live_redirects(sandbox)
    write(manifests, site_doc({"/old": {"to": {"section": "guides"}, "permanent": True}}))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(OLD, "update")]
    assert calls(change(plan, OLD)) == [
        (
            "PATCH",
            f"{REDIRECTS}/{before['id']}",
            {"destination": {"kind": "site-section", "siteSectionId": section}, "permanent": True},
        )
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    [after] = live_redirects(sandbox)
    assert after["id"] == before["id"]
    assert (after["destination"], after["permanent"]) == (
        {"kind": "site-section", "siteSectionId": section},
        True,
    )


def test_a_flag_left_out_is_not_managed(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/old"}})
    [made] = live_redirects(sandbox)
    live_api(sandbox, "PATCH", f"{REDIRECTS}/{made['id']}", {"permanent": True, "draft": True})
    assert plan_json(manifests, sandbox)["changes"] == []


def test_a_redirect_whose_source_changed_with_formerly_keeps_its_id(
    sandbox: Path, manifests: Path
) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/old"}})
    [before] = live_redirects(sandbox)
    moved = {"/older": {"to": "https://acme.test/old", "formerly": ["/old"]}}
    write(manifests, site_doc(moved))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.redirect./older", "update")]
    assert calls(change(plan, "site.docs.redirect./older")) == [
        ("PATCH", f"{REDIRECTS}/{before['id']}", {"source": "/older"})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert [(r["id"], r["source"]) for r in live_redirects(sandbox)] == [(before["id"], "/older")]


# -- unmanaged and prune -------------------------------------------------------------------------


def test_an_unlisted_redirect_is_unmanaged_and_left_alone(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/old"}})
    other = make_redirect(sandbox, "/legacy/*", external("https://legacy.acme.test"))
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "redirect", "id": other, "title": "/legacy/*"} in plan["unmanaged"]


def test_an_unlisted_redirect_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/old"}})
    other = make_redirect(sandbox, "/legacy/*", external("https://legacy.acme.test"))
    write(manifests, site_doc({"/old": {"to": "https://acme.test/old"}}), {"redirects": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"redirect.~{other}", "delete")]
    assert calls(change(plan, f"redirect.~{other}")) == [("DELETE", f"{REDIRECTS}/{other}", None)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert [r["source"] for r in live_redirects(sandbox)] == ["/old"]


def test_pruned_redirects_count_against_the_deletion_limit(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {})
    for i in range(3):
        make_redirect(sandbox, f"/gone{i}", external("https://acme.test/"))
    doc = site_doc({})
    doc["docform"] = {"prune": {"redirects": True}, "limits": {"maxDeletions": 2}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    result = run(["apply", manifests, "--yes"], sandbox)
    assert result.exit_code == 1, result.output
    assert "[max-deletions] the plan deletes 3 objects, more than the 2 allowed per apply" in (
        result.output
    )
    assert len(live_redirects(sandbox)) == 3


def test_a_site_that_writes_no_redirects_keeps_them_even_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    applied_site(sandbox, manifests, {})
    kept = make_redirect(sandbox, "/kept", external("https://acme.test/"))
    write(manifests, site_doc(None), {"redirects": True})
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert all(u["kind"] != "redirect" for u in plan["unmanaged"])
    assert [r["id"] for r in live_redirects(sandbox)] == [kept]


# -- reading ---------------------------------------------------------------------------------------


def test_redirects_cost_one_paged_list_read_per_site_that_writes_them(
    sandbox: Path, manifests: Path
) -> None:
    applied_site(sandbox, manifests, {})
    seed_external_redirects(sandbox, {f"/moved/{i}": f"https://acme.test/{i}" for i in range(1001)})
    write(manifests, site_doc(None))
    without = plan_request_count(manifests, sandbox)
    listed = {f"/moved/{i}": {"to": f"https://acme.test/{i}"} for i in range(1001)}
    write(manifests, site_doc(listed))
    assert plan_request_count(manifests, sandbox) == without + 2  # 1001 redirects: two pages
    assert_converged(manifests, sandbox)


@pytest.mark.contract_exempt(
    "the sandbox holds a redirect the service would refuse, to check docform stops on its answer",
    answers=True,
)
def test_a_redirect_answer_that_does_not_fit_stops_the_plan(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/"}})
    [made] = live_redirects(sandbox)
    with open_store(sandbox) as store:
        stored = store.get("site-redirect", made["id"])
        assert stored is not None
        store.update("site-redirect", {**stored, "destination": "https://acme.test/"})
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1, result.output
    assert result.output.startswith(
        "Error: reading the live redirects failed, so no plan was made: GET "
        f"{REDIRECTS} failed: the answer does not fit the API: items[0].destination is a "
        "string ('https://acme.test/'), not an object."
    )


# -- drift and export ----------------------------------------------------------------------------


def test_drift_reports_a_redirect_changed_live(sandbox: Path, manifests: Path) -> None:
    applied_site(sandbox, manifests, {"/old": {"to": "https://acme.test/old"}})
    [made] = live_redirects(sandbox)
    live_api(
        sandbox, "PATCH", f"{REDIRECTS}/{made['id']}", {"destination": external("https://x.test/")}
    )
    result = run(["drift", manifests, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    [org] = json.loads(result.stdout)["organizations"]
    assert [(c["address"], c["action"]) for c in org["changes"]] == [(OLD, "update")]


def test_export_writes_redirects_that_plan_back_to_no_changes(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    applied_site(
        sandbox,
        manifests,
        {
            "/old": {"to": {"section": "guides"}, "permanent": True},
            "/page": {"to": {"section": "guides", "space": "main", "page": "pg_1"}},
            "/ext/*": {"to": "https://acme.test/", "captureWildcard": True, "draft": True},
        },
    )
    out = tmp_path / "exported"
    result = run(["export", "org_acme", out], sandbox)
    assert result.exit_code == 0, result.output
    [site] = yaml.safe_load((out / "sites.yaml").read_text(encoding="utf-8"))["sites"].values()
    section = next(iter(site["sections"]))
    site_space = next(iter(site["sections"][section]["spaces"]))
    assert {
        source: {k: v for k, v in r.items() if k != "id"} for source, r in site["redirects"].items()
    } == {
        "/ext/*": {"to": "https://acme.test/", "captureWildcard": True, "draft": True},
        "/old": {"to": {"section": section}, "permanent": True},
        "/page": {"to": {"section": section, "space": site_space, "page": "pg_1"}},
    }
    assert_converged(out, sandbox)
