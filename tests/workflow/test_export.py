"""`docform export ORG_ID DIR` against an in-process sandbox: round trip, names, files, refusals.

The rich organization is seeded from fixtures/rich-seed.yaml (users and sites), built up by
applying fixtures/rich-org/ (every other kind: nested collections, two spaces titled Overview in
different collections, a site with groups, sections and site spaces, a site with site spaces at
its root, OpenAPI specs, a SAML provider with a certificate), and given by API what manifests
cannot ask for: a second team titled Platform. Exporting only reads, so the tests share it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from docform.cli import cli
from docform.export.names import slugify
from docform.manifest import load_manifest_set
from planning import (
    FIXTURES,
    applied_rich_organization,
    assert_converged,
    live_api,
    plan_json,
    run,
    seeded_sandbox,
)

ORG = "/orgs/org_rich"
EXPORTED_FILES = [
    "certs/okta.pem",
    "content.yaml",
    "docform.lock",
    "docform.schema.json",
    "members.yaml",
    "openapi.yaml",
    "organization.yaml",
    "saml.yaml",
    "sites.yaml",
    "teams.yaml",
]


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sandbox holding the rich organization; tests must not change it."""
    sandbox = applied_rich_organization(tmp_path_factory)
    live_api(sandbox, "PUT", f"{ORG}/teams", {"title": "Platform"})
    return sandbox


def export(sandbox: Path, directory: Path, *extra: str) -> Result:
    return run(["export", "org_rich", directory, *extra], sandbox)


def exported(sandbox: Path, directory: Path) -> Path:
    result = export(sandbox, directory)
    assert result.exit_code == 0, result.output
    return directory


def files_of(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def section(directory: Path, file: str, key: str) -> dict:
    return yaml.safe_load((directory / file).read_text(encoding="utf-8"))[key]


def locked(directory: Path) -> dict[str, str]:
    """The ids docform.lock records, by plan address."""
    lock = yaml.safe_load((directory / "docform.lock").read_text(encoding="utf-8"))
    assert lock["organization"] == "org_rich"
    ids: dict[str, str] = lock["ids"]
    return ids


def ids_oldest_first(sandbox: Path, path: str, title: str) -> list[str]:
    items = [i for i in live_api(sandbox, "GET", path)["items"] if i["title"] == title]
    return [i["id"] for i in sorted(items, key=lambda i: (i["createdAt"], i["id"]))]


# -- round trip ----------------------------------------------------------------------------------


def test_export_then_validate_and_plan_shows_no_changes(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")

    validated = run(["validate", out], rich)
    plan = plan_json(out, rich)

    assert validated.exit_code == 0, validated.output
    assert validated.stdout == (
        "Valid: 1 organization, 6 members, 3 teams, 7 collections, 8 spaces, 3 sites, "
        "2 section groups, 4 sections, 9 site spaces, 2 OpenAPI specs, 1 SAML provider "
        "in 7 files.\n"
    )
    assert plan["changes"] == []
    assert plan["unmanaged"] == []
    assert_converged(out, rich)


def test_export_writes_one_file_per_part_and_says_what_it_did(rich: Path, tmp_path: Path) -> None:
    result = export(rich, tmp_path / "repo")

    assert result.exit_code == 0, result.output
    assert sorted(files_of(tmp_path / "repo")) == EXPORTED_FILES
    assert result.stdout == (
        f"Exported 46 objects of org_rich into {tmp_path / 'repo'}: {', '.join(EXPORTED_FILES)}.\n"
        f"Check it with: docform validate {tmp_path / 'repo'} && docform plan {tmp_path / 'repo'}\n"
    )


def test_exporting_twice_gives_identical_files(rich: Path, tmp_path: Path) -> None:
    first = files_of(exported(rich, tmp_path / "one"))
    second = files_of(exported(rich, tmp_path / "two"))

    assert first == second


def test_the_written_api_setting_is_enough_to_plan_without_the_environment(
    rich: Path, tmp_path: Path
) -> None:
    out = exported(rich, tmp_path / "repo")
    env = {"DOCFORM_API_URL": None, "DOCFORM_API_TOKEN": None, "NO_COLOR": "1"}

    result = CliRunner().invoke(cli, ["plan", str(out), "--detailed-exitcode"], env=env)

    relative = os.path.relpath(rich, out)
    assert section(out, "organization.yaml", "docform") == {"api": f"sandbox:{relative}"}
    assert result.exit_code == 0, result.output


# -- content of the files --------------------------------------------------------------------


def test_every_manifest_starts_with_the_schema_line(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")

    first_lines = {p.name: p.read_text().splitlines()[0] for p in sorted(out.glob("*.yaml"))}

    assert set(first_lines.values()) == {"# yaml-language-server: $schema=docform.schema.json"}
    assert json.loads((out / "docform.schema.json").read_text())["title"] == "docform manifest"


def test_the_schema_line_points_at_the_repository_schema_when_there_is_one(
    rich: Path, tmp_path: Path
) -> None:
    repository = tmp_path / "repository"
    (repository / ".git").mkdir(parents=True)
    (repository / "schemas").mkdir()
    (repository / "schemas" / "docform.schema.json").write_text("{}")

    out = exported(rich, repository / "orgs" / "rich")

    first_line = (out / "teams.yaml").read_text().splitlines()[0]
    assert first_line == "# yaml-language-server: $schema=../../schemas/docform.schema.json"
    assert not (out / "docform.schema.json").exists()


def test_teams_with_the_same_title_get_distinct_stable_names(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")
    older, newer = ids_oldest_first(rich, f"{ORG}/teams", "Platform")

    teams = section(out, "teams.yaml", "teams")

    twin = f"platform-{newer[:6].lower()}"
    assert teams[twin] == {"title": "Platform", "members": {}}
    assert (locked(out)["team.platform"], locked(out)[f"team.{twin}"]) == (older, newer)
    assert teams["platform"]["members"] == {"ada@rich.test": "owner", "ben@rich.test": "member"}


def test_spaces_and_collections_with_the_same_title_get_distinct_names(
    rich: Path, tmp_path: Path
) -> None:
    out = exported(rich, tmp_path / "repo")

    spaces = section(out, "content.yaml", "spaces")
    collections = section(out, "content.yaml", "collections")

    overviews = {name: s["collection"] for name, s in spaces.items() if s["title"] == "Overview"}
    guides = {name: c["parent"] for name, c in collections.items() if c["title"] == "Guides"}
    assert len(overviews) == 2 and len(guides) == 2
    assert set(overviews.values()) == set(guides)
    assert sorted(guides.values()) == ["engineering", "product"]
    assert collections["internals"]["parent"] == "services"
    assert collections["services"]["parent"] == "backend"


def test_sites_keep_their_structure_in_live_order(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")

    sites = section(out, "sites.yaml", "sites")

    docs = sites["rich-docs"]
    assert "id" not in docs
    assert locked(out)["site.rich-docs"] == "site_docs"
    assert {n: g["sections"] for n, g in docs["sectionGroups"].items()} == {
        "learn": ["start", "guides"],
        "reference": ["api"],
    }
    assert list(docs["sections"]["start"]["spaces"]) == ["handbook", "changelog"]
    assert docs["sections"]["start"]["default"] is True
    assert docs["sections"]["start"]["spaces"]["changelog"]["hidden"] is True
    assert docs["sections"]["misc"]["condition"] == "visitor.claims.beta"
    assert list(sites["help-center"]["spaces"]) == ["faq", "changes"]
    assert "sections" not in sites["status"]


def test_saml_certificate_goes_to_its_own_file(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")

    okta = section(out, "saml.yaml", "saml")["okta"]

    assert okta["certificate"] == {"file": "certs/okta.pem"}
    assert okta["defaultTeam"] == "platform"
    assert (out / "certs" / "okta.pem").read_text() == (
        (FIXTURES / "rich-org" / "certs" / "okta.pem").read_text().strip() + "\n"
    )
    assert "BEGIN CERTIFICATE" not in (out / "saml.yaml").read_text()


def test_members_are_written_with_guest_for_the_null_role(rich: Path, tmp_path: Path) -> None:
    out = exported(rich, tmp_path / "repo")

    members = section(out, "members.yaml", "members")

    assert members["fox@partner.test"] == {"role": "guest"}
    assert members["dee@rich.test"] == {"role": "review", "sso": True}
    assert (out / "members.yaml").read_text().splitlines()[2] == "  ada@rich.test: {role: admin}"
    assert locked(out)["member.fox@partner.test"] == "u_fox"


def test_the_lock_ties_every_entry_and_no_entry_but_the_organization_pins_an_id(
    rich: Path, tmp_path: Path
) -> None:
    """Identity has one home: docform.lock holds an id for every exported entry whose kind the
    lock ties; the manifests pin none (the organization's id is its only key)."""
    out = exported(rich, tmp_path / "repo")

    manifests = load_manifest_set(out)
    entries = [e for e in manifests.entries() if e is not manifests.organization]

    assert [e.address for e in entries if getattr(e, "id", None)] == []
    assert sorted(locked(out)) == sorted(e.address for e in entries)
    assert {type(e).__name__ for e in entries} == {
        "CollectionEntry", "MemberEntry", "OpenApiEntry", "SamlEntry", "SectionEntry",
        "SectionGroupEntry", "SiteEntry", "SiteSpaceEntry", "SpaceEntry", "TeamEntry",
    }  # fmt: skip
    assert plan_json(out, rich)["notes"] == []


# -- refusals and secrets ------------------------------------------------------------------------


def test_a_non_empty_directory_is_refused_without_force(rich: Path, tmp_path: Path) -> None:
    out = tmp_path / "repo"
    out.mkdir()
    (out / "notes.txt").write_text("mine")

    result = export(rich, out)

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out} is not empty (it holds notes.txt); export into a new or empty "
        "directory, or pass --force to overwrite the files export writes\n"
    )
    assert files_of(out) == {"notes.txt": b"mine"}


def test_force_overwrites_the_files_export_writes(rich: Path, tmp_path: Path) -> None:
    out = tmp_path / "repo"
    out.mkdir()
    (out / "teams.yaml").write_text("teams: {old: {title: Old}}\n")
    (out / "notes.txt").write_text("mine")

    result = export(rich, out, "--force")

    assert result.exit_code == 0, result.output
    assert "old" not in section(out, "teams.yaml", "teams")
    assert (out / "notes.txt").read_text() == "mine"
    assert_converged(out, rich)


def test_an_unknown_organization_writes_nothing(rich: Path, tmp_path: Path) -> None:
    result = run(["export", "org_nope", tmp_path / "repo"], rich)

    assert result.exit_code == 1
    assert result.stderr == (
        "Error: organization 'org_nope' does not exist or this token cannot see it; check "
        "ORG_ID, DOCFORM_API_URL and DOCFORM_API_TOKEN\n"
    )
    assert not (tmp_path / "repo").exists()


def test_credentials_in_a_source_url_are_left_to_the_environment(tmp_path: Path) -> None:
    sandbox = seeded_sandbox(tmp_path)
    secret_url = "https://reader:s3cr3t-pass@specs.example.test/private.yaml"
    body = {"slug": "private", "source": {"url": secret_url}}
    live_api(sandbox, "POST", "/orgs/org_acme/openapi", body)
    out = tmp_path / "repo"

    result = run(["export", "org_acme", out], sandbox)

    assert result.exit_code == 0, result.output
    variable = "DOCFORM_OPENAPI_PRIVATE_SOURCE_URL"
    assert f"set {variable} before validate, plan or apply" in result.stderr
    assert section(out, "openapi.yaml", "openapi")["private"]["source"] == {
        "url": f"${{env:{variable}}}"
    }
    assert all(b"s3cr3t" not in text for text in files_of(out).values())
    assert "s3cr3t" not in result.output
    env = {"DOCFORM_API_URL": f"sandbox:{sandbox}", variable: secret_url, "NO_COLOR": "1"}
    plan = CliRunner().invoke(cli, ["plan", str(out), "--detailed-exitcode"], env=env)
    assert plan.exit_code == 0, plan.output


def test_the_token_is_never_written(rich: Path, tmp_path: Path) -> None:
    token = "tok_ada_0123456789"
    env = {"DOCFORM_API_URL": f"sandbox:{rich}", "DOCFORM_API_TOKEN": token, "NO_COLOR": "1"}

    result = CliRunner().invoke(cli, ["export", "org_rich", str(tmp_path / "repo")], env=env)

    assert result.exit_code == 0, result.output
    assert token not in result.output
    assert all(token.encode() not in text for text in files_of(tmp_path / "repo").values())


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Queue: internals", "queue-internals"),
        ("Café Guide", "cafe-guide"),
        ("  --API v2--  ", "api-v2"),
        ("🚀", "space"),
        ("x" * 80, "x" * 60),
    ],
)
def test_names_are_slugs_of_titles(title: str, name: str) -> None:
    assert slugify(title, "space") == name


def test_examples_acme_exported_plans_no_change(
    applied_acme: tuple[Path, Path], tmp_path: Path
) -> None:
    """examples/acme as a new user applies it, exported: the lock ties every entry, and the
    plan of the export is empty."""
    _, sandbox = applied_acme
    out = tmp_path / "exported"

    result = run(["export", "org_acme", out], sandbox)

    assert result.exit_code == 0, result.output
    plan = plan_json(out, sandbox)
    assert (plan["changes"], plan["unmanaged"], plan["notes"]) == ([], [], [])
    pinning = [p.name for p in out.glob("*.yaml") if "id:" in p.read_text(encoding="utf-8")]
    assert pinning == ["organization.yaml"]
