"""Editing manifests in place (manifest/edit.py): an edit changes what it edits, nothing else.

Files are drawn with comments above and beside entries, blank lines, quoted and plain values
and one-line mappings; after setting a field, removing an entry or adding one, the file reads
as the edit says, and every line of every other entry is still there, in order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.manifest.edit import ManifestFile, unwritable
from docform.manifest.yaml_reader import parse_yaml

SETTINGS = settings(
    max_examples=fuzz_examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
QUOTES = ("{}", "'{}'", '"{}"')
titles = st.text("abcdefgh XYZ", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def entries(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 6))
    return [
        {
            "name": f"s{index}",
            "title": draw(titles),
            "quote": draw(st.sampled_from(QUOTES)),
            "header": draw(st.booleans()),
            "blank": draw(st.booleans()),
            "comment": draw(st.booleans()),
            "one_line": draw(st.booleans()),
        }
        for index in range(count)
    ]


def _lines(entry: dict[str, Any]) -> list[str]:
    title = entry["quote"].format(entry["title"])
    out = [""] if entry["blank"] else []
    if entry["header"]:
        out.append(f"  # about {entry['name']}")
    if entry["one_line"]:
        out.append(f"  {entry['name']}: {{title: {title}, editMode: live}}")
    else:
        out += [
            f"  {entry['name']}:",
            f"    title: {title}" + ("   # note" if entry["comment"] else ""),
            "    editMode: live",
        ]
    return out


def _text(all_entries: list[dict[str, Any]]) -> str:
    lines = ["# spaces we keep", "organization: {id: org_acme}", "spaces:"]
    for entry in all_entries:
        lines += _lines(entry)
    return "\n".join([*lines, "", "teams:", "  core: {title: Core}", ""])


def _edited(tmp: Path, text: str) -> ManifestFile:
    path = tmp / "main.yaml"
    path.write_text(text, encoding="utf-8")
    return ManifestFile(path, "main.yaml")


def _other_lines_kept(before: str, after: str, skipped: set[str]) -> None:
    """Every line of ``before`` but ``skipped`` appears in ``after``, in the same order."""
    remaining = iter(after.splitlines())
    for line in before.splitlines():
        if line and line not in skipped:
            assert any(line == other for other in remaining), f"lost or moved: {line!r}"


@SETTINGS
@given(entries(), st.data())
def test_setting_a_field_changes_that_line_only(tmp_path_factory, all_entries, data):
    target = data.draw(st.sampled_from(all_entries))
    new_title = data.draw(titles)
    text = _text(all_entries)
    file = _edited(tmp_path_factory.mktemp("edit"), text)
    file.set_fields(("spaces", target["name"]), {"title": new_title}, set(), lambda v: None)
    after = file.text()
    assert yaml.safe_load(after)["spaces"][target["name"]]["title"] == new_title
    changed = [(a, b) for a, b in zip(text.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) <= 1
    if changed:
        assert new_title in changed[0][1]


@SETTINGS
@given(entries(), st.data())
def test_removing_an_entry_keeps_every_other(tmp_path_factory, all_entries, data):
    target = data.draw(st.sampled_from(all_entries))
    text = _text(all_entries)
    file = _edited(tmp_path_factory.mktemp("edit"), text)
    file.remove_entry(("spaces", target["name"]))
    after = file.text()
    # A section left with no entry goes, its key with it.
    spaces = yaml.safe_load(after).get("spaces", {})
    assert sorted(spaces) == sorted(e["name"] for e in all_entries if e is not target)
    assert f"# about {target['name']}" not in after
    emptied = {"spaces:"} if not spaces else set()
    _other_lines_kept(text, after, set(_lines(target)) | emptied)


@SETTINGS
@given(entries(), titles)
def test_adding_an_entry_appends_it_to_its_section(tmp_path_factory, all_entries, title):
    text = _text(all_entries)
    file = _edited(tmp_path_factory.mktemp("edit"), text)
    file.add_entry(("spaces",), "added", {"id": "sp_1", "title": title})
    after = file.text()
    assert yaml.safe_load(after)["spaces"]["added"] == {"id": "sp_1", "title": title}
    assert list(yaml.safe_load(after)["spaces"])[-1] == "added"
    _other_lines_kept(text, after, set())


def test_documents_of_one_file_are_edited_where_they_hold_the_entry(tmp_path):
    text = (
        "---\n# first\norganization: {id: org_acme}\n---\n# people\n"
        "teams:\n  core: {title: Core}   # the core team\n...\n"
    )
    file = _edited(tmp_path, text)
    file.set_fields(("teams", "core"), {"title": "Kernel"}, set(), lambda v: None)
    file.add_entry(("teams",), "qa", {"id": "tm_1", "title": "QA"})
    assert file.text() == (
        "---\n# first\norganization: {id: org_acme}\n---\n# people\n"
        "teams:\n  core: {title: Kernel} # the core team\n  qa: {id: tm_1, title: QA}\n...\n"
    )


HOSTILE_WORDS = [
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "null",
    "~",
    "12:30",
    "1e3",
    "0x1F",
    "0o17",
    "2001-01-01",
    "<<",
    "=",
    "#c",
    "'q'",
    '"d"',
]
HOSTILE_WORDS += ["- x", "a: b", " lead", "trail "]
HOSTILE_CHARACTERS = "\x85\u2028\u2029\u202e\u200b\x00\x07\x1b\t\r\n\ufeff\u00a0"


@settings(max_examples=fuzz_examples(300), deadline=None)
@given(
    st.one_of(
        st.sampled_from(HOSTILE_WORDS),
        st.text(st.sampled_from(HOSTILE_CHARACTERS + "ab: -#'\"yes"), min_size=1, max_size=12),
        st.text(min_size=1, max_size=12),
    )
)
def test_a_written_string_reads_back_as_itself(tmp_path_factory, value):
    """Whatever a live value holds (YAML 1.1 booleans and times, NEL, line and paragraph
    separators, direction changes, controls), docform's own reader reads back what adopt wrote."""
    path = tmp_path_factory.mktemp("hostile") / "m.yaml"
    path.write_text("spaces:\n  h: {title: Handbook}\n", encoding="utf-8")
    edited = ManifestFile(path, "m.yaml")
    edited.set_fields(("spaces", "h"), {"title": value}, set(), lambda _: None)
    read = parse_yaml(edited.text(), "m.yaml")
    assert not read.problems, (value, edited.text())
    assert read.documents[0].value["spaces"]["h"]["title"] == value, edited.text()


def test_a_lone_surrogate_is_refused_as_unwritable():
    assert unwritable({"title": "x\ud800"}) == (
        "it holds a lone surrogate, which no YAML file can hold"
    )
    assert unwritable({"title": "yes", "tags": ["\u202e"]}) is None
