"""Property-based: any input is either accepted or reported with a location, never a crash."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_manifest_corpus import CORPUS, VALID_ENV

from conftest import fuzz_examples
from docform.manifest import ManifestError, load_manifest_set

FULL = CORPUS / "valid" / "full"
PROPERTY_SETTINGS = settings(
    max_examples=fuzz_examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["admin", "guest", "engineering", "${env:X}", "${env:}", "", "https://x.t"]),
)
keys = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["title", "id", "members", "spaces", "sections", "file", "<<", "parent"]),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=20,
)


def outcome(directory: Path, text: str) -> None:
    """Load ``text`` as the only manifest: it loads, or every problem has a location."""
    (directory / "m.yaml").write_text(text, encoding="utf-8")
    try:
        load_manifest_set(directory, env=VALID_ENV)
    except ManifestError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.file == "m.yaml"
            assert problem.line >= 1
            assert problem.column >= 1


def full_manifest() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in sorted(FULL.rglob("*.yaml")):
        for section, body in yaml.safe_load(path.read_text(encoding="utf-8")).items():
            if isinstance(body, dict) and section != "organization":
                merged.setdefault(section, {}).update(body)
            else:
                merged[section] = body
    return merged


FULL_MANIFEST = full_manifest()


@st.composite
def mutations(draw: st.DrawFn) -> dict[str, Any]:
    """The full valid manifest with one to three random changes at random places."""
    document = copy.deepcopy(FULL_MANIFEST)
    for _ in range(draw(st.integers(1, 3))):
        node: Any = document
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            index = draw(st.integers(0, len(node) - 1))
            child = list(node)[index] if isinstance(node, dict) else index
            if not isinstance(node[child], dict | list):
                break
            node = node[child]
        if not isinstance(node, dict | list) or not node:
            continue
        target = list(node)[draw(st.integers(0, len(node) - 1))] if isinstance(node, dict) else 0
        action = draw(st.sampled_from(["delete", "replace", "rename", "add"]))
        if action == "delete":
            del node[target]
        elif action == "replace":
            node[target] = draw(values)
        elif action == "rename" and isinstance(node, dict):
            node[draw(keys)] = node.pop(target)
        elif isinstance(node, dict):
            node[draw(keys)] = draw(values)
        else:
            node.append(draw(values))
    return document


yaml_like_text = st.one_of(
    st.text(max_size=200),
    st.text(alphabet="{}[]:,-&*!<>|?%@ \n\tat'\"#=~.0", max_size=200),
    st.lists(
        st.sampled_from(
            [
                "organization:",
                " {id: o}",
                "\nteams:",
                "\n  t:",
                " &a",
                " *a",
                " <<:",
                " [",
                "]",
                " {",
                "}",
                " title: T",
                "\n    ",
                " !!str",
                " !x",
                "\n---\n",
                ",",
                " ${env:X}",
            ]
        ),
        max_size=30,
    ).map("".join),
)


@PROPERTY_SETTINGS
@given(yaml_like_text)
def test_random_text_never_crashes(text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        outcome(Path(directory), text)


@PROPERTY_SETTINGS
@given(st.dictionaries(keys, values, max_size=5))
def test_random_yaml_never_crashes(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        outcome(Path(directory), yaml.safe_dump(document, allow_unicode=True))


@PROPERTY_SETTINGS
@given(mutations())
def test_mutated_valid_manifest_is_accepted_or_located(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "certs").mkdir()
        (Path(directory) / "certs" / "okta.pem").write_text("PEM", encoding="utf-8")
        outcome(Path(directory), yaml.safe_dump(document, allow_unicode=True, sort_keys=False))


def test_unmutated_full_manifest_loads_as_one_file(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "okta.pem").write_text("PEM", encoding="utf-8")
    (tmp_path / "m.yaml").write_text(
        yaml.safe_dump(FULL_MANIFEST, allow_unicode=True, sort_keys=False)
    )
    assert load_manifest_set(tmp_path, env=VALID_ENV).summary().startswith("1 organization, 3 ")
