"""The rule checker (src/docform/policies/expressions.py, over cel_syntax.py): it reads every
expression CEL itself compiles, and finds exactly the misspelt fields, drawn at random from the
documented inputs."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.policies.bounds import rule_bound
from docform.policies.cel_syntax import RuleSyntaxError, parse
from docform.policies.check import compile_rule
from docform.policies.expressions import (
    InputType,
    field_problems,
    roots_read,
)
from docform.policies.extents import Unbounded
from docform.policies.schema import input_types

VARIABLES = dict(input_types())
NAMES = tuple(sorted({*VARIABLES, "params", "now"}))


@st.composite
def paths(draw: st.DrawFn) -> list[str]:
    """A chain of field names that exists in the inputs, from a variable down."""
    root = draw(st.sampled_from(sorted(VARIABLES)))
    chain, shape = [root], VARIABLES[root]
    while shape.fields and draw(st.booleans()):
        name = draw(st.sampled_from(sorted(shape.fields)))
        chain.append(name)
        shape = shape.fields[name]
        if shape.element is not None and shape.element.fields and draw(st.booleans()):
            chain[-1] += "[0]"
            shape = shape.element
    return chain


@settings(max_examples=fuzz_examples(80), deadline=None)
@given(paths(), st.sampled_from(["has({})", "{} == null", "size({}) > 0"]))
def test_a_path_the_inputs_have_is_never_reported(chain, form):
    if form.startswith("has") and len(chain) == 1:
        return
    assert field_problems(form.format(".".join(chain)), VARIABLES) == []


@settings(max_examples=fuzz_examples(80), deadline=None)
@given(paths(), st.text(alphabet="qz_", min_size=1, max_size=4))
def test_a_misspelt_field_is_reported_once_with_its_place(chain, junk):
    if shape_of(chain).is_map or shape_of(chain).name == "dyn":
        return  # any key may be read from a map
    wrong = [*chain, f"no{junk}"]
    rule = "true && " + ".".join(wrong) + " == 1"
    problems = field_problems(rule, VARIABLES)
    assert len(problems) == 1
    line, column, message = problems[0]
    assert (line, column) == (1, rule.index(f"no{junk}") + 1)
    assert f"'no{junk}'" in message


def shape_of(chain: list[str]) -> InputType:
    shape = VARIABLES[chain[0]]
    for part in chain[1:]:
        name = part.removesuffix("[0]")
        assert shape.fields is not None
        shape = shape.fields[name]
        if part.endswith("[0]"):
            assert shape.element is not None
            shape = shape.element
    return shape


LEAVES = st.sampled_from(
    ["1", "2.5", "'a'", '"b"', "true", "null", "plan", "params", "[1, 2]", "{'k': 1}", "b'x'"]
)


FUNCTIONS = [
    "lists.range({0})",
    "sets.contains({0}, {1})",
    "{0}.sort()",
    "{0}.distinct()",
    "{0}.flatten()",
    "{0}.replace('a', {1})",
    "{0}.split({1})",
    "{0}.join({1})",
    "math.greatest({0}, {1})",
    "string({0})",
    "{0}.matches({1})",
]
"""Calls whose cost depends on their arguments' sizes (`docform.policies.extents`)."""


def expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "==", "&&", "||", "<", "in", "*"]), inner)
        return st.one_of(
            binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"!{e}"),
            inner.map(lambda e: f"-{e}"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
            inner.map(lambda e: f"{e}.field"),
            inner.map(lambda e: f"{e}[0]"),
            inner.map(lambda e: f"size({e})"),
            st.tuples(inner, st.sampled_from(["all", "exists", "map", "filter"]), inner).map(
                lambda t: f"{t[0]}.{t[1]}(x, {t[2]})"
            ),
            st.tuples(st.sampled_from(FUNCTIONS), inner, inner).map(
                lambda t: t[0].format(t[1], t[2])
            ),
        )

    return st.recursive(LEAVES, extend, max_leaves=12)


@settings(max_examples=fuzz_examples(100), deadline=None)
@given(expressions())
def test_the_checker_reads_every_expression_cel_compiles(source):
    try:
        compile_rule(source, NAMES)
    except RuntimeError:
        return  # a type error CEL finds (1 + 'a'): the checker need not agree on types
    parse(source)


@settings(max_examples=fuzz_examples(100), deadline=None)
@given(expressions())
def test_every_expression_cel_compiles_is_bounded_or_refused_as_unbounded(source):
    """The bound reads whatever CEL compiles: a bound, or `Unbounded` (never another error)."""
    try:
        compile_rule(source, NAMES)
    except RuntimeError:
        return
    with contextlib.suppress(Unbounded):
        bound = rule_bound(source, {}, 1000)
        assert bound.steps >= 1 and bound.cells >= 1


@given(st.text(alphabet="()[]{}.,!?:+-*/%<>=&|'\"ab1 ", max_size=20))
@settings(max_examples=fuzz_examples(100), deadline=None)
def test_the_checker_refuses_only_with_its_own_error(source):
    with contextlib.suppress(RuleSyntaxError):
        parse(source)


def test_a_comprehension_costs_its_list_times_its_body():
    values = {"plan": {"changes": [{}] * 30}, "params": {"xs": [1] * 5}}
    flat = rule_bound("plan.changes.all(c, true)", values, 1000).steps
    nested = rule_bound("plan.changes.all(c, params.xs.all(x, true))", values, 1000).steps
    assert flat < 100 < nested < 1000
    untraced = rule_bound("desired.space.all(s, true)", values, 1000, text=1).steps
    assert untraced > 1000


def test_what_a_rule_reads():
    reads = roots_read("desired.member.all(m, m.fields.role != '') && plan.labels.size() > 0")
    assert reads == {("desired", "member"), ("plan", "labels")}
    assert ("live", None) in roots_read("size(live) > 0")


MEMBER = st.fixed_dictionaries(
    {"address": st.sampled_from(["member.a", "member.b"]), "title": st.sampled_from(["A", "B"])},
    optional={
        "fields": st.fixed_dictionaries(
            {},
            optional={
                "role": st.sampled_from(["admin", "edit", None]),
                "sso": st.booleans(),
                "extra": st.lists(st.integers(), max_size=2),
            },
        )
    },
)


@settings(max_examples=fuzz_examples(100), deadline=None)
@given(
    MEMBER,
    MEMBER,
    st.sampled_from(
        [
            "object.fields.role == 'admin'",
            "has(object.fields.sso) && object.fields.sso && object.title != ''",
            "object.fields.extra.size() > 0 || object.address == 'member.a'",
            "object == object",
        ]
    ),
)
def test_items_share_a_key_exactly_when_the_rule_reads_them_alike(one, other, rule):
    from docform.policies.expressions import project, read_key, usage
    from docform.policies.schema import object_types

    shape = object_types()["member"]
    used = usage([rule], {"object": shape})
    alike = project(one, shape, used) == project(other, shape, used)
    assert (read_key(one, shape, used) == read_key(other, shape, used)) == alike
