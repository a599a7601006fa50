"""End to end: a site's adaptive content (``sites.<s>.adaptiveContent``), its switch and its
schema planned and applied through the CLI, and conditions that name no claim of the schema
refused when the manifests load, each at its file:line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
ADDRESS = "site.docs.adaptiveContent"
SCHEMA = {
    "properties": {
        "plan": {"type": "string", "enum": ["free", "pro"], "description": "The plan"},
        "unsigned": {
            "type": "object",
            "description": "Unsigned claims of the site visitor.",
            "properties": {"beta": {"type": "boolean", "description": "In the beta"}},
            "additionalProperties": False,
        },
    }
}
#: SCHEMA as the service takes it whole (the definition's SiteAdaptiveJSONSchema).
LIVE_SCHEMA = {"type": "object", **SCHEMA, "additionalProperties": False}


def manifests(directory: Path, adaptive: dict[str, Any], condition: str | None = None) -> Path:
    space: dict[str, Any] = {"space": "handbook", "path": "handbook"}
    if condition is not None:
        space["condition"] = condition
    site = {
        "id": "site_docs",
        "adaptiveContent": adaptive,
        "sections": {"guides": {"title": "Guides", "path": "guides", "spaces": {"main": space}}},
    }
    document = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def test_switch_and_schema_set_in_one_apply(tmp_path: Path, sandbox: Path) -> None:
    condition = 'visitor.claims.plan == "pro" && visitor.claims.unsigned.beta'
    directory = manifests(tmp_path / "m", {"enabled": True, "schema": SCHEMA}, condition)
    plan = plan_json(directory, sandbox)
    assert (ADDRESS, "update") in actions(plan)
    [(put, schema_path, body), (patch, site_path, switch)] = calls(change(plan, ADDRESS))
    assert (put, schema_path) == ("PUT", f"{DOCS}/adaptive-schema")
    assert body["jsonSchema"]["properties"]["plan"]["enum"] == ["free", "pro"]
    assert (patch, site_path, switch) == ("PATCH", DOCS, {"adaptiveContent": {"enabled": True}})
    apply(directory, sandbox)
    assert live_api(sandbox, "GET", DOCS)["adaptiveContent"] == {"enabled": True}
    assert_converged(directory, sandbox)
    off = manifests(tmp_path / "n", {"enabled": False})
    [field] = change(plan_json(off, sandbox), ADDRESS)["fields"]
    assert (field["path"], field["before"], field["after"]) == ("enabled", True, False)


def test_a_condition_naming_no_claim_is_refused_at_load(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"schema": SCHEMA}, "visitor.claims.plna == 'pro'")
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:" in result.output
    assert (
        "sites.docs.sections.guides.spaces.main.condition: visitor.claims.plna is not a claim "
        "of the site's adaptive schema (did you mean 'visitor.claims.plan'?)"
    ) in result.output
    assert "API request" not in result.output


def test_a_schema_outside_the_subset_is_refused_at_load(tmp_path: Path, sandbox: Path) -> None:
    bad = {"properties": {"plan": {"type": "integer", "description": "x"}}}
    result = run(["validate", manifests(tmp_path / "m", {"schema": bad})], sandbox)
    assert result.exit_code == 1
    assert "adaptiveContent.schema.properties.plan" in result.output


def test_export_then_plan_shows_no_changes(tmp_path: Path, sandbox: Path) -> None:
    apply(manifests(tmp_path / "m", {"enabled": True, "schema": SCHEMA}), sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    site = next(iter(yaml.safe_load((exported / "sites.yaml").read_text())["sites"].values()))
    assert site["adaptiveContent"]["enabled"] is True
    assert_converged(exported, sandbox)


def live_schema_manifests(directory: Path, space_condition: str, header: str) -> Path:
    """site_docs writing no adaptive content: a site space and a header item with conditions
    (the site's customization), and a site space override's header item."""
    item = {"title": "Upgrade", "to": {"kind": "url", "url": "https://acme.test"}, "links": []}
    override = {"header": {"links": [{**item, "condition": header}]}}
    section = {
        "title": "Guides",
        "path": "guides",
        "spaces": {
            "main": {"space": "handbook", "path": "handbook", "condition": space_condition},
            "beta": {"space": "handbook", "path": "beta", "customization": override},
        },
    }
    site = {
        "id": "site_docs",
        "customization": {"header": {"links": [{**item, "condition": header}]}},
        "sections": {"guides": section},
    }
    document = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def test_conditions_are_checked_against_the_live_schema_before_any_call(
    tmp_path: Path, sandbox: Path
) -> None:
    live_api(sandbox, "PUT", f"{DOCS}/adaptive-schema", {"jsonSchema": LIVE_SCHEMA})
    directory = live_schema_manifests(
        tmp_path / "m", "visitor.claims.plna == 'pro'", "visitor.claims.unsigned.bta"
    )
    lines = (directory / "main.yaml").read_text().splitlines()
    result = run(["apply", directory, "--yes"], sandbox)
    assert result.exit_code == 1, result.output
    where = {
        "condition: visitor.claims.plna": next(
            n for n, line in enumerate(lines, 1) if "plna" in line
        ),
    }
    space_line = where["condition: visitor.claims.plna"]
    assert (
        f"main.yaml:{space_line}:13: site.docs.section.guides.space.main: condition: "
        "visitor.claims.plna is not a claim of the site's live adaptive schema (did you mean "
        "'visitor.claims.plan'?)"
    ) in result.output
    header_lines = [n for n, line in enumerate(lines, 1) if "bta" in line]
    assert len(header_lines) == 2
    assert f"main.yaml:{header_lines[0]}:" in result.output
    assert "site.docs: customization.header.links[0].condition: visitor.claims.unsigned.bta" in (
        result.output
    )
    assert f"main.yaml:{header_lines[1]}:" in result.output
    assert "site.docs.section.guides.space.beta: customization.header.links[0].condition" in (
        result.output
    )
    assert "write the claim under adaptiveContent.schema" in result.output
    # Nothing was written: the section the apply would have created is not there.
    assert live_api(sandbox, "GET", f"{DOCS}/sections")["items"] == []


def test_conditions_that_fit_the_live_schema_plan(tmp_path: Path, sandbox: Path) -> None:
    live_api(sandbox, "PUT", f"{DOCS}/adaptive-schema", {"jsonSchema": LIVE_SCHEMA})
    directory = live_schema_manifests(
        tmp_path / "m", "visitor.claims.plan == 'pro'", "visitor.claims.unsigned.beta"
    )
    apply(directory, sandbox)
    assert_converged(directory, sandbox)


def test_a_header_condition_is_checked_against_the_written_schema_at_load(
    tmp_path: Path, sandbox: Path
) -> None:
    item = {"title": "Upgrade", "to": {"kind": "url", "url": "https://acme.test"}, "links": []}
    site = {
        "id": "site_docs",
        "adaptiveContent": {"schema": SCHEMA},
        "customization": {"header": {"links": [{**item, "condition": "visitor.claims.pln"}]}},
    }
    document = {"organization": {"id": "org_acme"}, "sites": {"docs": site}}
    directory = write_manifests(tmp_path / "m", yaml.safe_dump(document, sort_keys=False))
    result = run(["validate", directory], sandbox)
    assert result.exit_code == 1
    assert (
        "sites.docs.customization.header.links[0].condition: visitor.claims.pln is not a claim "
        "of the site's adaptive schema (did you mean 'visitor.claims.plan'?)"
    ) in result.output


def test_conditions_of_a_site_without_any_schema_are_a_warning(
    tmp_path: Path, sandbox: Path
) -> None:
    directory = live_schema_manifests(
        tmp_path / "m", "visitor.claims.plan == 'pro'", "visitor.claims.unsigned.beta"
    )
    result = run(["plan", directory], sandbox)
    assert result.exit_code == 0, result.output
    assert (
        "site.docs: 3 condition(s) name visitor claims (the first at main.yaml:17:"
    ) in result.output
    assert "but the site has no adaptive schema to check them against" in result.output
