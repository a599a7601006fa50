"""Whether a value fits a schema of the definition, decided by plain Python functions made once
per schema node (`FitCompiler`), for the check of every exchange (`contract_definition`).

Nearly every exchange of the suite fits. jsonschema's validation of a fitting answer still walks
it keyword by keyword, making a validator per schema it descends into and resolving each
``$ref`` through the `referencing` registry: most of the check's cost. Asking first whether the
value fits, with each keyword the definition uses compiled into a function over the value and
each ``$ref`` followed once, when compiled, answers a fitting value without any of that; jsonschema
then runs only on a value that does not fit, and its errors are the mismatches, word for word as
before.

A compiled function answers exactly what jsonschema's ``is_valid`` answers for the same schema,
never only "probably": ``oneOf`` counts the branches that fit, so a branch judged too strictly or
too leniently could turn a mismatch into none. Each keyword follows jsonschema's own rule (to
which types it applies, its comparison); a node with a keyword compiled here in no such way (or
one that changes how references resolve) is left to a jsonschema validator of that node, so an
unknown keyword is never skipped. Keywords jsonschema does not know (``description``,
``discriminator``) are skipped, as jsonschema skips them. test_contract_fit.py holds the
compiled functions to jsonschema's answers.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator, FormatChecker

Fit = Callable[[Any], bool]

TYPES: dict[str, Fit] = {
    "array": lambda value: isinstance(value, list),
    "boolean": lambda value: isinstance(value, bool),
    "integer": lambda value: (
        (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer())
    ),
    "null": lambda value: value is None,
    "number": lambda value: isinstance(value, numbers.Number) and not isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "string": lambda value: isinstance(value, str),
}
"""jsonschema's Draft 2020-12 types (a float with no fraction is an integer; a bool no number)."""

OBJECT_KEYWORDS = frozenset(
    {"properties", "required", "additionalProperties", "propertyNames", "minProperties",
     "maxProperties"}
)  # fmt: skip
COMPILED = OBJECT_KEYWORDS | {
    "$ref", "type", "enum", "format", "allOf", "anyOf", "oneOf", "items", "minItems",
    "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
}  # fmt: skip
KNOWN = frozenset(Draft202012Validator.VALIDATORS)
"""The keywords jsonschema validates; any other it skips."""
RESOLUTION = frozenset({"$id", "$anchor", "$dynamicAnchor"})


class Unsupported(Exception):
    """A schema node this module compiles in no way exactly like jsonschema."""


class FitCompiler:
    """Compiles the nodes of one definition document; ``exact(node)`` is jsonschema's own
    answer for a node it leaves alone."""

    def __init__(
        self, document: Mapping[str, Any], formats: FormatChecker, exact: Callable[[Any], Fit]
    ) -> None:
        self.document = document
        self.formats = formats
        self.exact = exact
        self._references: dict[str, Fit] = {}

    def compile(self, schema: Any) -> Fit:
        if schema is True:
            return _always
        if schema is False:
            return _never
        try:
            return _all(self._checks(schema))
        except (Unsupported, TypeError, AttributeError, ValueError, KeyError, re.error):
            return self.exact(schema)

    def _checks(self, schema: Any) -> list[Fit]:
        if not isinstance(schema, dict):
            raise Unsupported(schema)
        keywords = set(schema) & KNOWN
        if keywords - COMPILED or RESOLUTION & set(schema):
            raise Unsupported(sorted(keywords - COMPILED))
        checks: list[Fit] = []
        if "$ref" in schema:
            checks.append(self._reference(schema["$ref"]))
        if "type" in schema:
            checks.append(_types(schema["type"]))
        if "enum" in schema:
            checks.append(_enum(schema["enum"]))
        if "format" in schema:
            checks.append(self._format(schema["format"]))
        if keywords & OBJECT_KEYWORDS:
            checks.append(self._object(schema))
        if keywords & {"items", "minItems", "maxItems"}:
            checks.append(self._array(schema))
        if keywords & {"minLength", "maxLength", "pattern"}:
            checks.append(_string(schema))
        if keywords & {"minimum", "maximum"}:
            checks.append(_number(schema))
        for word, combine in (("allOf", _all), ("anyOf", _any), ("oneOf", _one)):
            if word in schema:
                checks.append(combine([self.compile(s) for s in schema[word]]))
        return checks

    def _reference(self, reference: str) -> Fit:
        """The target's function, compiled once for the document; a target that refers back
        to itself (a tree of blocks) reaches its own function through a cell filled after."""
        known = self._references.get(reference)
        if known is None:
            if not reference.startswith("#/"):
                raise Unsupported(reference)
            target = pointed_to(self.document, reference)
            cell: list[Fit] = []
            self._references[reference] = lambda value: cell[0](value)
            cell.append(self.compile(target))
            known = self._references[reference] = cell[0]
        return known

    def _format(self, name: str) -> Fit:
        """`FormatChecker.conforms`, its checker looked up once: a format it has no checker
        for takes any value; a checker's exception it names means the value does not fit."""
        if name not in self.formats.checkers:
            return _always
        check, raises = self.formats.checkers[name]

        def fits(value: Any) -> bool:
            try:
                return bool(check(value))
            except raises:
                return False

        return fits

    def _object(self, schema: dict[str, Any]) -> Fit:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        properties = {name: self.compile(s) for name, s in schema.get("properties", {}).items()}
        required = frozenset(schema.get("required", ()))
        extra = schema.get("additionalProperties", True)
        other = None if extra is True else self.compile(extra)
        names = None if "propertyNames" not in schema else self.compile(schema["propertyNames"])
        least = schema.get("minProperties", 0)
        most = schema.get("maxProperties", float("inf"))

        def fits(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            if not least <= len(value) <= most or not required <= value.keys():
                return False
            for name, item in value.items():
                check = properties.get(name, other)
                if check is not None and not check(item):
                    return False
                if names is not None and not names(name):
                    return False
            return True

        return fits

    def _array(self, schema: dict[str, Any]) -> Fit:
        item = self.compile(schema.get("items", True))
        least = schema.get("minItems", 0)
        most = schema.get("maxItems", float("inf"))

        def fits(value: Any) -> bool:
            if not isinstance(value, list):
                return True
            return least <= len(value) <= most and all(map(item, value))

        return fits


def pointed_to(document: Any, reference: str) -> Any:
    """The node of ``document`` that ``reference`` (``#/a/b``, a JSON pointer in a URI
    fragment) names."""
    target = document
    for part in unquote(reference.removeprefix("#/")).split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _all(checks: list[Fit]) -> Fit:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:  # most nodes: a type and what it holds, called without a generator
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


def _any(branches: list[Fit]) -> Fit:
    return lambda value: any(branch(value) for branch in branches)


def _one(branches: list[Fit]) -> Fit:
    def fits(value: Any) -> bool:
        found = 0
        for branch in branches:
            if branch(value):
                found += 1
                if found > 1:
                    return False
        return found == 1

    return fits


def _types(named: str | list[str]) -> Fit:
    checks = [TYPES[name] for name in ([named] if isinstance(named, str) else named)]
    if len(checks) == 1:
        return checks[0]
    return lambda value: any(check(value) for check in checks)


def _enum(values: list[Any]) -> Fit:
    """jsonschema's equality: a string equals only a string; a bool only the same bool (not 1
    or 0); numbers compare by value."""
    if any(isinstance(value, list | dict) for value in values):
        raise Unsupported("enum of arrays or objects")
    strings = frozenset(value for value in values if isinstance(value, str))
    others = [value for value in values if not isinstance(value, str)]

    def fits(value: Any) -> bool:
        if isinstance(value, str):
            return value in strings
        return any(_same_scalar(other, value) for other in others)

    return fits


def _same_scalar(listed: Any, value: Any) -> bool:
    if listed is value:
        return True
    if isinstance(listed, bool) or isinstance(value, bool):
        return False
    return bool(listed == value)


def _string(schema: dict[str, Any]) -> Fit:
    least = schema.get("minLength", 0)
    most = schema.get("maxLength", float("inf"))
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def fits(value: Any) -> bool:
        if not isinstance(value, str):
            return True
        return least <= len(value) <= most and (search is None or search(value) is not None)

    return fits


def _number(schema: dict[str, Any]) -> Fit:
    least = schema.get("minimum")
    most = schema.get("maximum")
    is_number = TYPES["number"]

    def fits(value: Any) -> bool:
        if not is_number(value):
            return True
        return (least is None or not value < least) and (most is None or not value > most)

    return fits
