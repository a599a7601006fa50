"""Compiling a policy's rule and message, and checking them without the network: CEL's own
syntax and type errors, then every field they read that the inputs do not have."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from docform.policies.bounds import over_bounds, rule_bound
from docform.policies.cel_syntax import RuleSyntaxError
from docform.policies.expressions import (
    DYN,
    InputType,
    field_problems,
    line_and_column,
    object_type,
)
from docform.policies.extents import Unbounded
from docform.policies.model import EACH_CHANGE, PolicyEntry
from docform.policies.schema import input_types, object_types

_WHERE = re.compile(r"<input>:(\d+):(\d+): ")


def rule_problems(entry: PolicyEntry) -> list[str]:
    """What is wrong with a policy's rule and message, before any plan: CEL's own syntax and
    type errors, then every field read that the inputs do not have."""
    source = entry.source
    variables = variable_types(entry)
    problems = []
    for what, text in (("rule", source.rule), ("message", source.message)):
        try:
            compile_rule(text, tuple(sorted(variables)))
        except RuntimeError as error:
            text = cel_error(error)
            problems.append(f"{what} {text}" if text.startswith("line ") else f"{what}: {text}")
            continue
        try:
            found = field_problems(text, variables)
        except RuleSyntaxError as error:
            problems.append(f"{what}: {error}")
            continue
        problems += [f"{what} line {line} column {col}: {msg}" for line, col, msg in found]
        problems += _bound_problems(what, text)
    return problems


def _bound_problems(what: str, text: str) -> list[str]:
    """What cannot be bounded, or is over the bounds over the smallest plan (every input one
    item, every text one character): refused before review."""
    try:
        smallest = rule_bound(text, {}, 1, text=1)
    except Unbounded as error:
        line, column = line_and_column(text, error.offset)
        return [f"{what} line {line} column {column}: {error}; write it with what can be"]
    too_much = over_bounds(smallest, over="")
    return [f"{what}: even over the smallest plan {too_much}"] if too_much else []


def variable_types(entry: PolicyEntry) -> dict[str, InputType]:
    source = entry.source
    types = dict(input_types())
    del types["change"]
    types["params"] = object_type("params", **dict.fromkeys(source.params, DYN))
    types["now"] = DYN
    if source.each == EACH_CHANGE:
        types["change"] = input_types()["change"]
    elif source.each is not None:
        types["object"] = object_types()[source.each]
    return types


EXTENSIONS = ("strings", "lists", "sets", "math")
"""CEL's standard extensions rules may use (``join``, ``upperAscii``, ``sets.contains``...)."""


@cache
def _environment(variables: tuple[str, ...]) -> Any:
    # The CEL runtime loads with the first policy: manifests without any never need it.
    from cel_expr_python import cel

    declared = {name: cel.Type.TIMESTAMP if name == "now" else cel.Type.DYN for name in variables}
    config = cel.NewEnvConfigFromYaml(
        "extensions:\n" + "".join(f"  - name: {name}\n" for name in EXTENSIONS)
    )
    return cel.NewEnv(config=config, variables=declared)


@cache
def compile_rule(text: str, variables: tuple[str, ...]) -> Any:
    return _environment(variables).compile(text)


def cel_error(error: RuntimeError) -> str:
    """CEL's message, its first line only (the rest repeats the rule with a caret)."""
    first = str(error).split("\n", 1)[0].removeprefix("INVALID_ARGUMENT: ").removeprefix("ERROR: ")
    return _WHERE.sub(lambda m: f"line {m[1]} column {m[2]}: ", first)
