"""End to end: plan and apply of sites, section groups, sections and site spaces.

Each test arranges live state through the API of a seeded in-process sandbox (site_docs, a
premium site with no structure, plus the spaces and sections the test needs), writes manifests
as a dict dumped to YAML, checks the plan's actions, calls and dependencies, applies it, checks
that a second plan is empty and reads the result back through the API.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

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
DOCS = f"{ORG_PATH}/sites/site_docs"


# -- arranging live state ------------------------------------------------------------------------


def create_space(sandbox: Path, title: str) -> str:
    return live_api(sandbox, "POST", f"{ORG_PATH}/spaces", {"title": title})["id"]


def create_section(sandbox: Path, space_id: str, title: str, site: str = DOCS) -> dict[str, Any]:
    """A live section (its path is the slug of its title) showing ``space_id`` first."""
    return live_api(sandbox, "POST", f"{site}/sections", {"spaceId": space_id, "title": title})


def create_site_space(sandbox: Path, space_id: str, section_id: str, path: str) -> str:
    body = {"spaceId": space_id, "sectionId": section_id}
    made = live_api(sandbox, "POST", f"{DOCS}/site-spaces", body)["id"]
    live_api(sandbox, "PATCH", f"{DOCS}/site-spaces/{made}", {"path": path})
    return made


def create_group(sandbox: Path, title: str, section_ids: list[str]) -> str:
    body = {"title": title, "sections": section_ids}
    return live_api(sandbox, "POST", f"{DOCS}/section-groups", body)["id"]


def live_items(sandbox: Path, what: str, site: str = DOCS) -> list[dict[str, Any]]:
    """The live ``sections``, ``site-spaces`` or ``section-groups`` of a site, in order."""
    return live_api(sandbox, "GET", f"{site}/{what}")["items"]


def live_site(sandbox: Path, site_id: str = "site_docs") -> dict[str, Any]:
    return live_api(sandbox, "GET", f"{ORG_PATH}/sites/{site_id}")


# -- manifests -----------------------------------------------------------------------------------


def base_doc() -> dict[str, Any]:
    """Manifests that match :func:`arranged` live state exactly."""
    return {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}, "oncall": {"title": "On-call"}},
        "sites": {
            "docs": {
                "id": "site_docs",
                "sections": {
                    "guides": {
                        "title": "Guides",
                        "path": "guides",
                        "spaces": {"main": {"space": "handbook", "path": "handbook"}},
                    }
                },
            }
        },
    }


def arranged(sandbox: Path) -> dict[str, str]:
    """Spaces Handbook and On-call; site_docs with section Guides (path ``guides``) showing
    Handbook at path ``handbook``. Returns the live ids by name."""
    handbook = create_space(sandbox, "Handbook")
    oncall = create_space(sandbox, "On-call")
    section = create_section(sandbox, handbook, "Guides")
    return {
        "handbook": handbook,
        "oncall": oncall,
        "guides": section["id"],
        "main": section["siteSpaces"][0]["id"],
    }


def write(manifests: Path, doc: dict[str, Any], prune: dict[str, bool] | None = None) -> Path:
    doc = copy.deepcopy(doc)
    if prune:
        doc["docform"] = {"prune": prune}
    return write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def docs_site(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["sites"]["docs"]


def guides(doc: dict[str, Any]) -> dict[str, Any]:
    return docs_site(doc)["sections"]["guides"]


def plan_error(manifests: Path, sandbox: Path) -> str:
    """The error of a plan that must fail: exit 1 and its stderr."""
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 1, result.output
    return result.stderr


def test_arranged_state_matches_base_manifests(sandbox: Path, manifests: Path) -> None:
    arranged(sandbox)
    write(manifests, base_doc())
    assert plan_json(manifests, sandbox)["changes"] == []


# -- sites ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "Acme Handbook"),
        ("visibility", "unlisted"),
        ("basename", "handbook"),
        ("defaultLevel", "read"),
    ],
)
def test_site_field_update_by_pinned_id(
    sandbox: Path, manifests: Path, field: str, value: str
) -> None:
    docs_doc = {"organization": {"id": "org_acme"}, "sites": {"docs": {"id": "site_docs"}}}
    docs_doc["sites"]["docs"][field] = value
    write(manifests, docs_doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs", "update")]
    site = change(plan, "site.docs")
    assert site["id"] == "site_docs"
    assert "pinned id" in site["action_reason"]
    assert calls(site) == [("PATCH", DOCS, {field: value})]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)[field] == value


def test_site_matched_by_title_is_updated(sandbox: Path, manifests: Path) -> None:
    doc = {"organization": {"id": "org_acme"}}
    doc["sites"] = {"docs": {"title": "Acme Docs", "visibility": "share-link"}}
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    site = change(plan, "site.docs", "update")
    assert site["id"] == "site_docs"
    assert "natural key" in site["action_reason"]
    assert calls(site) == [("PATCH", DOCS, {"visibility": "share-link"})]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)["visibility"] == "share-link"


def test_site_renamed_with_formerly_keeps_its_id(sandbox: Path, manifests: Path) -> None:
    doc = {"organization": {"id": "org_acme"}}
    doc["sites"] = {"docs": {"title": "Acme Help", "formerly": ["Acme Docs"]}}
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    site = change(plan, "site.docs", "update")
    assert site["id"] == "site_docs"
    assert "formerly" in site["action_reason"]
    assert site["fields"] == [{"path": "title", "before": "Acme Docs", "after": "Acme Help"}]
    assert calls(site) == [("PATCH", DOCS, {"title": "Acme Help"})]
    apply_and_converge(manifests, sandbox)
    assert live_site(sandbox)["title"] == "Acme Help"


def test_site_created_with_its_sections_in_one_apply(sandbox: Path, manifests: Path) -> None:
    handbook = create_space(sandbox, "Handbook")
    doc = base_doc()
    doc["spaces"].pop("oncall")
    doc["sites"] = {
        "help": {
            "title": "Help Center",
            "visibility": "unlisted",
            "basename": "help",
            "sections": {
                "start": {
                    "title": "Start here",
                    "path": "start",
                    "spaces": {"main": {"space": "handbook", "path": "v1"}},
                }
            },
        }
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("site.help", "create"),
        ("site.help.section.start", "create"),
        ("site.help.section.start.space.main", "create"),
    ]
    site = change(plan, "site.help")
    assert calls(site) == [
        ("POST", f"{ORG_PATH}/sites", {"title": "Help Center", "visibility": "unlisted"}),
        ("PATCH", f"{ORG_PATH}/sites/${{site.help.id}}", {"basename": "help"}),
    ]
    section = change(plan, "site.help.section.start")
    new_site = f"{ORG_PATH}/sites/${{site.help.id}}"
    assert calls(section) == [
        ("POST", f"{new_site}/sections", {"spaceId": handbook, "title": "start"}),
        (
            "PATCH",
            f"{new_site}/sections/${{site.help.section.start.id}}",
            {"path": "start", "title": "Start here"},
        ),
    ]
    assert section["depends_on"] == ["site.help#create"]
    site_space = change(plan, "site.help.section.start.space.main")
    first = "${site.help.section.start.siteSpaces.0.id}"
    assert calls(site_space) == [("PATCH", f"{new_site}/site-spaces/{first}", {"path": "v1"})]
    assert "site.help.section.start#create" in site_space["depends_on"]
    apply_and_converge(manifests, sandbox)
    [made] = [
        s for s in live_api(sandbox, "GET", f"{ORG_PATH}/sites")["items"] if s["id"] != "site_docs"
    ]
    assert (made["title"], made["visibility"], made["basename"]) == (
        "Help Center",
        "unlisted",
        "help",
    )
    [live_section] = live_items(sandbox, "sections", f"{ORG_PATH}/sites/{made['id']}")
    assert live_section["path"] == "start"
    assert [s["path"] for s in live_section["siteSpaces"]] == ["v1"]


def test_unmanaged_site_is_listed_and_left_alone(sandbox: Path, manifests: Path) -> None:
    other = live_api(sandbox, "POST", f"{ORG_PATH}/sites", {"title": "Old Site"})["id"]
    write(manifests, {"organization": {"id": "org_acme"}, "sites": {"docs": {"id": "site_docs"}}})
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "site", "id": other, "title": "Old Site"} in plan["unmanaged"]


def test_unmanaged_site_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    other = live_api(sandbox, "POST", f"{ORG_PATH}/sites", {"title": "Old Site"})["id"]
    doc = {"organization": {"id": "org_acme"}, "sites": {"docs": {"id": "site_docs"}}}
    write(manifests, doc, prune={"sites": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [(f"site.~{other}", "delete")]
    assert calls(change(plan, f"site.~{other}")) == [("DELETE", f"{ORG_PATH}/sites/{other}", None)]
    apply_and_converge(manifests, sandbox)
    sites = live_api(sandbox, "GET", f"{ORG_PATH}/sites")["items"]
    assert [s["id"] for s in sites] == ["site_docs"]


def test_site_type_change_is_an_error(sandbox: Path, manifests: Path) -> None:
    doc = {"organization": {"id": "org_acme"}, "sites": {"docs": {"id": "site_docs"}}}
    doc["sites"]["docs"]["type"] = "basic"
    write(manifests, doc)
    error = plan_error(manifests, sandbox)
    assert "site.docs: type: a site's type cannot be changed through the API (live: premium)" in (
        error
    )


# -- sections ------------------------------------------------------------------------------------


def test_section_created_with_its_first_site_space(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    docs_site(doc)["sections"]["ops"] = {
        "title": "Operations",
        "path": "ops",
        "description": "Running things",
        "icon": "gear",
        "spaces": {"oncall": {"space": "oncall", "path": "oncall", "hidden": True}},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("site.docs.section.ops", "create"),
        ("site.docs.section.ops.space.oncall", "create"),
    ]
    section = change(plan, "site.docs.section.ops")
    # Created under its path as its title, so that a create cut short is at its natural key.
    body = {"spaceId": ids["oncall"], "title": "ops", "icon": "gear"}
    patch = {"path": "ops", "description": "Running things", "title": "Operations"}
    assert calls(section) == [
        ("POST", f"{DOCS}/sections", body),
        ("PATCH", f"{DOCS}/sections/${{site.docs.section.ops.id}}", patch),
    ]
    site_space = change(plan, "site.docs.section.ops.space.oncall")
    first = "${site.docs.section.ops.siteSpaces.0.id}"
    patch = {"path": "oncall", "hidden": True}
    assert calls(site_space) == [("PATCH", f"{DOCS}/site-spaces/{first}", patch)]
    assert site_space["depends_on"] == ["site.docs.section.ops#create"]
    apply_and_converge(manifests, sandbox)
    ops = live_items(sandbox, "sections")[1]
    assert (ops["title"], ops["path"], ops["description"], ops["icon"]) == (
        "Operations",
        "ops",
        "Running things",
        "gear",
    )
    [shown] = ops["siteSpaces"]
    assert (shown["space"]["id"], shown["path"], shown["hidden"]) == (ids["oncall"], "oncall", True)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "All guides"),
        ("description", "How to"),
        ("condition", "visitor.claims.beta == true"),
        ("icon", "book"),
    ],
)
def test_section_field_update(sandbox: Path, manifests: Path, field: str, value: str) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)[field] = value
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.guides", "update")]
    section = change(plan, "site.docs.section.guides")
    assert section["id"] == ids["guides"]
    assert calls(section) == [("PATCH", f"{DOCS}/sections/{ids['guides']}", {field: value})]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "sections")[0][field] == value


def test_section_condition_removed_with_null(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    section_path = f"{DOCS}/sections/{ids['guides']}"
    live_api(sandbox, "PATCH", section_path, {"condition": "visitor.claims.beta"})
    doc = base_doc()
    guides(doc)["condition"] = None
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs.section.guides")) == [
        ("PATCH", section_path, {"condition": None})
    ]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "sections")[0].get("condition") is None


def test_section_path_change_with_pinned_id(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc).update(id=ids["guides"], path="howto")
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.guides", "update")]
    section = change(plan, "site.docs.section.guides")
    assert "pinned id" in section["action_reason"]
    assert calls(section) == [("PATCH", f"{DOCS}/sections/{ids['guides']}", {"path": "howto"})]
    apply_and_converge(manifests, sandbox)
    assert [s["path"] for s in live_items(sandbox, "sections")] == ["howto"]


def test_section_path_change_with_formerly(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc).update(path="howto", formerly=["guides"])
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.guides", "update")]
    section = change(plan, "site.docs.section.guides")
    assert "formerly" in section["action_reason"]
    assert calls(section) == [("PATCH", f"{DOCS}/sections/{ids['guides']}", {"path": "howto"})]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_items(sandbox, "sections")] == [ids["guides"]]


def test_section_path_change_without_identity_recreates_it(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)["path"] = "howto"
    write(manifests, doc, prune={"sections": True})
    plan = plan_json(manifests, sandbox)
    assert ("site.docs.section.guides", "create") in actions(plan)
    assert (f"section.~{ids['guides']}", "delete") in actions(plan)


def test_section_marked_default(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    ops = create_section(sandbox, ids["oncall"], "Operations")
    doc = base_doc()
    docs_site(doc)["sections"]["ops"] = {
        "title": "Operations",
        "path": "operations",
        "default": True,
        "spaces": {"oncall": {"space": "oncall", "path": "on-call"}},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.ops", "update")]
    assert calls(change(plan, "site.docs.section.ops")) == [
        ("PATCH", DOCS, {"defaultSiteSection": ops["id"]})
    ]
    apply_and_converge(manifests, sandbox)
    assert [s["default"] for s in live_items(sandbox, "sections")] == [False, True]


CREATE_ANSWER_OVERWRITTEN = (
    "engine/apply.py _run_change records the answer of every call of a create change "
    "(Outputs.record), so the last call's answer (PATCH site -> the site) replaces the "
    "section's POST answer and ${site.docs.section.ops.siteSpaces.0.id} is not found"
)


def test_new_section_marked_default(sandbox: Path, manifests: Path) -> None:
    arranged(sandbox)
    doc = base_doc()
    docs_site(doc)["sections"]["ops"] = {
        "path": "ops",
        "default": True,
        "spaces": {"oncall": {"space": "oncall", "path": "oncall"}},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    section = change(plan, "site.docs.section.ops", "create")
    assert calls(section)[-1] == (
        "PATCH",
        DOCS,
        {"defaultSiteSection": {"$placeholder": "site.docs.section.ops.id"}},
    )
    apply_and_converge(manifests, sandbox)
    assert [s["default"] for s in live_items(sandbox, "sections")] == [False, True]


def test_section_default_false_is_an_error(sandbox: Path, manifests: Path) -> None:
    arranged(sandbox)
    doc = base_doc()
    guides(doc)["default"] = False
    write(manifests, doc)
    error = plan_error(manifests, sandbox)
    assert (
        "site.docs.section.guides: default: a site always has a default section; mark another "
        "section `default: true` instead of this one `false`"
    ) in error


def test_unmanaged_section_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    ops = create_section(sandbox, ids["oncall"], "Operations")
    write(manifests, base_doc())
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "section", "id": ops["id"], "title": "Operations"} in plan["unmanaged"]
    write(manifests, base_doc(), prune={"sections": True, "siteSpaces": True})
    plan = plan_json(manifests, sandbox)
    address = f"section.~{ops['id']}"
    site_space = f"siteSpace.~{ops['siteSpaces'][0]['id']}"
    assert actions(plan) == [(site_space, "delete"), (address, "delete")]
    assert calls(change(plan, address)) == [("DELETE", f"{DOCS}/sections/{ops['id']}", None)]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_items(sandbox, "sections")] == [ids["guides"]]


def test_unmanaged_section_is_deleted_under_section_prune_alone(
    sandbox: Path, manifests: Path
) -> None:
    ids = arranged(sandbox)
    ops = create_section(sandbox, ids["oncall"], "Operations")
    write(manifests, base_doc(), prune={"sections": True})
    plan = plan_json(manifests, sandbox)
    assert [a for a, _ in actions(plan)] == [f"section.~{ops['id']}"]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_items(sandbox, "sections")] == [ids["guides"]]


def test_section_without_spaces_cannot_be_created(sandbox: Path, manifests: Path) -> None:
    arranged(sandbox)
    doc = base_doc()
    docs_site(doc)["sections"]["empty"] = {"title": "Empty", "path": "empty"}
    write(manifests, doc)
    error = plan_error(manifests, sandbox)
    assert (
        "site.docs.section.empty: the API creates a section together with its first site "
        "space; list at least one under `spaces:`"
    ) in error


def test_collection_space_section_and_site_space_created_in_order(
    sandbox: Path, manifests: Path
) -> None:
    doc = {
        "organization": {"id": "org_acme"},
        "collections": {"eng": {"title": "Engineering"}},
        "spaces": {
            "api": {"title": "API", "collection": "eng"},
            "sdk": {"title": "SDK", "collection": "eng"},
        },
        "sites": {
            "docs": {
                "id": "site_docs",
                "sections": {
                    "reference": {
                        "title": "Reference",
                        "path": "reference",
                        "spaces": {
                            "api": {"space": "api", "path": "api"},
                            "sdk": {"space": "sdk", "path": "sdk"},
                        },
                    }
                },
            }
        },
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    section = "site.docs.section.reference"
    assert change(plan, "space.api")["depends_on"] == ["collection.eng#create"]
    assert change(plan, section)["depends_on"] == ["space.api#create"]
    assert change(plan, f"{section}.space.api")["depends_on"] == [
        f"{section}#create",
        "space.api#create",
    ]
    sdk = change(plan, f"{section}.space.sdk")
    assert sdk["depends_on"] == [f"{section}#create", "space.sdk#create"]
    assert calls(sdk)[0] == (
        "POST",
        f"{DOCS}/site-spaces",
        {
            "spaceId": {"$placeholder": "space.sdk.id"},
            "sectionId": {"$placeholder": f"{section}.id"},
        },
    )
    order = [address for address, _ in actions(plan)]
    assert order.index("collection.eng") < order.index("space.api") < order.index(section)
    assert order.index(section) < order.index(f"{section}.space.api")
    apply_and_converge(manifests, sandbox)
    [reference] = live_items(sandbox, "sections")
    titles = [(s["path"], s["space"]["title"]) for s in reference["siteSpaces"]]
    assert titles == [("api", "API"), ("sdk", "SDK")]


# -- section groups ------------------------------------------------------------------------------


def with_group(doc: dict[str, Any], **group: Any) -> dict[str, Any]:
    docs_site(doc)["sectionGroups"] = {"learn": {"title": "Learn", **group}}
    return doc


def test_group_created_with_a_new_section(sandbox: Path, manifests: Path) -> None:
    arranged(sandbox)
    doc = with_group(base_doc(), icon="book", sections=["ops"])
    docs_site(doc)["sections"]["ops"] = {
        "path": "ops",
        "spaces": {"oncall": {"space": "oncall", "path": "oncall"}},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    group = change(plan, "site.docs.sectionGroup.learn", "create")
    assert calls(group) == [("POST", f"{DOCS}/section-groups", {"title": "Learn", "icon": "book"})]
    section = change(plan, "site.docs.section.ops", "create")
    assert calls(section)[1] == (
        "PATCH",
        f"{DOCS}/sections/${{site.docs.section.ops.id}}",
        {"path": "ops", "siteSectionGroupId": {"$placeholder": "site.docs.sectionGroup.learn.id"}},
    )
    assert "site.docs.sectionGroup.learn#create" in section["depends_on"]
    apply_and_converge(manifests, sandbox)
    [live_group] = live_items(sandbox, "section-groups")
    assert (live_group["title"], live_group["icon"]) == ("Learn", "book")
    assert [s["path"] for s in live_group["sections"]] == ["ops"]


def arranged_group(sandbox: Path) -> dict[str, str]:
    """:func:`arranged` plus a group Learn holding section Guides."""
    ids = arranged(sandbox)
    ids["learn"] = create_group(sandbox, "Learn", [ids["guides"]])
    return ids


def test_arranged_group_matches(sandbox: Path, manifests: Path) -> None:
    arranged_group(sandbox)
    write(manifests, with_group(base_doc(), sections=["guides"]))
    assert plan_json(manifests, sandbox)["changes"] == []


@pytest.mark.parametrize("identity", ["id", "formerly"])
def test_group_renamed(sandbox: Path, manifests: Path, identity: str) -> None:
    ids = arranged_group(sandbox)
    doc = with_group(base_doc(), sections=["guides"])
    group = docs_site(doc)["sectionGroups"]["learn"]
    group["title"] = "Learning"
    group.update({"id": ids["learn"]} if identity == "id" else {"formerly": ["Learn"]})
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.sectionGroup.learn", "update")]
    assert calls(change(plan, "site.docs.sectionGroup.learn")) == [
        ("PATCH", f"{DOCS}/section-groups/{ids['learn']}", {"title": "Learning"})
    ]
    apply_and_converge(manifests, sandbox)
    assert [g["title"] for g in live_items(sandbox, "section-groups")] == ["Learning"]


def test_group_icon_set(sandbox: Path, manifests: Path) -> None:
    ids = arranged_group(sandbox)
    write(manifests, with_group(base_doc(), icon="star"))
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs.sectionGroup.learn")) == [
        ("PATCH", f"{DOCS}/section-groups/{ids['learn']}", {"icon": "star"})
    ]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "section-groups")[0]["icon"] == "star"


def test_section_added_to_group(sandbox: Path, manifests: Path) -> None:
    ids = arranged_group(sandbox)
    ops = create_section(sandbox, ids["oncall"], "Operations")
    doc = with_group(base_doc(), sections=["guides", "ops"])
    docs_site(doc)["sections"]["ops"] = {
        "path": "operations",
        "spaces": {"oncall": {"space": "oncall", "path": "on-call"}},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.ops", "move")]
    assert calls(change(plan, "site.docs.section.ops", "move")) == [
        ("PATCH", f"{DOCS}/sections/{ops['id']}", {"siteSectionGroupId": ids["learn"]})
    ]
    apply_and_converge(manifests, sandbox)
    [live_group] = live_items(sandbox, "section-groups")
    assert [s["id"] for s in live_group["sections"]] == [ids["guides"], ops["id"]]


def test_section_left_out_of_every_group_moves_to_the_top_level(
    sandbox: Path, manifests: Path
) -> None:
    ids = arranged_group(sandbox)
    write(manifests, with_group(base_doc(), sections=[]))
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.guides", "move")]
    assert calls(change(plan, "site.docs.section.guides", "move")) == [
        ("PATCH", f"{DOCS}/sections/{ids['guides']}", {"siteSectionGroupId": None})
    ]
    apply_and_converge(manifests, sandbox)
    [live_group] = live_items(sandbox, "section-groups")
    assert live_group["children"] == []
    assert "sectionGroup" not in live_items(sandbox, "sections")[0]


def test_unmanaged_group_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    ids = arranged_group(sandbox)
    write(manifests, base_doc())
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "section_group", "id": ids["learn"], "title": "Learn"} in plan["unmanaged"]
    write(manifests, base_doc(), prune={"sectionGroups": True})
    plan = plan_json(manifests, sandbox)
    address = f"sectionGroup.~{ids['learn']}"
    assert actions(plan) == [(address, "delete")]
    assert calls(change(plan, address)) == [
        ("DELETE", f"{DOCS}/section-groups/{ids['learn']}", None)
    ]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "section-groups") == []
    assert [s["id"] for s in live_items(sandbox, "sections")] == [ids["guides"]]


# -- site spaces ---------------------------------------------------------------------------------


def test_second_site_space_added_to_a_section(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)["spaces"]["oncall"] = {"space": "oncall", "path": "on-call", "hidden": True}
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    address = "site.docs.section.guides.space.oncall"
    assert actions(plan) == [(address, "create")]
    made = f"${{{address}.id}}"
    assert calls(change(plan, address)) == [
        ("POST", f"{DOCS}/site-spaces", {"spaceId": ids["oncall"], "sectionId": ids["guides"]}),
        ("PATCH", f"{DOCS}/site-spaces/{made}", {"path": "on-call", "hidden": True}),
    ]
    apply_and_converge(manifests, sandbox)
    shown = live_items(sandbox, "sections")[0]["siteSpaces"]
    assert [(s["path"], s["hidden"]) for s in shown] == [("handbook", False), ("on-call", True)]


@pytest.mark.parametrize(
    ("field", "value"),
    [("path", "v2"), ("condition", "visitor.claims.staff"), ("hidden", True)],
)
def test_site_space_field_update(sandbox: Path, manifests: Path, field: str, value: Any) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)["spaces"]["main"][field] = value
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    address = "site.docs.section.guides.space.main"
    assert actions(plan) == [(address, "update")]
    site_space = change(plan, address)
    assert site_space["id"] == ids["main"]
    assert calls(site_space) == [("PATCH", f"{DOCS}/site-spaces/{ids['main']}", {field: value})]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "site-spaces")[0][field] == value


def test_site_space_path_change_matches_by_space_shown(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)["spaces"]["main"]["path"] = "v2"
    write(manifests, doc, prune={"siteSpaces": True})
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.section.guides.space.main", "update")]
    assert change(plan, "site.docs.section.guides.space.main")["id"] == ids["main"]


@pytest.mark.parametrize("identity", ["id", "formerly"])
def test_site_space_renamed(sandbox: Path, manifests: Path, identity: str) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    main = guides(doc)["spaces"]["main"]
    main.update(path="v2", space="oncall")
    main.update({"id": ids["main"]} if identity == "id" else {"formerly": ["handbook"]})
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    address = "site.docs.section.guides.space.main"
    assert actions(plan) == [(address, "update")]
    body = {"path": "v2", "spaceId": ids["oncall"]}
    assert calls(change(plan, address)) == [("PATCH", f"{DOCS}/site-spaces/{ids['main']}", body)]
    apply_and_converge(manifests, sandbox)
    [shown] = live_items(sandbox, "site-spaces")
    assert (shown["id"], shown["path"], shown["space"]["id"]) == (ids["main"], "v2", ids["oncall"])


def test_site_space_shows_another_space(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    guides(doc)["spaces"]["main"]["space"] = "oncall"
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    address = "site.docs.section.guides.space.main"
    site_space = change(plan, address, "update")
    assert site_space["fields"] == [
        {"path": "space", "before": {"$ref": "space.handbook"}, "after": {"$ref": "space.oncall"}}
    ]
    assert calls(site_space) == [
        ("PATCH", f"{DOCS}/site-spaces/{ids['main']}", {"spaceId": ids["oncall"]})
    ]
    apply_and_converge(manifests, sandbox)
    assert live_items(sandbox, "site-spaces")[0]["space"]["id"] == ids["oncall"]


def test_unmanaged_site_space_is_deleted_under_prune(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    extra = create_site_space(sandbox, ids["oncall"], ids["guides"], "extra")
    write(manifests, base_doc())
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "site_space", "id": extra, "title": "On-call"} in plan["unmanaged"]
    write(manifests, base_doc(), prune={"siteSpaces": True})
    plan = plan_json(manifests, sandbox)
    address = f"siteSpace.~{extra}"
    assert actions(plan) == [(address, "delete")]
    assert calls(change(plan, address)) == [("DELETE", f"{DOCS}/site-spaces/{extra}", None)]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_items(sandbox, "site-spaces")] == [ids["main"]]


def test_root_site_spaces_of_a_site_without_sections(sandbox: Path, manifests: Path) -> None:
    handbook = create_space(sandbox, "Handbook")
    oncall = create_space(sandbox, "On-call")
    doc = base_doc()
    docs_site(doc).pop("sections")
    docs_site(doc)["spaces"] = {
        "main": {"space": "handbook", "path": "handbook"},
        "ops": {"space": "oncall", "path": "ops", "condition": "visitor.claims.staff"},
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    # Two independent creates race, so the second is placed after the first explicitly.
    assert actions(plan) == [
        ("site.docs.space.main", "create"),
        ("site.docs.space.ops", "create"),
        ("site.docs.space.ops", "reorder"),
    ]
    made = "${site.docs.space.ops.id}"
    assert calls(change(plan, "site.docs.space.ops", "create")) == [
        ("POST", f"{DOCS}/site-spaces", {"spaceId": oncall}),
        (
            "PATCH",
            f"{DOCS}/site-spaces/{made}",
            {"path": "ops", "condition": "visitor.claims.staff"},
        ),
    ]
    apply_and_converge(manifests, sandbox)
    shown = live_items(sandbox, "site-spaces")
    assert [(s["space"]["id"], s["path"], s.get("section")) for s in shown] == [
        (handbook, "handbook", None),
        (oncall, "ops", None),
    ]


# -- objects of unmanaged sites ------------------------------------------------------------------


def other_site_with_structure(sandbox: Path, space_id: str) -> tuple[str, str]:
    """A live site no manifest manages, with a group holding a section; returns the site's
    path and the section's id."""
    other = live_api(sandbox, "POST", f"{ORG_PATH}/sites", {"title": "Other"})["id"]
    other_path = f"{ORG_PATH}/sites/{other}"
    section = create_section(sandbox, space_id, "Elsewhere", site=other_path)
    body = {"title": "Group", "sections": [section["id"]]}
    live_api(sandbox, "POST", f"{other_path}/section-groups", body)
    return other_path, section["id"]


UNMANAGED_SITE_STRUCTURE = (
    "kind_framework/planning.py site_ref treats a site that no entry matches as managed: "
    "match_kind records unmatched live objects in the AddressIndex as 'site.~ID', so "
    "index.ref() returns a Ref for them too"
)


def test_structure_of_an_unmanaged_site_is_not_listed(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    other_site_with_structure(sandbox, ids["oncall"])
    write(manifests, base_doc())
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert [u["kind"] for u in plan["unmanaged"] if u["kind"] != "member"] == ["site"]


def test_structure_of_an_unmanaged_site_is_not_pruned(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    other_path, section = other_site_with_structure(sandbox, ids["oncall"])
    prune = {"sections": True, "siteSpaces": True, "sectionGroups": True}
    write(manifests, base_doc(), prune=prune)
    assert plan_json(manifests, sandbox)["changes"] == []
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_items(sandbox, "sections", other_path)] == [section]


def test_unmanaged_site_with_structure_is_deleted_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    ids = arranged(sandbox)
    other_path, _ = other_site_with_structure(sandbox, ids["oncall"])
    write(manifests, base_doc(), prune={"sites": True})
    plan = plan_json(manifests, sandbox)
    other = other_path.rsplit("/", 1)[1]
    assert actions(plan) == [(f"site.~{other}", "delete")]
    apply_and_converge(manifests, sandbox)
    assert [s["id"] for s in live_api(sandbox, "GET", f"{ORG_PATH}/sites")["items"]] == [
        "site_docs"
    ]


def test_new_default_site_space_placed_first(sandbox: Path, manifests: Path) -> None:
    ids = arranged(sandbox)
    doc = base_doc()
    section = guides(doc)
    section["spaces"] = {
        "first": {"space": "oncall", "path": "oncall", "default": True},
        **section["spaces"],
    }
    write(manifests, doc)
    plan = plan_json(manifests, sandbox)
    address = "site.docs.section.guides.space.first"
    assert actions(plan) == [(address, "create"), (address, "reorder")]
    assert calls(change(plan, address, "create"))[-1] == (
        "PATCH",
        f"{DOCS}/sections/{ids['guides']}",
        {"defaultSiteSpace": {"$placeholder": f"{address}.id"}},
    )
    apply_and_converge(manifests, sandbox)
    shown = live_items(sandbox, "site-spaces")
    assert [(s["path"], s["default"]) for s in shown] == [("oncall", True), ("handbook", False)]


def test_unmanaged_section_in_a_managed_group_is_left_there(sandbox: Path, manifests: Path) -> None:
    ids = arranged_group(sandbox)
    ops = create_section(sandbox, ids["oncall"], "Operations")
    live_api(sandbox, "PATCH", f"{DOCS}/sections/{ops['id']}", {"siteSectionGroupId": ids["learn"]})
    write(manifests, with_group(base_doc(), sections=["guides"]))
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "section", "id": ops["id"], "title": "Operations"} in plan["unmanaged"]


def test_structure_of_an_unmanaged_site_is_not_read(sandbox: Path, manifests: Path) -> None:
    """A site no entry manages costs no request beyond the sites list: a plan of the
    organization alone makes as many requests with the site's structure as without it, and
    managing the site reads its three structure lists."""
    write(manifests, {"organization": {"id": "org_acme"}})
    bare = requests_of(run(["plan", manifests, "-v"], sandbox))
    arranged(sandbox)
    assert requests_of(run(["plan", manifests, "-v"], sandbox)) == bare
    write(manifests, base_doc())
    assert requests_of(run(["plan", manifests, "-v"], sandbox)) == bare + 3


def requests_of(result: Any) -> int:
    assert result.exit_code == 0, result.output
    found = re.search(r"(\d+) API requests \(GET \1\)", result.stderr)
    assert found, result.stderr
    return int(found.group(1))
