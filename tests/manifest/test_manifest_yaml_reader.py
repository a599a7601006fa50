"""Reading YAML safely with positions (manifest/yaml_reader.py)."""

from __future__ import annotations

import time
from pathlib import Path

from docform.manifest.yaml_reader import (
    MAX_FILE_BYTES,
    MAX_NODES,
    MAX_PROBLEMS,
    parse_yaml,
    read_yaml_file,
)


def messages(text: str) -> list[str]:
    return [str(problem) for problem in parse_yaml(text, "m.yaml").problems]


def only_value(text: str) -> object:
    result = parse_yaml(text, "m.yaml")
    assert result.problems == []
    return result.documents[0].value


def test_every_key_has_its_line_and_column() -> None:
    result = parse_yaml("teams:\n  platform: {title: Platform}\nlist: [a, b]\n", "m.yaml")
    positions = result.documents[0].positions
    assert positions[("teams",)] == (1, 1)
    assert positions[("teams", "platform")] == (2, 3)
    assert positions[("teams", "platform", "title")] == (2, 14)
    assert positions[("list", 1)] == (3, 11)


def test_duplicate_key_in_one_mapping_is_an_error_naming_the_first() -> None:
    assert messages("a: 1\nb: 2\na: 3\n") == ["m.yaml:3:1: a: duplicate key (first at line 1)"]


def test_keys_stay_strings_as_written() -> None:
    assert only_value("no: 1\non: 2\n3: x\n~: y\n") == {"no": 1, "on": 2, "3": "x", "~": "y"}


def test_scalar_values_follow_yaml_core_types_but_timestamps_stay_strings() -> None:
    value = only_value("a: [yes, 1, 2.5, ~, 2024-01-01, '7']\n")
    assert value == {"a": [True, 1, 2.5, None, "2024-01-01", "7"]}


def test_merge_key_adds_missing_keys_located_at_the_merge() -> None:
    result = parse_yaml("base: &b {title: B, emoji: x}\ncopy:\n  <<: *b\n  title: C\n", "m.yaml")
    document = result.documents[0]
    assert document.value["copy"] == {"title": "C", "emoji": "x"}
    assert document.positions[("copy", "emoji")] == (3, 3)
    assert document.positions[("copy", "title")] == (4, 3)


def test_aliased_values_are_copies() -> None:
    value = only_value("a: &x {k: [1]}\nb: *x\n")
    assert value["a"] == value["b"]
    assert value["a"] is not value["b"]


def test_billion_laughs_is_refused_quickly() -> None:
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    # Expanded, these aliases are 9**9 values: a reader without the budget would run for
    # minutes. CPU time, not wall time, so a loaded machine cannot fail it (it takes ~0.05 s).
    started = time.process_time()
    result = parse_yaml("\n".join(lines), "m.yaml")
    assert time.process_time() - started < 2
    assert [str(p) for p in result.problems] == ["m.yaml:5:28: aliases expand to over 50000 values"]
    assert result.documents == []


def test_a_file_of_too_many_tiny_values_is_refused_at_the_budget() -> None:
    text = "x: [" + "1," * (MAX_NODES + 10) + "]\n"
    result = parse_yaml(text, "m.yaml")
    # Nodes are the document, the mapping, its key, the list, then the items.
    column = 5 + 2 * (MAX_NODES - 4)
    assert [str(p) for p in result.problems] == [
        f"m.yaml:1:{column}: over {MAX_NODES} keys and values in one file; "
        "split it into several files"
    ]
    assert result.documents == []


def test_reading_stops_after_enough_problems_to_act_on() -> None:
    text = "".join(f"a: {i}\n" for i in range(MAX_PROBLEMS * 3))
    problems = [str(p) for p in parse_yaml(text, "m.yaml").problems]
    assert len(problems) == MAX_PROBLEMS + 2
    last = f"m.yaml:{MAX_PROBLEMS + 2}:1: over {MAX_PROBLEMS} problems; fix these first"
    assert problems[-1] == last


def test_deep_nesting_is_refused_at_the_depth_limit() -> None:
    assert messages("[" * 100) == ["m.yaml:1:65: nested deeper than 64 levels"]


def test_very_deep_nesting_is_refused_without_crashing() -> None:
    # libyaml scans a run of '[' ahead before the first event; since PyYAML 6.0.4 its own
    # nesting limit (1,000 flow levels) may refuse the file first. Either way: one located
    # refusal, no crash and no recursion.
    assert messages("[" * 100_000) in (
        ["m.yaml:1:65: nested deeper than 64 levels"],
        [
            "m.yaml:1:1001: invalid YAML: while increasing flow level, exceeded maximum "
            "nesting depth"
        ],
    )


def test_python_tags_are_never_constructed() -> None:
    result = parse_yaml("a: !!python/object/apply:os.system [echo hi]\n", "m.yaml")
    assert [str(p) for p in result.problems] == [
        "m.yaml:1:4: a: unsupported YAML tag '!!python/object/apply:os.system'"
    ]
    assert result.documents[0].value == {"a": ["echo hi"]}


def test_documents_of_one_file_are_all_read() -> None:
    result = parse_yaml("a: 1\n---\nb: 2\n", "m.yaml")
    assert [document.value for document in result.documents] == [{"a": 1}, {"b": 2}]


def test_syntax_error_is_located() -> None:
    assert messages("a: [1, 2\n") == [
        "m.yaml:2:1: invalid YAML: while parsing a flow sequence, did not find expected ',' or ']'"
    ]


def test_file_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    result = read_yaml_file(path, "big.yaml")
    assert [str(p) for p in result.problems] == [
        f"big.yaml:1:1: file is {MAX_FILE_BYTES + 1} bytes, over the 5 MB limit"
    ]


def test_non_utf8_file_is_refused_at_the_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    result = read_yaml_file(path, "latin.yaml")
    assert [str(p) for p in result.problems] == [
        "latin.yaml:2:7: not UTF-8 text (byte 0xe9); save as UTF-8"
    ]


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeffa: é\n".encode())
    result = read_yaml_file(path, "bom.yaml")
    assert result.problems == []
    assert result.documents[0].value == {"a": "é"}
