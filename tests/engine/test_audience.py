"""The audience diff (engine/audience.py, the kinds' audience facts, workflow/audience.py): what
a plan says of who reaches each space, collection and site, in text, Markdown and JSON, and the
service's aggregate lists read back after apply, through the CLI against the sandbox."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.engine.audience import (
    AudienceChange,
    Reach,
    live_side,
    org_role,
    person_grant,
    planned_side,
)
from docform.engine.audience_plan import plan_audience
from docform.engine.capabilities import TellsAudience
from docform.engine.doors import DoorCheck, door_check, kind_facts
from docform.engine.match import unmatched_address
from docform.engine.plan import Plan
from docform.kind_registry import build_kinds
from docform.manifest import load_manifest_set
from docform.workflow.audience import audience_differences, audience_notes, door_notes
from docform.workflow.connect import Client
from docform.workflow.read_back import read_back_audience, verify_by_reading
from docform.workflow.run import plan_manifests
from planning import (
    CANARY_TOKEN,
    apply,
    copy_applied,
    live_api,
    plan_json,
    run,
    seeded_and_applied,
    write_manifests,
)

BASE: dict[str, Any] = {
    "organization": {"id": "org_acme"},
    "docform": {"prune": {"members": True}},
    "members": {"alice@acme.test": "admin", "erin@acme.test": "read", "bob@acme.test": "guest"},
    "teams": {"support": {"title": "Support", "members": {"bob@acme.test": "member"}}},
    "spaces": {"handbook": {"title": "Handbook", "access": {"users": {"erin@acme.test": "read"}}}},
    "sites": {"docs": {"id": "site_docs", "visibility": "public"}},
}


def written(directory: Path, **changes: Any) -> Path:
    doc = json.loads(json.dumps(BASE))
    for path, value in changes.items():
        *parents, last = path.split("__")
        place = doc
        for part in parents:
            place = place[part]
        if value is None:
            del place[last]
        else:
            place[last] = value
    return write_manifests(directory, yaml.safe_dump(doc, sort_keys=False))


def audience(directory: Path, sandbox: Path) -> dict[str, list[str]]:
    """The plan's audience changes as ``{object: [line text]}`` (from its JSON)."""
    texts = {}
    for item in plan_json(directory, sandbox)["audience"]:
        texts[item["on"]] = [_text(line) for line in item["changes"]]
    return texts


def _text(line: dict[str, Any]) -> str:
    text = f"{line['change']} {line['who']}"
    if line["change"] == "~":
        return f"{text}: {line['before']} -> {line['after']}"
    role = line["after"] if line["change"] == "+" else line["before"]
    return text + (f": {role}" if role and "people" not in line else "")


def applied(directory: Path, sandbox: Path) -> str:
    """Apply, and the note that the audience was read back as predicted."""
    result = apply(directory, sandbox)
    assert "as the plan predicted" in result.output, result.output
    return result.output


@pytest.fixture(scope="module")
def base_applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """BASE applied to a seeded sandbox once for the module; tests take copies (``base``)."""
    manifests = written(tmp_path_factory.mktemp("base") / "manifests")
    return manifests, seeded_and_applied(manifests)


@pytest.fixture
def base(tmp_path: Path, base_applied: tuple[Path, Path]) -> tuple[Path, Path]:
    """BASE applied: the manifests (docform.lock with them) and the sandbox, the test's own."""
    return copy_applied(base_applied, tmp_path)


def test_a_team_grant_adds_the_team_and_its_members(base: tuple[Path, Path]) -> None:
    manifests, sandbox = base
    written(manifests, spaces__handbook__access__teams={"support": "edit"})
    assert audience(manifests, sandbox) == {
        "space.handbook": ["+ team Support (1 member): edit", "+ 1 member gains edit"]
    }
    text = run(["plan", manifests], sandbox).output
    assert "  space.handbook\n    + team Support (1 member): edit\n" in text
    assert "    + 1 member gains edit: bob@acme.test\n" in text
    markdown = run(["plan", manifests, "--markdown"], sandbox).output
    assert "# space.handbook\n+ team Support (1 member): edit\n" in markdown
    applied(manifests, sandbox)


def test_a_share_link_and_a_visibility_change_open_and_close_doors(base: tuple[Path, Path]) -> None:
    manifests, sandbox = base
    written(
        manifests,
        sites__docs={"id": "site_docs", "visibility": "share-link", "shareLinks": {"p": {}}},
    )
    assert audience(manifests, sandbox) == {
        "site.docs": [
            "+ anyone holding share link 'p'",
            "- anyone (public, indexed by search engines)",
        ]
    }
    output = applied(manifests, sandbox)
    assert "Note: ways in read back: 1 object open and closed as the plan predicted" in output
    written(
        manifests,
        sites__docs={
            "id": "site_docs",
            "visibility": "share-link",
            "shareLinks": {"p": {"active": False}},
        },
    )
    assert audience(manifests, sandbox) == {"site.docs": ["- anyone holding share link 'p'"]}
    output = applied(manifests, sandbox)
    assert "Note: ways in read back: 1 object open and closed as the plan predicted" in output


def test_a_spec_made_public_and_private_again_opens_and_closes_a_door(
    base: tuple[Path, Path],
) -> None:
    """A public OpenAPI spec is read by anyone with its link: made public, created public or
    made private, it is an audience change, applied and read back as predicted."""
    manifests, sandbox = base
    spec = {"slug": "api", "source": {"url": "https://api.acme.test/openapi.yaml"}}
    written(manifests, openapi={"api": {**spec, "visibility": "public"}})
    assert audience(manifests, sandbox) == {
        "openapi.api": ["+ anyone with its public link (public spec)"]
    }
    text = run(["plan", manifests], sandbox).output
    assert "  openapi.api\n    + anyone with its public link (public spec)\n" in text
    output = applied(manifests, sandbox)
    assert "Note: ways in read back: 1 object open and closed as the plan predicted" in output
    written(manifests, openapi={"api": {**spec, "visibility": "private"}})
    assert audience(manifests, sandbox) == {
        "openapi.api": ["- anyone with its public link (public spec)"]
    }
    applied(manifests, sandbox)
    written(manifests, openapi={"api": spec})
    assert audience(manifests, sandbox) == {}


def test_a_member_removed_loses_their_grants(base: tuple[Path, Path]) -> None:
    manifests, sandbox = base
    doc = yaml.safe_load((manifests / "main.yaml").read_text())
    del doc["members"]["erin@acme.test"]
    doc["spaces"]["handbook"]["access"] = {"users": {}}
    write_manifests(manifests, yaml.safe_dump(doc))
    assert audience(manifests, sandbox) == {
        "organization": ["- member erin@acme.test: read"],
        "space.handbook": ["- user erin@acme.test: read", "- 1 member loses read"],
    }
    applied(manifests, sandbox)
    live = live_api(sandbox, "GET", "/orgs/org_acme/members")["items"]
    assert "erin@acme.test" not in {m["user"].get("email") for m in live}


def test_an_organization_role_change_is_told_once(base: tuple[Path, Path]) -> None:
    manifests, sandbox = base
    doc = yaml.safe_load((manifests / "main.yaml").read_text())
    doc["members"]["bob@acme.test"] = "edit"
    write_manifests(manifests, yaml.safe_dump(doc))
    assert audience(manifests, sandbox) == {
        "organization": ["~ member bob@acme.test: guest -> edit"]
    }
    apply(manifests, sandbox)


def test_a_plan_that_changes_no_access_has_no_audience(base: tuple[Path, Path]) -> None:
    manifests, sandbox = base
    written(manifests, spaces__handbook__title="The Handbook")
    assert plan_json(manifests, sandbox)["audience"] == []


def test_spaces_created_with_grants_are_read_back_too(manifests: Path, sandbox: Path) -> None:
    """Handbook and Guide are both new: their ids come from the read that verifies the apply."""
    doc = json.loads(json.dumps(BASE))
    doc["spaces"]["guide"] = {"title": "Guide", "access": {"teams": {"support": "comment"}}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    output = applied(manifests, sandbox)
    assert "Note: audience read back: 2 objects as the plan predicted" in output


def test_a_difference_from_the_prediction_names_the_object_person_and_roles(
    base: tuple[Path, Path],
) -> None:
    """The check itself, against the sandbox's real aggregate list: a prediction that gives
    Bob edit where the service lists nobody but the organization's members with a role."""
    _, sandbox = base
    space_id = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"][0]["id"]
    facts = [
        org_role("alice@acme.test", "admin"),
        person_grant("space.handbook", "bob@acme.test", "edit"),
    ]
    wrong = AudienceChange("space.handbook", [], Reach(facts))
    assert wrong.predicted() == {"alice@acme.test": "admin", "bob@acme.test": "edit"}

    async def check() -> tuple[int, list[str]]:
        async with Client(f"sandbox:{sandbox}") as client:
            kinds = build_kinds("org_acme")
            return await audience_differences(client, kinds, [wrong], {"space.handbook": space_id})

    read, differences = asyncio.run(check())
    assert read == 1
    assert differences == [
        "space.handbook: bob@acme.test: the plan predicted edit, the service says no access",
        "space.handbook: erin@acme.test: the plan predicted no access, the service says read",
    ]
    assert audience_notes(read, differences)[0].startswith(
        "audience differs from the plan's prediction (2 differences)"
    )


def test_the_audience_read_back_keeps_none_of_the_lists_it_read(
    base: tuple[Path, Path], monkeypatch: Any
) -> None:
    """Each list read back names everyone who reaches its object: an apply compares it and
    lets it go (its client keeps no answer for a rehearsal, nothing is planned from it), a
    few lists at a time."""
    manifests, sandbox = base
    monkeypatch.setattr("docform.workflow.audience.READ_BACK_AT_ONCE", 1)
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    facts = [org_role("alice@acme.test", "admin")]
    changes = [AudienceChange(f"space.s{n}", [], Reach(facts)) for n in range(3)]
    ids = {f"space.s{n}": spaces[0]["id"] for n in range(3)}
    opened: list[Client] = []

    def connect(read_only: bool) -> Client:
        opened.append(Client(f"sandbox:{sandbox}", read_only=read_only))
        return opened[-1]

    plan = Plan(organization="org_acme", audience=changes)
    loaded = load_manifest_set(manifests)
    notes = asyncio.run(read_back_audience(loaded, plan, ids, connect=connect))
    assert notes[0].startswith("audience differs from the plan's prediction (3 differences)")
    assert opened[0].stats.requests == 3
    assert len(opened[0].reads) == 0


def test_an_apply_reads_back_at_most_a_bounded_number_of_audiences(
    manifests: Path, sandbox: Path, monkeypatch: Any
) -> None:
    """Each read back is an object's whole list of who reaches it, one after another: an apply
    of thousands of spaces reads the first few and says how many it left."""
    monkeypatch.setattr("docform.workflow.audience.READ_BACK_MOST", 1)
    doc = json.loads(json.dumps(BASE))
    doc["spaces"]["guide"] = {"title": "Guide", "access": {"teams": {"support": "comment"}}}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    output = applied(manifests, sandbox)
    assert "Note: audience read back: 1 object as the plan predicted" in output
    assert (
        "Note: audience of 1 more object not read back (at most 1 an apply), so not checked: "
        "space.handbook\n" in output
    )


def test_a_default_level_raises_the_members_whose_role_is_less(base: tuple[Path, Path]) -> None:
    """Erin reads everything by her organization role; a default level of edit makes her an
    editor of the handbook, and the service's aggregate list says so too."""
    manifests, sandbox = base
    written(manifests, spaces__handbook__defaultLevel="edit")
    assert audience(manifests, sandbox) == {
        "space.handbook": ["~ default level: none -> edit", "~ 1 member changes role: read -> edit"]
    }
    applied(manifests, sandbox)


def test_an_inherited_default_level_comes_from_the_collection(
    manifests: Path, sandbox: Path
) -> None:
    doc = json.loads(json.dumps(BASE))
    doc["spaces"]["handbook"]["defaultLevel"] = "edit"
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    apply(manifests, sandbox)
    doc["collections"] = {"guides": {"title": "Guides", "defaultLevel": "comment"}}
    doc["spaces"]["handbook"] |= {"collection": "guides", "defaultLevel": "inherit"}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    assert audience(manifests, sandbox) == {
        "collection.guides": [
            "~ default level: none -> comment",
            "~ 1 member changes role: read -> comment",
        ],
        "space.handbook": [
            "~ default level: edit -> comment, from collection.guides",
            "~ 1 member changes role: edit -> comment",
        ],
    }
    output = applied(manifests, sandbox)
    assert "audience read back: 2 objects as the plan predicted" in output


def test_a_way_in_otherwise_than_predicted_is_told(
    manifests: Path, sandbox: Path, monkeypatch: Any
) -> None:
    """The door check itself, against what the sandbox's routes answer: a prediction of a
    share-link site where the live site is public is told both ways, door by door."""
    written(manifests, sites__docs={"id": "site_docs", "visibility": "public", "shareLinks": {}})
    apply(manifests, sandbox)
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    monkeypatch.setenv("DOCFORM_API_TOKEN", CANARY_TOKEN)
    wrong = Plan(organization="org_acme")
    holders = frozenset({"anyone holding share link 'p'"})
    wrong.doors = DoorCheck(frozenset({"site", "share_link"}), {"site.docs": holders})
    found = asyncio.run(verify_by_reading(load_manifest_set(manifests), wrong, []))
    assert door_notes(wrong.doors, found.facts) == [
        "ways in differ from the plan's prediction (2 differences):",
        "  site.docs: anyone holding share link 'p': the plan predicted open, read back closed",
        "  site.docs: anyone (public, indexed by search engines): the plan predicted closed, "
        "read back open",
    ]


def test_a_team_and_a_site_created_in_the_same_apply_are_predicted(base: tuple[Path, Path]) -> None:
    """Neither exists yet: the team is told by its title and size, the site by what its
    visibility opens, from what the manifests plan for them; the read back holds both."""
    manifests, sandbox = base
    doc = json.loads(json.dumps(BASE))
    doc["teams"]["writers"] = {"title": "Writers", "members": {"erin@acme.test": "member"}}
    doc["spaces"]["handbook"]["access"]["teams"] = {"writers": "edit"}
    doc["sites"]["blog"] = {
        "title": "Blog",
        "visibility": "share-link",
        "shareLinks": {"press": {}},
        "access": {"teams": {"writers": "admin"}},
    }
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    assert audience(manifests, sandbox) == {
        "site.blog": [
            "+ team Writers (1 member): admin",
            "+ anyone holding share link 'press'",
            "~ 1 member changes role: read -> admin",
        ],
        "space.handbook": [
            "+ team Writers (1 member): edit",
            "~ 1 member changes role: read -> edit",
        ],
    }
    output = applied(manifests, sandbox)
    assert "Note: audience read back: 2 objects as the plan predicted" in output
    assert "Note: ways in read back: 1 object open and closed as the plan predicted" in output


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("space.handbook", {}),
        ("member.bob@acme.test", {"organization": ["~ member bob@acme.test: guest -> edit"]}),
        ("space.handbook+member", {"organization": ["~ member bob@acme.test: guest -> edit"]}),
    ],
    ids=["other-change", "the-change", "both"],
)
def test_a_targeted_plan_tells_only_the_audience_its_changes_make(
    base: tuple[Path, Path], target: str, expected: dict[str, list[str]]
) -> None:
    """A role change and a retitled space, planned with --target: the audience (and the doors
    apply checks) are those of the changes the narrowed plan makes, never those it leaves
    out; its apply then reads back what it predicted."""
    manifests, sandbox = base
    doc = json.loads(json.dumps(BASE))
    doc["members"]["bob@acme.test"] = "edit"
    doc["spaces"]["handbook"]["title"] = "The Handbook"
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    targets = ["space.handbook", "member.bob@acme.test"] if "+" in target else [target]
    options = [option for t in targets for option in ("--target", t)]
    result = run(["plan", manifests, "--json", *options], sandbox)
    assert result.exit_code == 0, result.output
    told = {
        i["on"]: [_text(line) for line in i["changes"]]
        for i in json.loads(result.stdout)["audience"]
    }
    assert told == expected
    text = run(["plan", manifests, *options], sandbox).output
    assert ("Audience" in text) == bool(expected), text
    applied = run(["apply", manifests, "--yes", *options], sandbox)
    assert applied.exit_code == 0, applied.output
    assert "audience differs" not in applied.output and "Note: doors" not in applied.output


def _told_afresh(plan: Plan) -> list[tuple[str, list[Any], list[Any]]]:
    """Each kind's facts of both sides of ``plan``, each side told on its own."""
    kinds = {kind.name: kind for kind in build_kinds(plan.organization)}
    told = []
    for name, matching in plan.matchings:
        kind = kinds[name]
        if isinstance(kind, TellsAudience):

            def where(obs: Any, name: str = name) -> str:
                return unmatched_address(name, obs)

            live = list(kind.audience_facts(live_side(matching, where)))
            planned = list(kind.audience_facts(planned_side(matching, where, set())))
            told.append((name, live, planned))
    return told


@pytest.mark.parametrize(
    ("changes", "changed_kinds"),
    [({}, []), ({"teams__support__members": {"erin@acme.test": "member"}}, ["team"])],
)
def test_a_kind_the_plan_leaves_as_it_is_tells_its_facts_once(
    base: tuple[Path, Path], monkeypatch: Any, changes: dict[str, Any], changed_kinds: list[str]
) -> None:
    """Its planned side is its live side, so both sides hold the very same facts, which the
    audience diff and the door check pass over (a kind whose planned values are written
    otherwise than its live ones, as a site's are, is told anew); what the plan says is what
    telling both sides of every kind afresh says."""
    manifests, sandbox = base
    written(manifests, **changes)
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    monkeypatch.setenv("DOCFORM_API_TOKEN", CANARY_TOKEN)
    plan, _ = asyncio.run(plan_manifests(load_manifest_set(manifests)))
    kinds = {kind.name: kind for kind in build_kinds(plan.organization)}
    per_kind = list(kind_facts([(kinds[name], m) for name, m in plan.matchings], set()))
    told_anew = {name for name, old, new in per_kind if old is not new}
    assert told_anew & {"member", "team", "space"} == set(changed_kinds)
    afresh = _told_afresh(plan)
    assert [(name, old, new) for name, old, new in per_kind] == afresh
    before = [fact for _, old, _ in afresh for fact in old]
    after = [fact for _, _, new in afresh for fact in new]
    assert plan.audience == plan_audience(before, after)
    assert plan.doors == door_check(afresh)
