"""End to end: a site's own lifecycle (kinds/site.py) through the CLI and the sandbox.

Creating a site with its structure and new spaces in one apply, publishing and unpublishing it,
its proxy, the default site space of a site without sections, deleting it (prune, the deletion
rails, protect), export and drift. Each test arranges live state through the API of the seeded
in-process sandbox (site_docs, a premium site that is not published), plans, applies, and reads
the result back through the API.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from planning import (
    actions,
    apply,
    apply_and_converge,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
SITES = f"{ORG_PATH}/sites"
DOCS = f"{SITES}/site_docs"
ORG = {"id": "org_acme"}


def write(manifests: Path, doc: dict[str, Any], prune: dict[str, bool] | None = None) -> Path:
    doc = copy.deepcopy(doc)
    if prune:
        doc["docform"] = {"prune": prune}
    return write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def docs_site(**fields: Any) -> dict[str, Any]:
    """Manifests of the seeded site_docs with ``fields``."""
    return {"organization": ORG, "sites": {"docs": {"id": "site_docs", **fields}}}


def live_site(sandbox: Path, site_id: str = "site_docs") -> dict[str, Any]:
    return live_api(sandbox, "GET", f"{SITES}/{site_id}")


def site_titled(sandbox: Path, title: str) -> dict[str, Any]:
    [found] = [s for s in live_api(sandbox, "GET", SITES)["items"] if s["title"] == title]
    return found


# -- creating ------------------------------------------------------------------------------------

NEW_SITE = {
    "organization": ORG,
    "spaces": {"guide": {"title": "Guide"}, "faq": {"title": "FAQ"}},
    "sites": {
        "help": {
            "title": "Help Center",
            "type": "basic",
            "visibility": "unlisted",
            "basename": "help",
            "defaultLevel": "read",
            "proxy": "help.acme.test/docs",
            "published": True,
            "spaces": {
                "guide": {"space": "guide", "path": "guide"},
                "faq": {"space": "faq", "path": "faq", "default": True},
            },
        }
    },
}


def test_a_new_site_is_created_set_up_and_published_with_its_new_spaces_in_one_apply(
    sandbox: Path, manifests: Path
) -> None:
    write(manifests, NEW_SITE)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("space.guide", "create"),
        ("space.faq", "create"),
        ("site.help", "create"),
        ("site.help.space.guide", "create"),
        ("site.help.space.faq", "create"),
        ("site.help.space.faq", "reorder"),  # both created at once: order set afterwards
    ]
    new_site = f"{SITES}/${{site.help.id}}"
    assert calls(change(plan, "site.help")) == [
        ("POST", SITES, {"title": "Help Center", "visibility": "unlisted", "type": "basic"}),
        (
            "PATCH",
            new_site,
            {"basename": "help", "defaultLevel": "read", "proxy": "help.acme.test/docs"},
        ),
        ("POST", f"{new_site}/publish", None),
    ]
    faq = change(plan, "site.help.space.faq", "create")
    assert calls(faq)[-1] == (
        "PATCH",
        new_site,
        {"defaultSiteSpace": {"$placeholder": "site.help.space.faq.id"}},
    )
    assert {"site.help#create", "space.faq#create"} <= set(faq["depends_on"])
    apply_and_converge(manifests, sandbox)
    made = site_titled(sandbox, "Help Center")
    assert {k: made[k] for k in ("type", "visibility", "basename", "defaultLevel")} == {
        "type": "basic",
        "visibility": "unlisted",
        "basename": "help",
        "defaultLevel": "read",
    }
    assert made["published"] is True
    assert made["proxy"]["origin"] == "help.acme.test/docs"
    site_spaces = live_api(sandbox, "GET", f"{SITES}/{made['id']}/site-spaces")["items"]
    assert [(s["path"], s["default"]) for s in site_spaces] == [("guide", False), ("faq", True)]


def test_a_new_site_left_unpublished_needs_no_publish_call(sandbox: Path, manifests: Path) -> None:
    write(
        manifests, {"organization": ORG, "sites": {"help": {"title": "Help", "published": False}}}
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.help")) == [("POST", SITES, {"title": "Help"})]
    apply_and_converge(manifests, sandbox)
    assert site_titled(sandbox, "Help")["published"] is False


# -- changing ------------------------------------------------------------------------------------


def test_a_site_is_published_then_unpublished(sandbox: Path, manifests: Path) -> None:
    write(manifests, docs_site(published=True))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs", "update")]
    assert calls(change(plan, "site.docs")) == [("POST", f"{DOCS}/publish", None)]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)["published"] is True

    write(manifests, docs_site(published=False))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs")) == [("POST", f"{DOCS}/unpublish", None)]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)["published"] is False


def test_a_site_changed_and_published_patches_first(sandbox: Path, manifests: Path) -> None:
    write(manifests, docs_site(title="Acme Handbook", visibility="share-link", published=True))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs")) == [
        ("PATCH", DOCS, {"title": "Acme Handbook", "visibility": "share-link"}),
        ("POST", f"{DOCS}/publish", None),
    ]
    apply_and_converge(manifests, sandbox)
    site = live_site(sandbox)
    assert (site["title"], site["visibility"], site["published"]) == (
        "Acme Handbook",
        "share-link",
        True,
    )


def test_a_site_proxy_is_set_changed_and_removed_with_null(sandbox: Path, manifests: Path) -> None:
    write(manifests, docs_site(proxy="acme.test/docs"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs")) == [("PATCH", DOCS, {"proxy": "acme.test/docs"})]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)["proxy"]["origin"] == "acme.test/docs"

    write(manifests, docs_site(proxy="docs.acme.test/v2"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs")) == [("PATCH", DOCS, {"proxy": "docs.acme.test/v2"})]
    apply_and_converge(manifests, sandbox)

    write(manifests, docs_site(proxy=None))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs")) == [("PATCH", DOCS, {"proxy": None})]
    apply_and_converge(manifests, sandbox)
    assert "proxy" not in live_site(sandbox)


def test_a_site_without_proxy_in_its_entry_keeps_its_live_proxy(
    sandbox: Path, manifests: Path
) -> None:
    live_api(sandbox, "PATCH", DOCS, {"proxy": "acme.test/docs"})
    write(manifests, docs_site(title="Acme Docs"))
    assert plan_json(manifests, sandbox)["changes"] == []


def test_another_root_site_space_is_made_the_site_default(sandbox: Path, manifests: Path) -> None:
    first = live_api(sandbox, "POST", f"{ORG_PATH}/spaces", {"title": "First"})["id"]
    second = live_api(sandbox, "POST", f"{ORG_PATH}/spaces", {"title": "Second"})["id"]
    made = [
        live_api(sandbox, "POST", f"{DOCS}/site-spaces", {"spaceId": space})["id"]
        for space in (first, second)
    ]
    live = {s["id"]: s["path"] for s in live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]}
    paths = [live[s] for s in made]
    doc = docs_site(
        spaces={
            "first": {"space": "first", "path": paths[0]},
            "second": {"space": "second", "path": paths[1], "default": True},
        }
    )
    doc["spaces"] = {"first": {"title": "First"}, "second": {"title": "Second"}}
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.space.second", "update")]
    assert calls(change(plan, "site.docs.space.second")) == [
        ("PATCH", DOCS, {"defaultSiteSpace": made[1]})
    ]
    apply_and_converge(manifests, sandbox)
    live = live_api(sandbox, "GET", f"{DOCS}/site-spaces")["items"]
    assert [s["default"] for s in live] == [False, True]


# -- validation ----------------------------------------------------------------------------------


def test_a_proxy_with_a_scheme_is_a_located_validation_error(
    manifests: Path, sandbox: Path
) -> None:
    write_manifests(
        manifests,
        "organization: {id: org_acme}\n"
        "sites:\n"
        "  docs:\n"
        "    id: site_docs\n"
        "    proxy: https://acme.test/docs\n",
    )
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        f"{manifests / 'main.yaml'}:5:5: sites.docs.proxy: must be a host and a path without a "
        "scheme, such as 'example.com/docs' (path segments of letters, digits, _ and -; not "
        "'https://acme.test/docs')"
    ) in result.output


# -- deleting ------------------------------------------------------------------------------------


def old_site(sandbox: Path) -> str:
    return live_api(sandbox, "POST", SITES, {"title": "Old Site"})["id"]


def test_a_site_left_out_of_the_manifests_is_deleted_only_under_prune_sites(
    sandbox: Path, manifests: Path
) -> None:
    other = old_site(sandbox)
    write(manifests, docs_site())
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "site", "id": other, "title": "Old Site"} in plan["unmanaged"]

    write(manifests, docs_site(), prune={"sites": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"site.~{other}", "delete")]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_api(sandbox, "GET", SITES)["items"]] == ["site_docs"]


def test_deleting_a_site_counts_against_max_deletions(sandbox: Path, manifests: Path) -> None:
    other = old_site(sandbox)
    write(manifests, docs_site(), prune={"sites": True})
    result = run(["apply", manifests, "--yes", "--max-deletions", "0"], sandbox)
    assert result.exit_code == 1
    assert (
        "[max-deletions] the plan deletes 1 objects, more than the 0 allowed per apply "
        "(--max-deletions N or limits.maxDeletions raises it)"
    ) in result.stderr
    assert live_site(sandbox, other)["title"] == "Old Site"


def renamed_site(sandbox: Path, manifests: Path, protect: bool) -> str:
    """A site created by docform, then its entry retitled with no tie to its live object (no
    pin, no ``formerly``, no lock file), under ``prune: {sites: true}``. Returns its live id."""
    entry: dict[str, Any] = {"title": "Help Center"}
    if protect:
        entry["protect"] = True
    doc = {"organization": ORG, "sites": {"docs": {"id": "site_docs"}, "help": entry}}
    write(manifests, doc)
    apply(manifests, sandbox)
    (manifests / "docform.lock").unlink(missing_ok=True)
    entry["title"] = "Help Centre"
    write(manifests, doc, prune={"sites": True})
    return site_titled(sandbox, "Help Center")["id"]


def test_replacing_a_site_with_a_look_alike_needs_force(sandbox: Path, manifests: Path) -> None:
    old = renamed_site(sandbox, manifests, protect=False)
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 1
    assert (
        f'  [replacement] the plan deletes site {old} "Help Center" and creates site.help in its '
        f"place, and its content would be lost; pin `id: {old}` in main.yaml:6:3 or add "
        '`formerly: ["Help Center"]` to keep it, or accept the replacement with '
        "--allow replacement:site.help\n"
    ) in result.stdout
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 1
    assert live_site(sandbox, old)["title"] == "Help Center"


def test_a_protected_site_is_never_replaced(sandbox: Path, manifests: Path) -> None:
    old = renamed_site(sandbox, manifests, protect=True)
    result = run(["apply", manifests, "--yes", "--force"], sandbox)
    assert result.exit_code == 1
    assert (
        f'[protect] main.yaml:6:3: site.help is protected, and the plan deletes site {old} "Help '
        f'Center", which looks like its live object; pin `id: {old}` in main.yaml:6:3 or add '
        '`formerly: ["Help Center"]` to keep it'
    ) in result.stderr
    assert live_site(sandbox, old)["title"] == "Help Center"


# -- export and drift ----------------------------------------------------------------------------


def test_export_writes_published_and_proxy_and_a_plan_after_it_is_empty(
    sandbox: Path, tmp_path: Path
) -> None:
    live_api(sandbox, "POST", f"{DOCS}/publish")
    live_api(sandbox, "PATCH", DOCS, {"proxy": "acme.test/docs"})
    out = tmp_path / "exported"
    result = run(["export", "org_acme", out], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((out / "sites.yaml").read_text(encoding="utf-8"))["sites"]
    [site] = sites.values()
    assert (site["published"], site["proxy"]) == (True, "acme.test/docs")
    assert plan_json(out, sandbox)["changes"] == []


def test_drift_reports_a_site_unpublished_outside_docform(sandbox: Path, manifests: Path) -> None:
    write(manifests, docs_site(title="Acme Docs", published=True))
    apply(manifests, sandbox)
    live_api(sandbox, "POST", f"{DOCS}/unpublish")
    result = run(["drift", manifests], sandbox)
    assert result.exit_code == 2, result.output
    assert "      published: live false, manifests true\n" in result.stdout


# -- the whole lifecycle -------------------------------------------------------------------------


def test_a_site_with_sections_lives_from_creation_to_deletion(
    sandbox: Path, manifests: Path
) -> None:
    doc = {
        "organization": ORG,
        "spaces": {"start": {"title": "Start"}, "api": {"title": "API"}},
        "sites": {
            "docs": {"id": "site_docs"},
            "dev": {
                "title": "Developers",
                "published": True,
                "sectionGroups": {"learn": {"title": "Learn", "sections": ["start"]}},
                "sections": {
                    "start": {
                        "title": "Start here",
                        "path": "start",
                        "spaces": {"main": {"space": "start", "path": "intro"}},
                    },
                    "api": {
                        "title": "API",
                        "path": "api",
                        "default": True,
                        "spaces": {"ref": {"space": "api", "path": "reference"}},
                    },
                },
            },
        },
    }
    write(manifests, doc)
    apply_and_converge(manifests, sandbox)
    dev = site_titled(sandbox, "Developers")
    assert dev["published"] is True
    sections = live_api(sandbox, "GET", f"{SITES}/{dev['id']}/sections")["items"]
    assert {s["path"]: s["default"] for s in sections} == {"start": False, "api": True}

    doc["sites"]["dev"] |= {"published": False, "visibility": "unlisted"}
    write(manifests, doc)
    apply_and_converge(manifests, sandbox)
    dev = live_site(sandbox, dev["id"])
    assert (dev["published"], dev["visibility"]) == (False, "unlisted")

    del doc["sites"]["dev"]
    write(manifests, doc, prune={"sites": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"site.~{dev['id']}", "delete")]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_api(sandbox, "GET", SITES)["items"]] == ["site_docs"]
