"""`docform adopt` (workflow/adopt.py, manifest/edit.py): hand changes written into the
manifests in place, against the sandbox."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from live_objects import space_id
from planning import (
    FIXTURES,
    apply,
    assert_converged,
    copy_sandbox,
    in_ui,
    live_api,
    run,
    seeded_sandbox,
    write_manifests,
)

ADOPT = FIXTURES / "adopt"
ROOT = Path(__file__).parents[2]
ALICE = "alice@acme.test"
TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


@pytest.fixture(scope="module")
def applied_once(tmp_path_factory: pytest.TempPathFactory, seeded_once: Path) -> tuple[Path, Path]:
    """The commented, anchored manifests of ``fixtures/adopt`` applied to the seeded sandbox:
    arranged once, copied by each test."""
    folder = tmp_path_factory.mktemp("applied")
    sandbox = copy_sandbox(seeded_once, folder)
    directory = folder / "manifests"
    directory.mkdir()
    shutil.copy(ADOPT / "manifests.yaml", directory / "main.yaml")
    apply(directory, sandbox, rehearse=False)
    return directory, sandbox


@pytest.fixture
def applied(tmp_path: Path, sandbox: Path, applied_once: tuple[Path, Path]) -> Path:
    """The commented, anchored manifests of ``fixtures/adopt``, applied to the sandbox (a copy
    of `applied_once`: its manifests, its organization copied over the test's sandbox)."""
    assert copy_sandbox(applied_once[1], sandbox.parent) == sandbox
    return Path(shutil.copytree(applied_once[0], tmp_path / "manifests"))


def _hand_changes(sandbox: Path) -> str:
    """Alice changes a title, creates a team and deletes a space in the UI; the team's id."""
    handbook = space_id(sandbox, "Handbook")
    in_ui(sandbox, ALICE, "PATCH", f"/spaces/{handbook}", {"title": "Company handbook"})
    team = in_ui(sandbox, ALICE, "PUT", "/orgs/org_acme/teams", {"title": "Reviewers"})
    members = f"/orgs/org_acme/teams/{team['id']}/members"
    in_ui(sandbox, ALICE, "PUT", members, {"add": ["erin@acme.test"]})
    in_ui(sandbox, ALICE, "DELETE", f"/spaces/{space_id(sandbox, 'Scratch')}")
    return str(team["id"])


def test_adopt_keeps_the_file_but_the_adopted_lines_then_plan_is_empty(applied, sandbox):
    team_id = _hand_changes(sandbox)
    result = run(["adopt", applied], sandbox)
    assert result.exit_code == 0, result.output
    golden = (ADOPT / "adopted.yaml").read_text(encoding="utf-8").replace("TEAM_ID", team_id)
    assert (applied / "main.yaml").read_text(encoding="utf-8") == golden
    who = f"    changed by Alice Admin <alice@acme.test> at {TIME} in the UI"
    assert re.fullmatch(
        f"Adopted 3 drifted objects into {re.escape(str(applied / 'main.yaml'))}:\n"
        "  space.scratch: removed its entry in main.yaml\n"
        f"{who} \\(organization.space.deleted\\)\n"
        "  space.handbook: wrote title in main.yaml\n"
        f"{who} \\(organization.space.updated\\)\n"
        "  team.reviewers: added its entry in main.yaml\n"
        f"{who} \\(organization.team.member-updated\\)\n"
        "Planning the written manifests shows no changes for what was adopted; review the "
        "files and commit them.\n",
        result.stdout,
    ), result.stdout
    assert_converged(applied, sandbox)


def test_the_markdown_names_who_made_each_adopted_change(applied, sandbox, tmp_path):
    _hand_changes(sandbox)
    body = tmp_path / "pr.md"
    result = run(["adopt", applied, "--markdown-out", body], sandbox)
    assert result.exit_code == 0, result.output
    text = body.read_text(encoding="utf-8")
    assert text.startswith(
        "### docform adopt\n\nThe live organization was changed outside the manifests by "
        "Alice Admin (alice@acme.test). This writes those changes into the manifests"
    )
    assert re.search(
        r"\| `space.handbook`: wrote title \| `main.yaml` \| \*\*Alice Admin "
        rf"\(alice@acme.test\)\*\* at {TIME} in the UI \|",
        text,
    ), text
    assert "close it and run `docform apply` to put the live organization back" in text


def test_target_and_exclude_choose_what_is_adopted_the_rest_stays_drift(applied, sandbox):
    _hand_changes(sandbox)
    result = run(["adopt", applied, "--target", "team.*", "--exclude", "space.scratch"], sandbox)
    assert result.exit_code == 0, result.output
    assert "  team.reviewers: added its entry in main.yaml\n" in result.stdout
    assert "space." not in result.stdout
    drift = run(["drift", applied], sandbox)
    assert drift.exit_code == 2, drift.output
    assert "~ space.handbook" in drift.stdout
    assert "space.scratch" in drift.stdout
    assert "team." not in drift.stdout


def test_a_target_matching_nothing_writes_nothing(applied, sandbox):
    before = (applied / "main.yaml").read_text(encoding="utf-8")
    result = run(["adopt", applied, "--target", "team.revewers"], sandbox)
    assert result.exit_code == 1
    assert "--target team.revewers matches no address" in result.stderr
    assert (applied / "main.yaml").read_text(encoding="utf-8") == before


def test_a_shorthand_member_stays_a_shorthand(applied, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_acme/members/u_erin", {"role": "read"})
    result = run(["drift", applied, "--adopt"], sandbox)
    assert result.exit_code == 2, result.output
    assert "member.erin@acme.test: wrote role in main.yaml" in result.stderr
    text = (applied / "main.yaml").read_text(encoding="utf-8")
    assert "  erin@acme.test: read\n" in text
    assert_converged(applied, sandbox)


def test_adopt_with_no_drift_writes_nothing(applied, sandbox):
    before = (applied / "main.yaml").read_text(encoding="utf-8")
    result = run(["adopt", applied], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Nothing to adopt")
    assert (applied / "main.yaml").read_text(encoding="utf-8") == before


def test_adopted_entries_that_would_not_validate_are_not_written(tmp_path, sandbox):
    # A hand-made team whose member the manifests do not list: its entry would not validate.
    directory = write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme, title: Acme}
        members: {alice@acme.test: admin}
        sites: {docs: {id: site_docs, title: Acme Docs}}
        """,
    )
    before = (directory / "main.yaml").read_text(encoding="utf-8")
    team = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Reviewers"})
    live_api(sandbox, "PUT", f"/orgs/org_acme/teams/{team['id']}/members", {"add": ["u_erin"]})
    result = run(["adopt", directory, "--target", "team.*"], sandbox)
    assert result.exit_code == 1
    assert "would not be valid, so nothing was written" in result.stderr
    assert "erin@acme.test" in result.stderr
    assert (directory / "main.yaml").read_text(encoding="utf-8") == before


def test_a_team_deleted_by_hand_loses_its_entry_and_its_lock_line(applied, sandbox):
    teams = live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]
    writers = next(t["id"] for t in teams if t["title"] == "Writers")
    assert f"team.writers: {writers}" in (applied / "docform.lock").read_text(encoding="utf-8")
    in_ui(sandbox, ALICE, "DELETE", f"/orgs/org_acme/teams/{writers}")
    result = run(["adopt", applied, "--target", "team.writers"], sandbox)
    assert result.exit_code == 0, result.output
    assert "  team.writers: removed its entry in main.yaml\n" in result.stdout
    text = (applied / "main.yaml").read_text(encoding="utf-8")
    assert "writers" not in text
    assert "team.writers" not in (applied / "docform.lock").read_text(encoding="utf-8")
    assert_converged(applied, sandbox)


titles = (
    st.text("abcdefghij XYZ-", min_size=2, max_size=20).map(str.strip).filter(lambda t: len(t) >= 2)
)


@settings(
    max_examples=fuzz_examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    renamed=st.dictionaries(st.sampled_from(["Handbook", "Runbooks", "Glossary"]), titles),
    deleted=st.sets(st.sampled_from(["Scratch", "Glossary"]), max_size=2),
    team=st.none() | titles,
)
def test_any_hand_changes_adopted_plan_empty_and_comments_kept(
    tmp_path_factory, renamed, deleted, team
):
    root = tmp_path_factory.mktemp("adopt-any")
    sandbox = seeded_sandbox(root)
    directory = root / "manifests"
    directory.mkdir()
    shutil.copy(ADOPT / "manifests.yaml", directory / "main.yaml")
    apply(directory, sandbox)
    before = (directory / "main.yaml").read_text(encoding="utf-8")
    for title, new_title in renamed.items():
        if title not in deleted:
            in_ui(
                sandbox,
                ALICE,
                "PATCH",
                f"/spaces/{space_id(sandbox, title)}",
                {"title": new_title},
            )
    for title in deleted:
        in_ui(sandbox, ALICE, "DELETE", f"/spaces/{space_id(sandbox, title)}")
    if team is not None and team != "Writers":
        in_ui(sandbox, ALICE, "PUT", "/orgs/org_acme/teams", {"title": team})
    result = run(["adopt", directory], sandbox)
    assert result.exit_code == 0, result.output
    assert_converged(directory, sandbox)
    after = (directory / "main.yaml").read_text(encoding="utf-8")
    gone = {"Scratch": "# Scratch space", "Glossary": "# (none)"}
    for line in before.splitlines():
        if line.lstrip().startswith("#") and not any(gone[t] in line for t in deleted):
            assert line in after.splitlines(), f"lost: {line!r}\n{after}"


def test_a_new_entry_goes_into_the_file_where_its_section_is_written(tmp_path, sandbox):
    directory = write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme, title: Acme}
        members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
        sites: {docs: {id: site_docs, title: Acme Docs}}
        """,
    )
    (directory / "people").mkdir()
    write_manifests(directory, "# Our teams.\nteams:\n  core: {title: Core}\n", "people/teams.yaml")
    apply(directory, sandbox)
    in_ui(sandbox, ALICE, "PUT", "/orgs/org_acme/teams", {"title": "Reviewers"})
    result = run(["adopt", directory], sandbox)
    assert result.exit_code == 0, result.output
    assert "  team.reviewers: added its entry in people/teams.yaml\n" in result.stdout
    teams = (directory / "people" / "teams.yaml").read_text(encoding="utf-8")
    assert teams.startswith("# Our teams.\nteams:\n  core: {title: Core}\n  reviewers: {id: ")
    assert "reviewers" not in (directory / "main.yaml").read_text(encoding="utf-8")
    assert_converged(directory, sandbox)


def test_access_given_and_taken_by_hand_is_written_into_the_entry(tmp_path, sandbox):
    directory = write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme, title: Acme}
        members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
        sites: {docs: {id: site_docs, title: Acme Docs}}
        teams:
          core: {title: Core}
          docs: {title: Docs}
        spaces:
          handbook:
            title: Handbook
            access: {teams: {core: edit}}   # who may write it
        """,
    )
    apply(directory, sandbox)
    space = space_id(sandbox, "Handbook")
    teams = {t["title"]: t["id"] for t in live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]}
    in_ui(sandbox, ALICE, "DELETE", f"/spaces/{space}/permissions/teams/{teams['Core']}")
    grant = {"role": "read", "teams": [teams["Docs"]]}
    in_ui(sandbox, ALICE, "POST", f"/spaces/{space}/permissions", grant)
    result = run(["adopt", directory], sandbox)
    assert result.exit_code == 0, result.output
    assert "  space.handbook: wrote access in main.yaml\n" in result.stdout
    text = (directory / "main.yaml").read_text(encoding="utf-8")
    assert "    access: {teams: {docs: read}}   # who may write it\n" in text
    assert_converged(directory, sandbox)


def test_adopt_says_what_it_wrote_only_when_the_next_plan_agrees(tmp_path, sandbox):
    """A hand change adopt cannot write exactly is reported as written-but-still-changed, and
    adopt never claims that planning shows no changes when it does not."""
    directory = write_manifests(
        tmp_path / "m",
        "organization: {id: org_acme}\nspaces: {handbook: {title: Handbook}}\n"
        "linkInvites: {guests: {level: guest, space: handbook}}\n",
    )
    apply(directory, sandbox)
    [invite] = live_api(sandbox, "GET", "/orgs/org_acme/link-invites")["items"]
    in_ui(sandbox, ALICE, "PATCH", f"/orgs/org_acme/link-invites/{invite['id']}", {"level": "read"})
    result = run(["adopt", directory, "--target", "link_invite.*"], sandbox)
    assert result.exit_code == 0, result.output
    # Attributed through the fingerprint docform keeps in the invite id's place.
    assert re.search(
        r"  linkInvite\.guests: wrote level in main\.yaml\n"
        rf"    changed by Alice Admin <alice@acme\.test> at {TIME} in the UI "
        r"\(organization\.link-invite\.updated\)\n"
        r"Planning the written manifests shows no changes for what was adopted; review the "
        r"files and commit them\.\n$",
        result.stdout,
    ), result.stdout
    assert "linkInvites: {guests: {level: read, space: handbook}}" in (
        directory / "main.yaml"
    ).read_text(encoding="utf-8")
    assert invite["id"] not in (directory / "main.yaml").read_text(encoding="utf-8")
    assert_converged(directory, sandbox)


SITE_BLOCKS = """
    customization:
      styling: {primaryColor: {light: "#0B5FFF", dark: "#5C8DFF"}, corners: circular}
      announcement: {enabled: true, message: "v2 is out", style: info}
    adaptiveContent:
      enabled: true
      schema:
        properties:
          plan: {type: string, enum: [free, pro], description: The visitor's plan}
"""
DEVDOCS = "/orgs/org_acme/sites/site_devdocs"


def _customization_by_hand(sandbox: Path) -> None:
    document = live_api(sandbox, "GET", f"{DEVDOCS}/customization")
    for answer_only in ("object", "updatedAt"):
        document.pop(answer_only, None)
    document["styling"]["corners"] = "straight"
    in_ui(sandbox, "u_maria", "PUT", f"{DEVDOCS}/customization", document)


def _adaptive_schema_by_hand(sandbox: Path) -> None:
    schema = live_api(sandbox, "GET", f"{DEVDOCS}/adaptive-schema")["jsonSchema"]
    schema["properties"]["plan"]["enum"] = ["free", "pro", "enterprise"]
    in_ui(sandbox, "u_maria", "PUT", f"{DEVDOCS}/adaptive-schema", {"jsonSchema": schema})


@pytest.mark.parametrize(
    ("hand_change", "block", "written"),
    [
        (_customization_by_hand, "customization", "corners: straight"),
        (_adaptive_schema_by_hand, "adaptiveContent", "enum: [free, pro, enterprise]"),
    ],
    ids=["customization", "adaptive-content"],
)
def test_a_block_that_is_one_live_object_is_written_back_whole_never_emptied(
    tmp_path, hand_change, block, written
):
    """A site's customization or adaptive content is one live object at the block's own
    address (not several under it, as a space's access is): adopt writes its live value into
    the block, never `{}` (which would drop it from management while the next plan agrees)."""
    manifests = tmp_path / "manifests"
    shutil.copytree(ROOT / "examples" / "acme" / "manifests", manifests)
    sites = manifests / "sites.yaml"
    text = sites.read_text(encoding="utf-8")
    anchor = "    visibility: public\n    published: true\n    protect: true\n"
    sites.write_text(text.replace(anchor, anchor + SITE_BLOCKS.lstrip("\n"), 1), encoding="utf-8")
    sandbox = seeded_sandbox(tmp_path, ROOT / "examples" / "acme" / "sandbox-seed.yaml")
    apply(manifests, sandbox)
    hand_change(sandbox)
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    adopted = sites.read_text(encoding="utf-8")
    assert f"{block}: {{}}" not in adopted
    assert written in adopted
    assert_converged(manifests, sandbox)
