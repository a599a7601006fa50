"""`docform state list` / `state show` over every kind the registry has: the manifest corpus
of every kind applied to the sandbox, then each address listed with the id docform.lock holds,
and each shown through the CLI. A kind added to the registry is covered without naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.engine.objects import address_head as engine_head
from docform.engine.targets import same_spelled
from docform.kind_registry import KIND_CLASSES
from docform.model.entry import address_head as model_head
from kinds.test_lifecycle import SECRETS_IN_ENV, applicable_corpus
from planning import apply, run, seeded_sandbox

EXAMPLE = Path(__file__).parents[2] / "examples" / "acme"


@pytest.fixture(autouse=True)
def secrets_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS_IN_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def every_kind_applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, set[str]]:
    """The corpus of every kind applied once, with the addresses its first plan made or changed."""
    base = tmp_path_factory.mktemp("state")
    directory, sandbox = applicable_corpus(base / "manifests"), seeded_sandbox(base)
    with pytest.MonkeyPatch.context() as env:
        for name, value in SECRETS_IN_ENV.items():
            env.setenv(name, value)
        first = json.loads(run(["plan", directory, "--json"], sandbox).stdout)
        apply(directory, sandbox, rehearse=False)
    written = {c["address"] for c in first["changes"] if c["action"] != "delete"}
    return directory, sandbox, written


def listed(directory: Path, sandbox: Path) -> list[dict[str, Any]]:
    result = run(["state", "list", directory, "--json"], sandbox)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["format_version"] == "1.0"
    objects: list[dict[str, Any]] = document["objects"]
    return objects


def test_every_kind_is_listed_with_the_id_the_lock_records(every_kind_applied):
    directory, sandbox, written = every_kind_applied
    objects = listed(directory, sandbox)
    by_address = {o["address"]: o for o in objects}
    entry_kinds = {o["kind"] for o in objects}
    assert entry_kinds <= {cls.name for cls in KIND_CLASSES}
    assert written - set(by_address) == set()
    assert all(o["id"] and o["pending"] is None for o in objects), objects
    lock = yaml.safe_load((directory / "docform.lock").read_text())
    locked = {address: str(live_id) for address, live_id in lock["ids"].items()}
    assert set(locked) <= set(by_address)
    marked = {cls.name for cls in KIND_CLASSES if cls.lock_field is not None}
    ids = {a: i for a, i in locked.items() if by_address[a]["kind"] not in marked}
    assert {a: o["id"] for a, o in by_address.items() if a in ids} == ids


def test_each_kind_is_shown_by_its_address_in_text_and_json_without_secrets(every_kind_applied):
    directory, sandbox, _written = every_kind_applied
    objects = listed(directory, sandbox)
    one_per_kind = {o["kind"]: o for o in objects}.values()
    for listed_object in one_per_kind:
        address = listed_object["address"]
        text = run(["state", "show", directory, address], sandbox)
        assert text.exit_code == 0, text.output
        assert f"# {address}\n" in text.stdout
        assert f"live id:  {listed_object['id']}" in text.stdout
        assert f"manifest: {listed_object['location']}" in text.stdout
        assert "status:   in sync" in text.stdout
        as_json = run(["state", "show", directory, address, "--json"], sandbox)
        for secret in SECRETS_IN_ENV.values():
            assert secret not in text.output + as_json.output
        shown = json.loads(as_json.stdout)
        (only,) = shown["objects"]
        assert {k: only[k] for k in listed_object} == listed_object
        assert isinstance(only["fields"], dict)


def test_a_manifest_set_not_applied_lists_its_entries_as_not_live(tmp_path):
    manifests = tmp_path / "manifests"
    shutil.copytree(EXAMPLE / "manifests", manifests)
    sandbox = seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")
    result = run(["state", "list", manifests], sandbox)
    assert result.exit_code == 0, result.output
    rows = [line.split(maxsplit=1) for line in result.stdout.splitlines()]
    assert rows and all(len(row) == 2 for row in rows)
    assert "(not live yet)" in result.stdout
    planned = json.loads(run(["plan", manifests, "--json"], sandbox).stdout)
    created = {c["address"] for c in planned["changes"] if c["action"] == "create"}
    assert {a for a, live in rows if live == "(not live yet)"} == created


def test_an_unknown_address_is_refused_with_the_closest_and_how_to_list(tmp_path):
    manifests = tmp_path / "manifests"
    shutil.copytree(EXAMPLE / "manifests", manifests)
    sandbox = seeded_sandbox(tmp_path, EXAMPLE / "sandbox-seed.yaml")
    first = listed(manifests, sandbox)[0]["address"]
    result = run(["state", "show", manifests, first + "x"], sandbox)
    assert result.exit_code == 1
    assert f"did you mean '{first}'" in result.stderr
    assert f"docform state list {manifests}" in result.stderr


def test_help_explains_both_commands():
    for command in (["state"], ["state", "list"], ["state", "show"]):
        result = run([*command, "--help"], Path("unused"))
        assert result.exit_code == 0
        assert "live" in result.output and "address" in result.output.lower()


def _respellings(address: str) -> list[str]:
    """``address`` as a person may write it from the manifests: each part camel-cased (with
    a plural ``s`` on the first), and each part snake-cased."""

    def camel(part: str) -> str:
        head, *rest = part.split("_")
        return head + "".join(word[:1].upper() + word[1:] for word in rest)

    def snake(part: str) -> str:
        return "".join(f"_{c.lower()}" if c.isupper() else c for c in part)

    parts = address.split(".")
    plural = camel(parts[0]).removesuffix("s") + "s"
    return [
        ".".join(map(camel, parts)),
        ".".join([plural, *parts[1:]]),
        ".".join(map(snake, parts)),
    ]


def test_every_address_written_with_another_spelling_gets_its_own_suggested(every_kind_applied):
    directory, sandbox, _written = every_kind_applied
    known = [o["address"] for o in listed(directory, sandbox)]
    one_per_kind = {o["kind"]: o["address"] for o in listed(directory, sandbox)}
    for address in one_per_kind.values():
        for spelling in {*_respellings(address)} - {address}:
            assert address in same_spelled(spelling, known), (spelling, address)
            if "." in address:
                wildcard = spelling.split(".")[0] + ".*"
                assert same_spelled(wildcard, known) == [address.split(".")[0] + ".*"]


def test_a_target_in_a_manifest_spelling_names_the_address_and_how_to_list(every_kind_applied):
    """Addresses are spelled as the manifests spell keys (``gitSync.docs``); a section's plural
    (``linkInvites.*``) is told the address it means, and the spelling before 0.5
    (``link_invite.*``, ``git_sync.docs``) still names what it named."""
    directory, sandbox, _written = every_kind_applied
    known = {o["address"] for o in listed(directory, sandbox)}
    git_sync = next(a for a in sorted(known) if a.startswith("gitSync."))
    result = run(["plan", directory, "--target", "linkInvites.*"], sandbox)
    assert result.exit_code == 1
    assert "(closest: linkInvite.*)" in result.stderr
    assert "docform state list DIR" in result.stderr
    for target in (git_sync, "git_sync." + git_sync.split(".", 1)[1], "link_invite.*"):
        assert run(["plan", directory, "--target", target], sandbox).exit_code == 0, target


def test_every_address_is_spelled_as_the_manifests_spell_keys(every_kind_applied):
    """One scheme: the first part of every address (managed, and ``KIND.~ID``) and every
    docform.lock line is camel case, as the manifests' keys are (``linkInvite``, ``gitSync``,
    ``sectionGroup``), never the kind's module name."""
    directory, sandbox, _written = every_kind_applied
    addresses = [o["address"] for o in listed(directory, sandbox)]
    lock = yaml.safe_load((directory / "docform.lock").read_text(encoding="utf-8"))["ids"]
    heads = {a.split(".")[0] for a in [*addresses, *lock]}
    parts = {p for a in addresses for p in a.split(".")[:-1] if not p.startswith("~")}
    assert not [h for h in heads if "_" in h], heads
    assert not [p for p in parts if "_" in p and "@" not in p and p.isidentifier()], parts
    for kind in KIND_CLASSES:
        assert engine_head(kind.name) == model_head(kind.name)


def test_a_lock_written_in_the_old_spelling_still_ties_its_entries(every_kind_applied, tmp_path):
    """A docform.lock written before addresses took the manifests' spelling (``link_invite.x``,
    ``git_sync.x``) ties the same entries: the plan is empty and the next pin respells it."""
    directory, sandbox, _written = every_kind_applied
    copy = tmp_path / "manifests"
    shutil.copytree(directory, copy)
    lock = copy / "docform.lock"
    text = lock.read_text(encoding="utf-8")
    old = text.replace("  linkInvite.", "  link_invite.").replace("  gitSync.", "  git_sync.")
    assert old != text
    lock.write_text(old, encoding="utf-8")
    result = run(["plan", str(copy), "--json"], sandbox)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["changes"] == []
    assert run(["pin", str(copy)], sandbox).exit_code == 0
    assert lock.read_text(encoding="utf-8") == text
