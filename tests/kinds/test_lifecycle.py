"""A manifest set using every kind and every field, through its whole life on a seeded sandbox:
created from nothing, then changed, renamed, moved and pruned; each apply converges."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import apply, assert_converged, copy_applied, live_api, plan_json, seeded_sandbox

FULL = Path(__file__).parents[1] / "manifests" / "valid" / "full"
SEEDED_IDS = {"org_acme", "site_docs", "u_erin"}
"""Pinned ids of the corpus that the test seed holds; every other pin is dropped."""


SECRETS_IN_ENV = {
    "DOCFORM_TEST_SPEC_AUTH": "bot:s3cret",
    "DOCFORM_TEST_AZURE_CERT": "MIIazureCERT",
    "DOCFORM_TEST_SEGMENT_KEY": "wk-full-corpus",
}
"""The secrets the corpus reads from the environment."""


@pytest.fixture(autouse=True)
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS_IN_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def every_kind(tmp_path: Path) -> Path:
    """The corpus of every field (tests/manifests/valid/full), made applicable to the seed."""
    return applicable_corpus(tmp_path / "manifests")


@pytest.fixture(scope="module")
def every_kind_applied_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``every_kind`` applied to a seeded sandbox, once for the module; tests take copies."""
    base = tmp_path_factory.mktemp("every-kind")
    directory, sandbox = applicable_corpus(base / "manifests"), seeded_sandbox(base)
    with pytest.MonkeyPatch.context() as env:
        for name, value in SECRETS_IN_ENV.items():
            env.setenv(name, value)
        apply(directory, sandbox, rehearse=False)
    return directory, sandbox


def applicable_corpus(directory: Path) -> Path:
    """A copy of the corpus as ``directory``, its pins and settings fitted to the test seed."""
    shutil.copytree(FULL, directory)
    for path in directory.rglob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        _drop_unseeded_pins(doc)
        # Only the service's app connects a hostname, and the corpus's site is made by the
        # apply: no apply can bring it about (tests/kinds/test_plan_custom_hostnames.py).
        doc.pop("customHostnames", None)
        settings = doc.get("docform", {})
        settings.pop("api", None)
        settings.pop("ignore", None)
        settings.get("limits", {}).pop("maxDeletionShare", None)
        if "limits" in settings:
            settings["limits"]["maxDeletions"] = 10  # the second apply prunes one of each kind
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return directory


def _drop_unseeded_pins(node: Any) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("id"), str) and node["id"] not in SEEDED_IDS:
            del node["id"]
        for value in node.values():
            _drop_unseeded_pins(value)
    elif isinstance(node, list):
        for value in node:
            _drop_unseeded_pins(value)


def edit(directory: Path, name: str, change: Any) -> None:
    path = directory / name
    doc = yaml.safe_load(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def test_every_kind_is_created_then_changed_renamed_moved_and_pruned(
    tmp_path: Path, every_kind: Path
) -> None:
    sandbox = seeded_sandbox(tmp_path)
    edit(every_kind, "people.yaml", lambda doc: doc["teams"].update(temp={"title": "Temp"}))
    edit(every_kind, "content.yaml", lambda doc: doc["collections"].update(old={"title": "Old"}))
    edit(every_kind, "sites/docs.yaml", add_group)
    apply(every_kind, sandbox)
    assert_converged(every_kind, sandbox)
    first = ids_by_title(sandbox)

    # A space moves to another collection only when pinned: its key is (collection, title).
    handbook_id = first["space"]["Handbook"]
    edit(every_kind, "content.yaml", lambda doc: rename_and_move_content(doc, handbook_id))
    edit(every_kind, "people.yaml", change_people)
    edit(every_kind, "integrations.yaml", change_integrations)
    edit(every_kind, "sites/docs.yaml", change_sites)
    edit(every_kind, "organization.yaml", lambda doc: doc["organization"].update(title="Acme Inc"))
    plan = plan_json(every_kind, sandbox)
    actions = {(c["address"], c["action"]) for c in plan["changes"]}
    assert {
        ("collection.engineering", "update"),
        ("space.handbook", "move"),
        ("team.platform", "update"),
        ("team.platform", "membership"),
        ("member.bob@acme.test", "update"),
        ("site.docs.sectionGroup.guides", "update"),
        ("site.docs.redirect./news", "update"),
    } <= actions
    deleted = sorted(c["kind"] for c in plan["changes"] if c["action"] == "delete")
    assert deleted == [
        "collection", "openapi", "redirect", "section", "section_group", "site_space", "team"
    ]  # fmt: skip
    apply(every_kind, sandbox)
    assert_converged(every_kind, sandbox)

    after = ids_by_title(sandbox)
    assert after["collection"]["Engineering Org"] == first["collection"]["Engineering"]
    assert after["team"]["Platform Team"] == first["team"]["Platform"]
    assert "petstore" not in after["openapi"]
    assert "Temp" not in after["team"] and "Old" not in after["collection"]
    handbook = live_api(sandbox, "GET", f"/spaces/{first['space']['Handbook']}")
    assert handbook["parent"] == first["collection"]["Runbooks"]


def add_group(doc: dict[str, Any]) -> None:
    doc["sites"]["docs"]["sectionGroups"]["extra"] = {"title": "Extra"}
    doc["sites"]["docs"]["redirects"]["/temp"] = {"to": "https://acme.test/temp"}


def rename_and_move_content(doc: dict[str, Any], handbook_id: str) -> None:
    del doc["collections"]["old"]
    engineering = doc["collections"]["engineering"]
    engineering.update(title="Engineering Org", formerly=["Engineering"])
    doc["spaces"]["handbook"].update(id=handbook_id, collection="runbooks", emoji="📗")


def change_people(doc: dict[str, Any]) -> None:
    doc["members"]["bob@acme.test"]["role"] = "review"
    del doc["teams"]["temp"]
    platform = doc["teams"]["platform"]
    platform.update(title="Platform Team", formerly=["Platform"])
    platform["members"]["erin@acme.test"] = "member"


def change_integrations(doc: dict[str, Any]) -> None:
    del doc["openapi"]["petstore"]
    doc["saml"]["okta"]["label"] = "Okta SSO"
    doc["saml"]["okta"]["formerly"] = ["Okta"]
    doc["saml"]["okta"]["ssoURL"] = "https://acme.okta.test/app/sso/saml2"


def change_sites(doc: dict[str, Any]) -> None:
    docs = doc["sites"]["docs"]
    docs["sectionGroups"]["guides"].update(title="Handbooks", formerly=["Guides"])
    del docs["sectionGroups"]["extra"]
    docs["sectionGroups"]["guides"]["sections"].remove("operations")
    del docs["sections"]["operations"]
    doc["sites"]["blog"].update(title="Acme Journal", formerly=["Acme Blog"])
    docs["sections"]["start"]["description"] = "The very first steps"
    docs["sections"]["start"]["spaces"]["legacy"]["condition"] = "visitor.claims.v0"
    del docs["redirects"]["/temp"]
    docs["redirects"]["/news"]["to"] = {"section": "start"}


def ids_by_title(sandbox: Path) -> dict[str, dict[str, str]]:
    """Live ids by title (slug for OpenAPI specs) of the kinds the test renames or prunes."""
    org = "/orgs/org_acme"
    lists = {
        "collection": (f"{org}/collections", "title"),
        "space": (f"{org}/spaces", "title"),
        "team": (f"{org}/teams", "title"),
        "openapi": (f"{org}/openapi", "slug"),
    }
    return {
        kind: {item[field]: item["id"] for item in live_api(sandbox, "GET", path)["items"]}
        for kind, (path, field) in lists.items()
    }


# -- identity across edits -----------------------------------------------------------------------
# Each edit changes what an entry's natural key is made of (a title, a container, a path). It must
# plan an update or a move of the same live object, never a create and a delete: through
# docform.lock (written by the first apply), and without it through move detection or `formerly`.


@dataclass(frozen=True)
class Edit:
    """An edit of one entry: its address, the file and the change, and how a manifest without
    docform.lock tells docform where the object went (None: it finds the move by itself)."""

    address: str
    file: str
    change: Callable[[dict[str, Any]], None]
    formerly: Any = None
    new_address: str | None = None
    """Where the entry is after the edit, when the edit moves it in the manifests."""


def entry(*path: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def find(doc: dict[str, Any]) -> dict[str, Any]:
        node = doc
        for key in path:
            node = node[key]
        return node

    return find


def setting(where: tuple[str, ...], **values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: entry(*where)(doc).update(values)


def without(where: tuple[str, ...], key: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: entry(*where)(doc).pop(key)


def move_site_space(doc: dict[str, Any]) -> None:
    sections = doc["sites"]["docs"]["sections"]
    sections["operations"]["spaces"]["legacy"] = sections["start"]["spaces"].pop("legacy")


SITE = ("sites", "docs")
EDITS = {
    "team title": Edit(
        "team.platform", "people.yaml", setting(("teams", "platform"), title="Platform Team"),
        ["Platform"],
    ),
    "collection title": Edit(
        "collection.engineering", "content.yaml",
        setting(("collections", "engineering"), title="Engineering Org"), ["Engineering"],
    ),
    "space title": Edit(
        "space.handbook", "content.yaml", setting(("spaces", "handbook"), title="Staff handbook"),
        ["Handbook"],
    ),
    "space to another collection": Edit(
        "space.handbook", "content.yaml", setting(("spaces", "handbook"), collection="runbooks"),
    ),
    "space to the top level": Edit(
        "space.handbook", "content.yaml", without(("spaces", "handbook"), "collection"),
    ),
    "space moved and renamed": Edit(
        "space.handbook", "content.yaml",
        setting(("spaces", "handbook"), collection="runbooks", title="Staff handbook"),
        [{"collection": "engineering", "title": "Handbook"}],
    ),
    "collection to the top level": Edit(
        "collection.runbooks", "content.yaml", without(("collections", "runbooks"), "parent"),
    ),
    "collection moved and renamed": Edit(
        "collection.runbooks", "content.yaml",
        lambda doc: doc["collections"]["runbooks"].update(title="Operations")
        or doc["collections"]["runbooks"].pop("parent"),
        [{"parent": "engineering", "title": "Runbooks"}],
    ),
    "site title": Edit(
        "site.blog", "sites/docs.yaml", setting(("sites", "blog"), title="Acme Journal"),
        ["Acme Blog"],
    ),
    "section group title": Edit(
        "site.docs.sectionGroup.guides", "sites/docs.yaml",
        setting((*SITE, "sectionGroups", "guides"), title="Handbooks"), ["Guides"],
    ),
    "section path": Edit(
        "site.docs.section.operations", "sites/docs.yaml",
        setting((*SITE, "sections", "operations"), path="operating"), [{"path": "ops"}],
    ),
    "site space path": Edit(
        "site.docs.section.start.space.main", "sites/docs.yaml",
        setting((*SITE, "sections", "start", "spaces", "main"), path="v2"),
    ),
    "site space to another section": Edit(
        "site.docs.section.start.space.legacy", "sites/docs.yaml", move_site_space,
        new_address="site.docs.section.operations.space.legacy",
    ),
    "SAML label": Edit(
        "saml.okta", "integrations.yaml", setting(("saml", "okta"), label="Okta SSO"), ["Okta"]
    ),
    "OpenAPI source": Edit(
        "openapi.petstore", "integrations.yaml",
        setting(("openapi", "petstore"), source={"url": "https://example.test/v2/petstore.yaml"}),
    ),
}  # fmt: skip


@pytest.mark.parametrize("through", ["docform.lock", "formerly or move detection"])
@pytest.mark.parametrize("name", list(EDITS))
def test_an_edit_keeps_the_live_object_of_its_entry(
    tmp_path: Path, every_kind_applied_once: tuple[Path, Path], name: str, through: str
) -> None:
    every_kind, sandbox = copy_applied(every_kind_applied_once, tmp_path)
    the_edit = EDITS[name]
    live_id = lock_ids(every_kind)[the_edit.address]
    if through != "docform.lock":
        (every_kind / "docform.lock").unlink()
        if the_edit.formerly is not None:
            edit(
                every_kind, the_edit.file, setting(entry_path(the_edit), formerly=the_edit.formerly)
            )

    edit(every_kind, the_edit.file, the_edit.change)
    plan = plan_json(every_kind, sandbox)

    address = the_edit.new_address or the_edit.address
    assert (plan["summary"]["create"], plan["summary"]["delete"]) == (0, 0), plan["changes"]
    assert {c["id"] for c in plan["changes"] if c["address"] == address} == {live_id}
    apply(every_kind, sandbox)
    assert_converged(every_kind, sandbox)
    assert lock_ids(every_kind)[address] == live_id


def entry_path(the_edit: Edit) -> tuple[str, ...]:
    """Where the edited entry is written, from its address."""
    kind, *names = the_edit.address.split(".")
    if kind != "site" or len(names) == 1:
        plural = {"team": "teams", "collection": "collections", "space": "spaces", "site": "sites",
                  "saml": "saml", "openapi": "openapi"}[kind]  # fmt: skip
        return (plural, names[0])
    nested = {"sectionGroup": "sectionGroups", "section": "sections", "space": "spaces"}
    path: tuple[str, ...] = ("sites", names[0])
    for i in range(1, len(names), 2):
        path += (nested[names[i]], names[i + 1])
    return path


def lock_ids(directory: Path) -> dict[str, str]:
    return yaml.safe_load((directory / "docform.lock").read_text(encoding="utf-8"))["ids"]
