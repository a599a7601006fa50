"""docs/operations.md classifies every operation of the pinned definition: configuration row by
row (a kind, or out of scope with why: nothing is left missing), content by tag or path
prefix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from contract_definition import ROOT, Definition

from docform.kind_registry import KIND_CLASSES

TABLE = ROOT / "docs" / "operations.md"
ROW = re.compile(r"^\| `(?P<operation>[A-Z]+ /[^`]*)` \| (?P<docform>.+) \|$")
RULE = re.compile(r"^\| (?P<by>tag|path) `(?P<value>[^`]+?)(?:\.\.\.)?` \| (?P<why>.+) \|$")
KIND = re.compile(r"^`(?P<kind>[a-z_]+)`$")
OUT_OF_SCOPE = re.compile(r"^out of scope: \S.{10,}$")


def read_table(path: Path) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The configuration rows (operation -> what manages it) and the content rules."""
    rows: dict[str, str] = {}
    rules: list[tuple[str, str]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if row := ROW.match(line):
            operation = row["operation"]
            assert operation not in rows, f"{path.name}:{number}: {operation} is listed twice"
            rows[operation] = row["docform"]
        elif rule := RULE.match(line):
            rules.append((rule["by"], rule["value"]))
    return rows, rules


@pytest.fixture(scope="module")
def definition() -> Definition:
    return Definition()


@pytest.fixture(scope="module")
def table() -> tuple[dict[str, str], list[tuple[str, str]]]:
    return read_table(TABLE)


def is_content(definition: Definition, operation: str, rules: list[tuple[str, str]]) -> bool:
    method, path = operation.split(" ", 1)
    found = definition.operation(method, path)
    if found is None or found.template != path:
        return False  # not the definition's: test_every_row_names_an_operation_... says so
    tag = (found.node.get("tags") or ["(none)"])[0]
    return any(
        (by == "tag" and value == tag) or (by == "path" and path.startswith(value))
        for by, value in rules
    )


def test_every_configuration_operation_is_classified(definition, table) -> None:
    rows, rules = table
    unclassified = [
        op.name
        for op in definition.operations
        if op.name not in rows and not is_content(definition, op.name, rules)
    ]
    assert unclassified == [], (
        f"configuration operations of the pinned definition that {TABLE.name} does not "
        f"classify (add a row: a kind or 'out of scope: why'): "
        f"{unclassified}"
    )


def test_every_row_names_an_operation_of_the_definition(definition, table) -> None:
    rows, _ = table
    names = {op.name for op in definition.operations}
    assert sorted(set(rows) - names) == [], f"rows of {TABLE.name} the definition lacks"


def test_every_row_says_what_manages_it_and_every_kind_exists(table) -> None:
    rows, _ = table
    kinds = {kind.name for kind in KIND_CLASSES}
    wrong = {
        operation: docform
        for operation, docform in rows.items()
        if not (
            OUT_OF_SCOPE.match(docform) or ((kind := KIND.match(docform)) and kind["kind"] in kinds)
        )
    }
    assert wrong == {}, "rows naming no kind docform has, nor 'out of scope: why'"


def test_no_configuration_row_is_also_content_by_rule(definition, table) -> None:
    rows, rules = table
    both = [op for op in rows if is_content(definition, op, rules)]
    assert both == [], "listed as configuration and matched by a content rule: keep one"
