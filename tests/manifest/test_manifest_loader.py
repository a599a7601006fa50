"""Loading a manifest directory into a ManifestSet (manifest/loader.py and its helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_manifest_corpus import CORPUS, VALID_ENV, load_valid

from docform.manifest import (
    ManifestError,
    Secret,
    UnresolvedReference,
    load_manifest_set,
    resolve_secret,
)
from docform.manifest.sources import SECTIONS
from docform.model.entry import Location

FULL = CORPUS / "valid" / "full"
OKTA_PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUTEST\n-----END CERTIFICATE-----"


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return directory


def problems_of(directory: Path, env: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        load_manifest_set(directory, env=env or {})
    return [str(problem) for problem in caught.value.problems]


def test_files_are_read_in_sorted_path_order_subfolders_included() -> None:
    assert load_valid("full").files == [
        "content.yaml",
        "integrations.yaml",
        "organization.yaml",
        "people.yaml",
        "settings.yaml",
        "sites/docs.yaml",
    ]


def test_entries_keep_the_order_they_were_written_in() -> None:
    manifests = load_valid("full")
    assert list(manifests.section("spaces")) == ["handbook", "oncall", "api-guide"]
    assert list(manifests.section("sites")["docs"].sections) == ["start", "operations"]
    assert list(manifests.section("sites")["docs"].sections["start"].spaces) == ["main", "legacy"]


def test_sections_split_across_files_keep_file_then_document_order(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "b.yaml": "teams:\n  second: {title: Second}\n---\nteams:\n  third: {title: Third}\n",
            "a.yaml": "organization: {id: org_acme}\nteams:\n  first: {title: First}\n",
        },
    )
    assert list(load_manifest_set(tmp_path, env={}).section("teams")) == [
        "first",
        "second",
        "third",
    ]


def test_entry_knows_its_name_location_address_and_scope() -> None:
    site_space = load_valid("full").section("sites")["docs"].sections["start"].spaces["legacy"]
    assert site_space.name == "legacy"
    assert site_space.location == Location("sites/docs.yaml", 33, 11)
    assert site_space.address == "site.docs.section.start.space.legacy"
    assert site_space.scope == ("docs", "start")
    assert site_space.source_path == ("sites", "docs", "sections", "start", "spaces", "legacy")


def test_where_an_entry_was_written_is_never_one_of_its_fields() -> None:
    site = load_valid("full").section("sites")["docs"]
    section = site.sections["start"]
    legacy = section.spaces["legacy"]
    assert set(legacy.model_dump()) == set(type(legacy).model_fields)
    assert "sites/docs.yaml" not in legacy.model_dump_json()
    copied = section.model_copy()
    assert (copied.address, copied.location) == (section.address, section.location)
    # An entry built by hand, never loaded, has no place in the manifests.
    unbound = type(section).model_validate({"title": "Start", "path": "start"})
    assert (unbound.name, unbound.scope, str(unbound.location)) == ("", (), ":0:0")


def test_addresses_of_every_kind() -> None:
    addresses = [entry.address for entry in load_valid("full").entries()]
    assert addresses[:4] == [
        "organization",
        "member.alice@acme.test",
        "member.bob@acme.test",
        "member.erin@acme.test",
    ]
    assert "site.docs.sectionGroup.guides" in addresses
    assert "site.blog.space.posts" in addresses
    assert addresses[-1] == "gitSync.docs"


def test_managed_holds_only_the_fields_written() -> None:
    manifests = load_valid("full")
    assert manifests.section("collections")["engineering"].managed() == {
        "title": "Engineering",
        "description": "How we build",
        "defaultLevel": "inherit",
    }
    assert manifests.section("sites")["blog"].managed() == {
        "title": "Acme Blog",
        "visibility": "unlisted",
    }


def test_identity_fields_are_read() -> None:
    runbooks = load_valid("full").section("collections")["runbooks"]
    assert (runbooks.id, runbooks.formerly, runbooks.protect) == (
        "col_runbooks",
        ["Playbooks"],
        True,
    )


def test_settings_and_their_defaults() -> None:
    settings = load_valid("full").settings
    assert settings.api == "sandbox:.docform/test.sqlite"
    assert settings.prune.teams is True
    assert settings.limits.maxDeletions == 5
    minimal = load_valid("minimal").settings
    assert (minimal.api, minimal.prune.members, minimal.limits.maxDeletions) == (None, False, 10)
    assert (minimal.limits.maxDeletionShare, minimal.limits.parallelism) == (0.25, 8)


def test_secret_from_a_file_keeps_the_reference_and_the_stripped_text() -> None:
    certificate = load_valid("full").section("saml")["okta"].certificate
    assert certificate == Secret({"file": "certs/okta.pem"}, OKTA_PEM)


def test_secret_from_env_keeps_the_reference() -> None:
    url = load_valid("full").section("openapi")["billing"].source.url
    assert url.reference == "https://${env:DOCFORM_TEST_SPEC_AUTH}@specs.acme.test/billing.yaml"
    assert url.value == "https://reader:s3cret@specs.acme.test/billing.yaml"


def test_secret_repr_and_str_never_show_the_value() -> None:
    manifests = load_valid("full")
    texts = [
        repr(manifests.section("openapi")["billing"]),
        str(manifests.section("openapi")["billing"].source.url),
        repr(manifests.section("saml")["okta"]),
        repr(manifests.section("openapi")["petstore"].source.url),
    ]
    assert not any("s3cret" in text or "MIIB" in text for text in texts)
    assert repr(manifests.section("openapi")["petstore"].source.url) == "Secret(<literal>)"
    assert str(manifests.section("saml")["okta"].certificate) == "{file: certs/okta.pem}"


def test_resolve_secret_resolves_a_saved_reference_again() -> None:
    secret = resolve_secret({"file": "certs/okta.pem"}, FULL, {})
    assert secret.value == OKTA_PEM
    assert resolve_secret("${env:X}", FULL, {"X": "y"}) == Secret("${env:X}", "y")


def test_resolve_secret_names_a_missing_variable() -> None:
    with pytest.raises(UnresolvedReference, match="environment variable 'X' is not set"):
        resolve_secret("${env:X}", FULL, {})


def test_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in VALID_ENV.items():
        monkeypatch.setenv(name, value)
    assert load_manifest_set(FULL).settings.api == "sandbox:.docform/test.sqlite"


def test_hidden_folders_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, {"m.yaml": "organization: {id: org_acme}\n", ".docform/x.yaml": "bad: 1\n"})
    assert load_manifest_set(tmp_path, env={}).files == ["m.yaml"]


def test_directory_without_manifests_is_an_error(tmp_path: Path) -> None:
    assert problems_of(tmp_path) == [".: no manifest files (*.yaml, *.yml)"]


def test_emails_differing_only_in_case_are_the_same_member(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"m.yaml": "organization: {id: o}\nmembers:\n  a@x.test: read\n  A@x.test: edit\n"},
    )
    assert problems_of(tmp_path) == [
        "m.yaml:4:3: members.A@x.test: same email as 'a@x.test' (m.yaml:3:3)"
    ]


def test_same_title_is_allowed_when_both_pin_ids(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "m.yaml": "organization: {id: o}\nteams:\n"
            "  a: {title: Same, id: t1}\n  b: {title: Same, id: t2}\n"
        },
    )
    assert len(load_manifest_set(tmp_path, env={}).section("teams")) == 2


def test_null_removes_a_value_where_the_api_allows_it(tmp_path: Path) -> None:
    write(tmp_path, {"m.yaml": "organization: {id: o}\nspaces:\n  s: {title: S, emoji: null}\n"})
    assert load_manifest_set(tmp_path, env={}).section("spaces")["s"].managed() == {
        "title": "S",
        "emoji": None,
    }


def test_a_broken_file_does_not_cause_reference_errors_elsewhere(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a.yaml": "organization: {id: o}\nspaces:\n  s: {title: S, collection: c}\n",
            "b.yaml": "collections:\n  c: {title: C\n",
        },
    )
    assert problems_of(tmp_path) == [
        "b.yaml:3:1: invalid YAML: while parsing a flow mapping, did not find expected ',' or '}'"
    ]


def test_error_message_lists_every_problem(tmp_path: Path) -> None:
    write(tmp_path, {"m.yaml": "organization: {id: o, title: A}\nteams:\n  t: {}\n"})
    with pytest.raises(ManifestError) as caught:
        load_manifest_set(tmp_path, env={})
    assert str(caught.value) == (
        "2 problems in the manifests:\n"
        "m.yaml:1:23: organization.title: must be at least 2 characters\n"
        "m.yaml:3:3: teams.t.title: is required"
    )


def test_entries_from_an_alias_are_located_where_the_alias_is_used(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a.yaml": "organization: {id: o}\nteams: &t\n  x: {title: X}\n",
            "b.yaml": "teams: *t\n",
            "c.yaml": "x: &t\n  y: {title: Y}\nteams: *t\n",
        },
    )
    assert problems_of(tmp_path) == [
        "b.yaml:1:8: undefined alias '*t'",
        f"c.yaml:1:1: x: unknown section 'x' (expected one of: {', '.join(SECTIONS)})",
    ]
    assert SECTIONS[:2] == ("docform", "organization") and SECTIONS[-1] == "policies"
