"""Per-field rules read from a kind's annotated fields (engine/field_rules.py)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel

from docform.engine.field_rules import (
    ChangedBy,
    FieldRules,
    Immutable,
    NullMeans,
    Unique,
    Unordered,
    rules_of,
)
from docform.kind_registry import KIND_CLASSES

SAME = Immutable("it never changes", "write the live value")


class Plain:
    """Rules on a plain class of compared fields."""

    target: Annotated[str, SAME]
    role: Annotated[str | None, NullMeans("guest")]
    title: str


class Model(BaseModel):
    """Rules on an entry model, beside pydantic's own metadata."""

    domains: Annotated[list[str] | None, Unordered()] = None
    path: Annotated[str, Unique()] = "p"
    parent: Annotated[str | None, ChangedBy("move")] = None
    slug: Annotated[str, SAME, Unique()] = "s"


def test_rules_are_read_from_a_plain_class() -> None:
    assert rules_of(Plain) == FieldRules(immutable={"target": SAME}, null_means={"role": "guest"})


def test_rules_are_read_from_a_model_and_one_field_may_carry_several() -> None:
    assert rules_of(Model) == FieldRules(
        immutable={"slug": SAME},
        unordered=frozenset({"domains"}),
        unique=("path", "slug"),
        actions={"parent": "move"},
    )


def test_a_kind_without_fields_has_no_rules() -> None:
    assert rules_of(None) == FieldRules()


@pytest.mark.parametrize("kind_class", KIND_CLASSES, ids=[c.name for c in KIND_CLASSES])
def test_every_kind_s_rules_can_be_read(kind_class: type) -> None:
    # Every annotation of a kind's fields class resolves, so a rule is never silently lost.
    rules = rules_of(kind_class.fields)  # type: ignore[attr-defined]
    assert isinstance(rules, FieldRules)


def test_the_rules_the_kinds_declare() -> None:
    declared = {
        (cls.name, rule, name)
        for cls in KIND_CLASSES
        for rule, names in vars(rules_of(cls.fields)).items()
        for name in names
    }
    # A new kind brings its own rules; these stay.
    assert declared >= {
        ("organization", "unordered", "emailDomains"),
        ("organization", "null_means", "defaultRole"),
        ("member", "null_means", "role"),
        ("team", "actions", "members"),
        ("collection", "null_means", "defaultLevel"),
        ("collection", "actions", "parent"),
        ("space", "null_means", "defaultLevel"),
        ("space", "actions", "collection"),
        ("site", "immutable", "type"),
        ("site", "null_means", "defaultLevel"),
        ("site", "unique", "basename"),
        ("section", "unique", "path"),
        ("section", "actions", "sectionGroup"),
        ("section_group", "actions", "group"),
        ("site_space", "unique", "path"),
        ("site_space", "actions", "section"),
        ("external_link", "actions", "group"),
        ("redirect", "unique", "source"),
        ("visitor_auth", "actions", "rotate"),
        ("openapi", "immutable", "slug"),
        ("openapi", "unique", "slug"),
        ("saml", "null_means", "defaultRole"),
        ("link_invite", "immutable", "target"),
        ("link_invite", "null_means", "role"),
        ("access", "null_means", "role"),
    }


#: Classes that define ``__eq__``, and why: equality of their own kind only, never a value of
#: another type made equal to them (that is a kind's `same_field`).
OWN_EQUALITY = {
    "Secret": "a reference and its value, equal to another Secret only",
}


def test_no_value_class_bends_the_planners_comparison() -> None:
    """A value class overriding ``__eq__`` to be equal to a live value of another type hides a
    comparison rule where no reader of the kind looks: rules sit on the field (`field_rules`) or
    in the kind's `same_field`."""
    source = Path(__file__).resolve().parents[2] / "src" / "docform"
    texts = (path.read_text(encoding="utf-8") for path in source.rglob("*.py"))
    overriding = {
        node.name
        # Only a module that names one of them can define it: the others are not parsed.
        for text in texts
        if "__eq__" in text or "__ne__" in text
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.ClassDef)
        and any(
            isinstance(item, ast.FunctionDef) and item.name in ("__eq__", "__ne__")
            for item in node.body
        )
    }
    assert overriding <= set(OWN_EQUALITY), sorted(overriding - set(OWN_EQUALITY))
