"""A string where a boolean or a number belongs is a mistake at its line, never converted:
`sso: "no"` is not false, `maxDeletions: "5"` is not 5 (as `title: 12345` is no title). Every
boolean and number field of every manifest model is held to it, and the CLI shows it."""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from pydantic import BaseModel, ValidationError

import docform.kind_registry  # noqa: F401  (every kind's models defined)
from docform.manifest.settings import Settings
from docform.model.entry import ManifestModel
from docform.service import adaptive_schema, site_customization
from planning import run

WRONG: dict[type, str] = {bool: "no", int: "5", float: "0.5"}


def _models(base: type[BaseModel]) -> Iterator[type[BaseModel]]:
    for sub in base.__subclasses__():
        yield sub
        yield from _models(sub)


def _scalar(annotation: Any) -> type | None:
    """bool, int or float when ``annotation`` is one of them (possibly optional, annotated)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _scalar(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        found = {_scalar(arg) for arg in get_args(annotation) if arg is not type(None)}
        return found.pop() if len(found) == 1 else None
    return annotation if annotation in WRONG else None


def scalar_fields() -> list[tuple[type[BaseModel], str, type]]:
    found = {
        (model, name, kind)
        for base in (ManifestModel, site_customization.Strict, adaptive_schema.Strict)
        for model in {Settings, *_models(base)}
        for name, info in model.model_fields.items()
        if (kind := _scalar(info.annotation)) is not None
    }
    return sorted(found, key=lambda f: (f[0].__qualname__, f[1]))


FIELDS = scalar_fields()


def test_the_table_covers_the_fields_users_write():
    names = {(model.__name__, name) for model, name, _ in FIELDS}
    assert ("LimitSettings", "maxDeletions") in names
    assert ("CustomizationBlock", "managed") not in names  # a choice, not a scalar
    assert any(model.__module__.endswith("site_customization") for model, _, _ in FIELDS)
    assert len(FIELDS) > 30


@pytest.mark.parametrize(
    ("model", "name", "kind"), FIELDS, ids=[f"{m.__qualname__}.{n}" for m, n, _ in FIELDS]
)
def test_a_string_for_a_boolean_or_a_number_is_refused(model, name, kind):
    with pytest.raises(ValidationError) as refused:
        model.model_validate({name: WRONG[kind]})
    assert any(error["loc"][:1] == (name,) for error in refused.value.errors()), (
        refused.value.errors()
    )


def test_the_cli_names_each_at_its_line(tmp_path: Path):
    (tmp_path / "m.yaml").write_text(
        'docform: {limits: {maxDeletions: "5"}}\n'
        "organization: {id: org_acme, title: Acme}\n"
        'members:\n  alice@acme.test: {role: admin, sso: "no"}\n',
        encoding="utf-8",
    )
    result = run(["validate", tmp_path], tmp_path / "unused.sqlite")
    assert result.exit_code == 1
    assert "m.yaml:4:34: members.alice@acme.test.sso: must be true or false" in result.output
    assert "m.yaml:1:" in result.output and "maxDeletions" in result.output
