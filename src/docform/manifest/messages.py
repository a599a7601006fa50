"""Pydantic validation errors as located, human messages (``unknown key 'titel' (did you mean
'title'?)``, ``must be at most 50 characters (it has 63)``)."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Mapping, Set
from typing import Any

from pydantic import BaseModel, ValidationError

from docform.manifest.problems import Path, Problem, did_you_mean
from docform.manifest.sources import SourceMap, type_name
from docform.model.entry import ID_PATTERN
from docform.model.fields import DOMAIN_PATTERN, EMAIL_PATTERN, NAME_PATTERN, SLUG_PATTERN
from docform.service.site_customization import COLOR_PATTERN, URL_PATTERN

PATTERN_MESSAGES = {
    NAME_PATTERN: "is not a valid name: use a-z, 0-9, '-' and '_', starting with a letter or digit",
    EMAIL_PATTERN: (
        "is not an email address (one without spaces, and without invisible or "
        "direction-changing characters, which make one address look like another)"
    ),
    SLUG_PATTERN: "is not a valid slug: letters and digits, words joined by single hyphens",
    ID_PATTERN: "is not a valid id: use letters, digits, '_' and '-'",
    DOMAIN_PATTERN: "is not a domain name",
    COLOR_PATTERN: "is not a color: write #RGB or #RRGGBB (quote it: YAML reads # as a comment)",
    URL_PATTERN: "is not a URL: write an absolute http:// or https:// URL",
}
_QUOTE_HINT = " (quote it: YAML reads yes, no, on, off, numbers and null as non-strings)"


def validation_problems(
    error: ValidationError,
    model: type[BaseModel],
    base: Path,
    sources: SourceMap,
    reported: Set[Path] = frozenset(),
) -> list[Problem]:
    """One problem per pydantic error of validating ``model`` at ``base``.

    Errors inside a value in ``reported`` are dropped: a value whose tag or reference was
    already refused has its problem, and pydantic's second opinion would only be noise.
    """
    problems = []
    items = error.errors(include_url=False)
    misspelt = _misspelt_required(items, model)
    for item in items:
        loc = tuple(item["loc"])
        if loc and loc[-1] == "[key]":
            loc = loc[:-1]
        path = (*base, *loc)
        if reported and any(path[:end] in reported for end in range(len(path) + 1)):
            continue
        if item["type"] == "missing" and loc in misspelt:
            continue
        problems.append(Problem.at(sources.locate(path), path, describe(item, model, loc, path)))
    return problems


def _misspelt_required(items: list[Any], model: type[BaseModel]) -> set[Path]:
    """Required fields reported missing because they were misspelt (``titel``): the unknown
    key's message already suggests them, so "is required" would say the same thing twice."""
    found = set()
    for item in items:
        loc = tuple(item["loc"])
        if item["type"] != "extra_forbidden":
            continue
        owner = model_at(model, loc[:-1])
        allowed = list(owner.model_fields) if owner is not None else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.6)
        if close:
            found.add((*loc[:-1], close[0]))
    return found


def describe(item: Any, model: type[BaseModel], loc: Path, path: Path) -> str:
    """The message for one pydantic error ``item`` at ``loc`` within ``model``."""
    kind, value, ctx = item["type"], item.get("input"), item.get("ctx") or {}
    if kind == "extra_forbidden":
        return _unknown_key(model, loc)
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        return _not_allowed(value, re.findall(r"'([^']*)'", ctx.get("expected", "")))
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern"))
        what = PATTERN_MESSAGES.get(pattern, f"does not match {pattern}")
        return f"'{value}' {what}"
    if kind == "value_error":
        return str(ctx.get("error", item["msg"]))
    simple = _simple_message(kind, value, ctx)
    return simple if simple is not None else item["msg"]


def _simple_message(kind: str, value: Any, ctx: dict[str, Any]) -> str | None:
    if kind == "string_type":
        hint = _QUOTE_HINT if isinstance(value, bool | int | float) or value is None else ""
        return f"must be a string, not {type_name(value)}{hint}"
    if kind == "string_too_short":
        low = ctx.get("min_length", 1)
        return "must not be empty" if low == 1 else f"must be at least {low} characters"
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters (it has {len(value)})"
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be a whole number"
    if kind in ("float_type", "float_parsing", "finite_number"):
        return "must be a number"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be a mapping, not {type_name(value)}"
    if kind == "list_type":
        return f"must be a list, not {type_name(value)}"
    return None


def _not_allowed(value: Any, choices: list[str]) -> str:
    if isinstance(value, str):
        hint = did_you_mean(value, choices)
        if hint:
            return f"'{value}' is not allowed{hint}"
        return f"'{value}' is not one of: {', '.join(choices)}"
    return f"must be one of: {', '.join(choices)} (not {type_name(value)})"


def _unknown_key(model: type[BaseModel], loc: Path) -> str:
    key = str(loc[-1])
    owner = model_at(model, loc[:-1])
    hints: Mapping[str, str] = getattr(owner, "unknown_key_hints", {})
    if key in hints:
        return f"unknown key '{key}': {hints[key]}"
    allowed = list(owner.model_fields) if owner is not None else []
    hint = did_you_mean(key, allowed)
    if not hint and allowed:
        hint = f" (expected one of: {', '.join(allowed)})"
    return f"unknown key '{key}'{hint}"


def model_at(model: type[BaseModel], loc: Path) -> type[BaseModel] | None:
    """The model class validating the mapping at ``loc`` inside ``model``."""
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if _is_model(current):
            field = current.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            current = field.annotation
        elif typing.get_origin(current) in (dict, list):
            current = typing.get_args(current)[-1]
        else:
            return None
    current = _unwrap(current)
    return current if _is_model(current) else None


def _unwrap(annotation: Any) -> Any:
    """``Annotated[X, ...]``, ``X | None`` and unions with one model -> that type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in args if _is_model(_unwrap(a))]
            annotation = models[0] if models else args[0]
        else:
            return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
