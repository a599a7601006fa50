"""Evaluating policies: each rule compiled once with the CEL runtime, then run over the plan,
once or for each change or object, within a bound on its work.

Why cel-expr-python: of the maintained CEL implementations for Python it is the CEL team's own
(the C++ runtime), it type-checks expressions against declared variables, and it was the
fastest of them by far on the benchmark's rules (the figures are in docs/policies.md). A rule
cannot run code, read files or reach the network: CEL has no such functions, and docform
declares none.

A rule is a pure function of what it reads, so objects it reads alike (10,000 members read
only for their role) are evaluated once (`Record.key`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from docform.policies.bounds import RuleBound, over_bounds, rule_bound
from docform.policies.cel_syntax import RuleSyntaxError
from docform.policies.check import cel_error, compile_rule, variable_types
from docform.policies.expressions import (
    DYN,
    InputType,
    Usage,
    project,
    read_key,
    roots_read,
    usage,
)
from docform.policies.extents import Unbounded
from docform.policies.inputs import Inputs, Values
from docform.policies.model import EACH_CHANGE, PolicyEntry
from docform.policies.objects import Record, key_reads
from docform.policies.results import ORGANIZATION, PolicyReport, PolicyResult
from docform.policies.schema import wanted

ITERATION_BUDGET = 10_000
"""Items the CEL runtime lets one evaluation's comprehensions range over, in all."""
POLICY_SECONDS = 10.0
"""How long one policy may run over one plan, its evaluations in all: a rule within the bounds
(`docform.policies.bounds`) takes far less; this stops one whose items are many, between two
evaluations (one evaluation cannot be interrupted, and the bounds keep it short)."""
UNTRACED_LIST = 1_000
"""How long a list a rule ranges over counts when its length cannot be read from the inputs."""


def evaluate_policies(policies: Sequence[PolicyEntry], inputs: Inputs) -> PolicyReport:
    """Every policy over ``inputs``; a rule that errs or would cost too much fails closed."""
    report = PolicyReport(evaluated=[entry.name for entry in policies])
    programs: list[tuple[PolicyEntry, _Program | PolicyResult]] = []
    for entry in policies:
        try:
            program = _program(entry)
        except (RuntimeError, RuleSyntaxError) as error:
            text = cel_error(error) if isinstance(error, RuntimeError) else str(error)
            failed = f"the rule does not compile: {text}"
            programs.append((entry, _failure(entry, ORGANIZATION, failed, error=True)))
            continue
        inputs.expect(program.roots, program.reads, entry.source.each)
        programs.append((entry, program))
    for entry, compiled in programs:
        if isinstance(compiled, PolicyResult):
            report.results.append(compiled)
        else:
            report.results += _evaluate(entry, compiled, inputs)
    return report


@dataclass(frozen=True)
class _Program:
    """One policy compiled, with what its rule (``rule_reads``) and its rule and message
    (``reads``) read of the inputs."""

    rule: Any
    message: Any
    types: dict[str, InputType]
    reads: Usage
    rule_reads: Usage
    roots: set[tuple[str, str | None]]


def _program(entry: PolicyEntry) -> _Program:
    source = entry.source
    types = variable_types(entry)
    variables = tuple(sorted(types))
    return _Program(
        compile_rule(source.rule, variables),
        compile_rule(source.message, variables),
        types,
        usage((source.rule, source.message), types),
        usage((source.rule,), types),
        roots_read(source.rule) | roots_read(source.message),
    )


def _evaluate(entry: PolicyEntry, program: _Program, inputs: Inputs) -> list[PolicyResult]:
    source = entry.source
    values = inputs.values(program.roots, source.each)
    values["params"] = source.params
    items = _items(entry, values, inputs)
    try:
        rule = rule_bound(source.rule, values, UNTRACED_LIST)
        message = rule_bound(source.message, values, UNTRACED_LIST)
    except Unbounded as error:
        return [_failure(entry, ORGANIZATION, f"the rule was not evaluated: {error}", error=True)]
    both = RuleBound(rule.steps + message.steps, max(rule.cells, message.cells))
    too_much = over_bounds(both, max(len(items), 1))
    if too_much:
        why = f"the rule was not evaluated: {too_much}"
        return [_failure(entry, ORGANIZATION, why, error=True)]
    types, reads = program.types, program.reads
    shared = {k: project(v, types[k], reads) if k in types else v for k, v in values.items()}
    return _check_items(entry, program, shared, items)


def _items(entry: PolicyEntry, values: Values, inputs: Inputs) -> list[tuple[str, str, Any]]:
    """(address, variable, value) for each evaluation of the rule: the value a change's input,
    or an object's `Record`."""
    each = entry.source.each
    if each is None:
        return [(ORGANIZATION, "", None)]
    if each == EACH_CHANGE:
        return [(c["address"], "change", c) for c in values["plan"]["changes"]]
    return [(r.address, "object", r) for r in inputs.records("desired", each)]


def _check_items(
    entry: PolicyEntry, program: _Program, shared: Values, items: list[tuple[str, str, Any]]
) -> list[PolicyResult]:
    """Each item checked; items the rule reads alike are evaluated once."""
    outcomes: dict[Any, tuple[bool, Any]] = {}
    found = []
    variable = items[0][1] if items else ""
    shape = program.types.get(variable, DYN)
    key_of = _keys(shape, program.rule_reads) if variable else (lambda _: "")
    rule_item = _Item(shape, program.rule_reads)
    message_item = _Item(shape, program.reads)
    started = time.monotonic()
    for done, (address, _, value) in enumerate(items):
        if time.monotonic() - started > POLICY_SECONDS:
            found.append(_failure(entry, address, _out_of_time(done, len(items)), error=True))
            break
        key = key_of(value)
        if key not in outcomes:
            seen = rule_item.seen(value)
            outcome = _run(program.rule, {**shared, variable: seen} if variable else shared)
            outcomes[key] = (_holds(outcome), outcome)
        holds, outcome = outcomes[key]
        if holds:
            continue
        data = {**shared, variable: message_item.seen(value)} if variable else shared
        result = _result(entry, program, outcome, data, address)
        if result is not None:
            found.append(result)
    return found


def _out_of_time(done: int, items: int) -> str:
    return (
        f"the rule was stopped after {POLICY_SECONDS:g} s, here, with {done:,} of its {items:,} "
        "evaluations made: make it cheaper (read fewer fields, filter first)"
    )


def _keys(shape: InputType, used: Usage) -> Callable[[Any], Any]:
    """The key an item is evaluated once per: equal for items ``used`` reads alike."""
    reads = key_reads(shape, used)

    def key_of(value: Any) -> Any:
        if isinstance(value, Record):
            if reads is not None:
                return value.key(reads)
            value = value.build()
        return read_key(value, shape, used)

    return key_of


class _Item:
    """What a rule reads of one item (``used``), as CEL is handed it."""

    def __init__(self, shape: InputType, used: Usage) -> None:
        self.shape, self.used = shape, used
        self.wanted = wanted(shape, used)

    def seen(self, value: Any) -> Any:
        # A record builds only what is wanted: nothing is left to cut away.
        if isinstance(value, Record):
            return value.build(self.wanted)
        return project(value, self.shape, self.used)


@dataclass(frozen=True)
class _Stopped:
    """What the CEL runtime refused to finish, in the shape of its own error values."""

    reason: str

    def type(self) -> str:
        return "ERROR"

    def value(self) -> str:
        return self.reason


def _run(expression: Any, data: Values) -> Any:
    try:
        return expression.eval(data=data)
    except RuntimeError as error:
        text = cel_error(error).removeprefix("INTERNAL: ").removesuffix(" [INTERNAL]")
        if "budget" in text:
            text += (
                f" (one evaluation ranges over at most {ITERATION_BUDGET:,} items: use each: "
                "to check object by object, or tally and plan.deletions for counts)"
            )
        return _Stopped(text)


def _holds(outcome: Any) -> bool:
    return str(outcome.type()) == "BOOL" and bool(outcome.value())


def _result(
    entry: PolicyEntry, program: _Program, outcome: Any, data: Values, address: str
) -> PolicyResult | None:
    kind = str(outcome.type())
    if kind == "ERROR":
        return _failure(entry, address, f"the rule failed: {outcome.value()}", error=True)
    if kind != "BOOL":
        return _failure(entry, address, f"the rule gave a {kind.lower()}, not a bool", error=True)
    if outcome.value():
        return None
    said = _run(program.message, data)
    text = str(said.value()) if str(said.type()) == "STRING" else entry.source.description
    return _failure(entry, address, text or "")


def _failure(
    entry: PolicyEntry, address: str, message: str, *, error: bool = False
) -> PolicyResult:
    return PolicyResult(
        entry.name, entry.severity, address, message, str(entry.location), error=error
    )
