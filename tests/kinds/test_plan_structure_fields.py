"""End to end: the fields of sections, section groups and site spaces an admin sets in the UI
beyond their title and place: ``draft``, ``localizedTitle``, ``localizedDescription`` and a
site space's home page (``pageId``, written ``page``).

Set by hand (as an admin in the UI would), each is exported, plans as no change, a one-field
edit plans exactly that change, and drift names who changed it by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    actions,
    apply,
    assert_converged,
    change,
    copy_applied,
    copy_sandbox,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
ALICE = "alice@acme.test"
TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
BASE = """\
organization: {id: org_acme}
members: {alice@acme.test: admin}
spaces: {handbook: {title: Handbook}, runbooks: {title: Runbooks}}
sites: {docs: {id: site_docs}}
"""
#: What an admin set by hand on each object, by the kind of object.
BY_HAND: dict[str, dict[str, Any]] = {
    "section": {
        "draft": True,
        "localizedTitle": {"fr": "Le manuel"},
        "localizedDescription": {"fr": "Tout sur nous"},
    },
    "group": {"draft": True, "localizedTitle": {"de": "Bald"}},
    "space": {"draft": True, "pageId": "welcome"},
}
#: The manifest's name of an API field, where they differ.
WRITTEN_AS = {"pageId": "page"}
#: (object, field, the value a one-field edit writes).
EDITS = [
    ("section", "draft", False),
    ("section", "localizedTitle", {"fr": "Manuel", "de": "Handbuch"}),
    ("section", "localizedDescription", {}),
    ("group", "draft", False),
    ("group", "localizedTitle", {"de": "Demnächst"}),
    ("space", "draft", False),
    ("space", "pageId", "getting-started"),
    ("space", "pageId", None),
]


def set_by_hand(sandbox: Path) -> dict[str, str]:
    """A section (with its first site space) and a group with `BY_HAND`'s values, made in the
    UI; the live path of each by the kind of object."""
    spaces = live_api(sandbox, "GET", "/orgs/org_acme/spaces")["items"]
    handbook = next(s["id"] for s in spaces if s["title"] == "Handbook")
    section = in_ui(sandbox, ALICE, "POST", f"{DOCS}/sections", {"spaceId": handbook})
    group = in_ui(sandbox, ALICE, "POST", f"{DOCS}/section-groups", {"title": "Soon"})
    live = {
        "section": f"{DOCS}/sections/{section['id']}",
        "group": f"{DOCS}/section-groups/{group['id']}",
        "space": f"{DOCS}/site-spaces/{section['siteSpaces'][0]['id']}",
    }
    for which, values in BY_HAND.items():
        in_ui(sandbox, ALICE, "PATCH", live[which], values)
    return live


Exported = tuple[Path, Path, dict[str, str]]
"""The exported manifests, the sandbox, and the live path of each object set by hand."""


@pytest.fixture(scope="module")
def exported_once(tmp_path_factory: pytest.TempPathFactory, seeded_once: Path) -> Exported:
    """BASE applied, a section (with its site space) and a group then set by hand in the UI,
    and the organization exported: arranged once, copied by each test (`exported_by_hand`)."""
    folder = tmp_path_factory.mktemp("exported-by-hand")
    sandbox = copy_sandbox(seeded_once, folder)
    apply(write_manifests(folder / "applied", BASE), sandbox, rehearse=False)
    live = set_by_hand(sandbox)
    exported = folder / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    return exported, sandbox, live


@pytest.fixture
def exported_by_hand(tmp_path: Path, exported_once: Exported) -> Exported:
    """A copy of `exported_once`, the test's own."""
    exported, sandbox = copy_applied((exported_once[0], exported_once[1]), tmp_path)
    return exported, sandbox, exported_once[2]


def live_object(sandbox: Path, path: str) -> dict[str, Any]:
    """The live object at ``path``, read from its site's list of its kind."""
    listed, _, object_id = path.rpartition("/")
    found: dict[str, Any] = next(
        o for o in live_api(sandbox, "GET", listed)["items"] if o["id"] == object_id
    )
    return found


def entries(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The exported site's section, group and site space, by the kind of object."""
    site: dict[str, Any] = next(iter(document["sites"].values()))
    [section] = site["sections"].values()
    [group] = site["sectionGroups"].values()
    [space] = section["spaces"].values()
    return {"section": section, "group": group, "space": space}


def sites_file(exported: Path) -> tuple[Path, dict[str, Any]]:
    for path in sorted(exported.glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        if isinstance(document, dict) and "sites" in document:
            return path, document
    raise AssertionError(f"no sites in {exported}")


def test_fields_set_by_hand_are_exported_and_plan_no_change(exported_by_hand: Exported) -> None:
    exported, sandbox, _ = exported_by_hand
    written = entries(sites_file(exported)[1])
    assert {
        which: {field: written[which].get(WRITTEN_AS.get(field, field)) for field in values}
        for which, values in BY_HAND.items()
    } == BY_HAND
    assert_converged(exported, sandbox)


@pytest.mark.parametrize(("which", "field", "value"), EDITS)
def test_a_one_field_edit_plans_exactly_that_change(
    exported_by_hand: Exported, which: str, field: str, value: Any
) -> None:
    exported, sandbox, live = exported_by_hand
    path, document = sites_file(exported)
    entries(document)[which][WRITTEN_AS.get(field, field)] = value
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    plan = plan_json(exported, sandbox)
    [(address, action)] = actions(plan)
    assert action == "update"
    [call] = change(plan, address)["calls"]
    assert (call["method"], call["path"], call["body"]) == ("PATCH", live[which], {field: value})
    apply(exported, sandbox)
    assert live_object(sandbox, live[which]).get(field) == (None if value in (None, {}) else value)
    assert_converged(exported, sandbox)


@pytest.mark.parametrize(("which", "field", "value"), EDITS)
def test_drift_names_who_changed_one_by_hand(
    exported_by_hand: Exported, which: str, field: str, value: Any
) -> None:
    exported, sandbox, live = exported_by_hand
    in_ui(sandbox, ALICE, "PATCH", live[which], {field: value})
    result = run(["drift", exported], sandbox)
    assert result.exit_code == 2, result.output
    assert re.search(
        # A map's change shows per language (`localizedTitle.fr: ...`), one line each.
        rf"{WRITTEN_AS.get(field, field)}(\.[\w-]+)?: live .*\n(.*\n)*? +changed by "
        rf"Alice Admin <alice@acme\.test> at {TIME} in the UI ",
        result.stdout,
    ), result.stdout


def test_a_site_space_showing_another_space_keeps_its_home_page(
    exported_by_hand: Exported,
) -> None:
    exported, sandbox, live = exported_by_hand
    path, document = sites_file(exported)
    entries(document)["space"]["space"] = "runbooks"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    plan = plan_json(exported, sandbox)
    [(address, _)] = actions(plan)
    [call] = change(plan, address)["calls"]
    assert call["body"]["pageId"] == "welcome"
    apply(exported, sandbox)
    assert live_object(sandbox, live["space"])["pageId"] == "welcome"
    assert_converged(exported, sandbox)
