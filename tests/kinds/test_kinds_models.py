"""The manifest models of the kinds: shorthands, natural keys, roles (docform/kinds/*)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from docform.kinds.collection import CollectionEntry
from docform.kinds.member import MemberEntry
from docform.kinds.openapi import OpenApiEntry
from docform.kinds.organization import OrganizationEntry
from docform.kinds.saml import SamlEntry
from docform.kinds.section import SectionEntry
from docform.kinds.section_group import SectionGroupEntry
from docform.kinds.site import SiteEntry
from docform.kinds.site_space import SiteSpaceEntry
from docform.kinds.space import SpaceEntry
from docform.kinds.team import TeamEntry
from docform.model.entry import BoundModel, Entry, Location
from docform.model.fields import Secret, role_value

HERE = Location("m.yaml", 1, 1)


def bound(entry: Entry, *path: str, scope: tuple[str, ...] = ()) -> Entry:
    entry.bind(path, HERE, scope)
    return entry


def test_member_role_shorthand_means_role() -> None:
    assert MemberEntry.model_validate("edit") == MemberEntry(role="edit")


def test_guest_is_the_api_null_role() -> None:
    assert role_value("guest") is None
    assert role_value("read") == "read"


def test_member_natural_key_is_the_lower_cased_email() -> None:
    member = bound(MemberEntry(role="read"), "members", "Alice@Acme.test")
    assert member.natural_key() == "alice@acme.test"


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        (OrganizationEntry(id="org_acme"), "org_acme"),
        (TeamEntry(title="Platform"), "Platform"),
        (CollectionEntry(title="Runbooks", parent="eng"), ("eng", "Runbooks")),
        (SpaceEntry(title="Handbook"), (None, "Handbook")),
        (SiteEntry(id="site_docs", title="Docs"), ("id", "site_docs")),
        (SiteEntry(title="Docs"), ("title", "Docs")),
        (SectionGroupEntry(title="Guides"), "Guides"),
        (SectionEntry(path="start"), "start"),
        (OpenApiEntry(slug="pets", source={"url": "https://x.test/a"}), "pets"),
        (SamlEntry(label="Okta"), "Okta"),
    ],
)
def test_natural_key_of_each_kind(entry: BoundModel, key: object) -> None:
    assert entry.natural_key() == key


def test_site_space_natural_key_is_section_and_path() -> None:
    in_section = bound(SiteSpaceEntry(space="h", path="v1"), "x", scope=("docs", "start"))
    at_root = bound(SiteSpaceEntry(space="h", path="v1"), "x", scope=("docs",))
    assert in_section.natural_key() == ("start", "v1")
    assert at_root.natural_key() == (None, "v1")


def test_site_children_list_groups_then_sections_with_their_spaces() -> None:
    site = SiteEntry.model_validate(
        {
            "id": "s",
            "sectionGroups": {"g": {"title": "G"}},
            "sections": {"a": {"path": "a", "spaces": {"x": {"space": "h", "path": "x"}}}},
        }
    )
    assert [type(child).__name__ for child in site.children()] == [
        "SectionGroupEntry",
        "SectionEntry",
        "SiteSpaceEntry",
    ]


def test_secret_field_accepts_a_plain_string_from_python() -> None:
    provider = SamlEntry(label="Okta", certificate="PEM")
    assert provider.certificate == Secret.literal("PEM")


def test_secret_length_limit_message_never_quotes_the_value() -> None:
    with pytest.raises(ValidationError) as caught:
        SamlEntry(label="Okta", certificate="x" * 10001)
    assert caught.value.errors()[0]["msg"] == "Value error, must be at most 10000 characters"


def test_merge_rule_with_users_needs_users() -> None:
    with pytest.raises(ValidationError, match="needs a list of users"):
        SpaceEntry.model_validate(
            {"title": "S", "mergeRules": {"type": "rules", "rules": [{"rule": "allow_bypass"}]}}
        )
