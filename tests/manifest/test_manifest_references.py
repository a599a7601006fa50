"""The checks between entries (manifest/references.py) on their own: manifests written to disk,
read and validated, then `check_references`; each test names the one problem it expects."""

from __future__ import annotations

import textwrap
from pathlib import Path

from docform.manifest.entries import validate_entries
from docform.manifest.references import check_references
from docform.manifest.sources import read_directory
from planning import write_manifests

ORGANIZATION = """\
    organization: {id: org_acme, title: Acme}
    members: {alice@acme.test: admin}
"""


def reference_problems(tmp_path: Path, yaml_text: str) -> list[str]:
    """The problems `check_references` adds for ``yaml_text`` (after the organization)."""
    directory = write_manifests(
        tmp_path / "m", textwrap.dedent(ORGANIZATION) + textwrap.dedent(yaml_text)
    )
    tree = read_directory(directory)
    entries = validate_entries(tree)
    assert [str(p) for p in tree.problems] == []
    check_references(tree, entries)
    return [str(p) for p in tree.problems]


def test_a_reference_to_an_unknown_collection_names_the_closest(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        collections: {engineering: {title: Engineering}}
        spaces: {handbook: {title: Handbook, collection: enginering}}
        """,
    )
    assert problems == [
        "main.yaml:4:38: spaces.handbook.collection: unknown collection 'enginering' "
        "(did you mean 'engineering'?)"
    ]


def test_a_team_member_must_be_an_organization_member(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path, "teams: {core: {title: Core, members: {bob@acme.test: member}}}\n"
    )
    assert problems == [
        "main.yaml:3:39: teams.core.members.bob@acme.test: unknown member 'bob@acme.test' "
        "(did you mean 'alice@acme.test'?)"
    ]


def test_collection_parents_that_form_a_cycle_are_one_problem(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        collections:
          a: {title: A, parent: b}
          b: {title: B, parent: a}
        """,
    )
    assert problems == [
        "main.yaml:4:17: collections.a.parent: collection parents form a cycle: a -> b -> a"
    ]


def test_a_section_listed_in_two_groups_names_the_first(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        sites:
          docs:
            title: Docs
            sections: {start: {title: Start, path: start}}
            sectionGroups:
              one: {title: One, sections: [start]}
              two: {title: Two, sections: [start]}
        """,
    )
    assert problems == [
        "main.yaml:9:36: sites.docs.sectionGroups.two.sections[0]: section 'start' is already "
        "in section group 'one'"
    ]


def test_a_section_of_another_site_says_whose_it_is(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        sites:
          docs:
            title: Docs
            sectionGroups: {one: {title: One, sections: [api]}}
          dev:
            title: Dev
            sections: {api: {title: API, path: api}}
        """,
    )
    assert problems == [
        "main.yaml:6:50: sites.docs.sectionGroups.one.sections[0]: section 'api' belongs to "
        "site 'dev', not 'docs'"
    ]


def test_two_default_site_spaces_of_a_section_are_a_problem(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        spaces: {a: {title: A}, b: {title: B}}
        sites:
          docs:
            title: Docs
            spaces:
              one: {space: a, path: a, default: true}
              two: {space: b, path: b, default: true}
        """,
    )
    assert problems == [
        "main.yaml:9:32: sites.docs.spaces.two.default: only one site space of a section can "
        "be the default (already 'one')"
    ]


def test_two_entries_with_the_same_natural_key_are_a_problem(tmp_path: Path) -> None:
    problems = reference_problems(
        tmp_path,
        """\
        spaces:
          a: {title: Same}
          b: {title: Same}
        """,
    )
    assert problems == [
        "main.yaml:5:3: spaces.b: same collection and title as 'a' (main.yaml:4:3); pin an id "
        "on both to tell them apart"
    ]
