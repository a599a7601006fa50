"""What docform checks in a policy rule before any evaluation: the fields it reads and its cost.

The CEL library (`docform.policies.evaluate`) parses and type-checks an expression against
declared variables, but the policy inputs are maps whose keys it cannot know, so a misspelt
field (``change.acton``) would surface only when a plan reaches it, and perhaps never in a
branch left unevaluated. This module reads the rule a second time with a small parser of
CEL's grammar (`docform.policies.cel_syntax`), follows every field selection from the
documented inputs (`InputType`) and reports the ones that do not exist, with the fields that
do. What a rule may cost is bounded in `docform.policies.bounds`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from docform.policies.cel_syntax import MACROS, RELATIONS, Node, parse

# -- the inputs' shape -------------------------------------------------------------------------


@dataclass(frozen=True)
class InputType:
    """The shape of a value a rule reads: an object with named fields (closed: any other field
    is an error), a list, a map with any keys, or anything (``dyn``, not checked further)."""

    name: str
    fields: Mapping[str, InputType] | None = None
    element: InputType | None = None
    is_list: bool = False
    is_map: bool = False


DYN = InputType("dyn")
STRING = InputType("string")
NUMBER = InputType("int")
BOOL = InputType("bool")
SCALARS = frozenset({STRING.name, NUMBER.name, BOOL.name})


def list_of(element: InputType) -> InputType:
    return InputType(f"list of {element.name}", element=element, is_list=True)


def map_of(value: InputType) -> InputType:
    return InputType(f"map of {value.name}", element=value, is_map=True)


def object_type(name: str, **fields: InputType) -> InputType:
    return InputType(name, fields=fields)


# -- checking ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldProblem:
    offset: int
    message: str


@dataclass
class _Checker:
    """Follows the rule's field selections through the input shapes: the fields that do not
    exist are problems; the ones that do are what the rule reads (`Usage`)."""

    variables: Mapping[str, InputType]
    problems: list[FieldProblem] = field(default_factory=list)
    selected: dict[int, set[str]] = field(default_factory=dict)
    whole: set[int] = field(default_factory=set)
    shapes: list[InputType] = field(default_factory=list)
    """Every shape marked, kept alive so that no id is reused."""

    def check(self, node: Node, scope: Mapping[str, InputType], whole: bool = True) -> InputType:
        found = self._type(node, scope)
        if whole:
            self.mark_whole(found)
        return found

    def _type(self, node: Node, scope: Mapping[str, InputType]) -> InputType:
        if node.op == "ident":
            return scope.get(node.name, self.variables.get(node.name, DYN))
        if node.op == "select" and node.target is not None:
            return self.field(self.check(node.target, scope, False), node.name, node.offset)
        if node.op == "index" and node.target is not None:
            return self.index(node, scope)
        if node.op == "call":
            return self.call(node, scope)
        for arg in node.args:
            self.check(arg, scope)
        if node.target is not None:
            self.check(node.target, scope)
        return BOOL if node.op in ("||", "&&", "!unary", *RELATIONS) else DYN

    def mark_whole(self, shape: InputType) -> None:
        if id(shape) not in self.whole and (shape.fields is not None or shape.element):
            self.whole.add(id(shape))
            self.shapes.append(shape)
            if shape.element is not None:
                self.mark_whole(shape.element)

    def select(self, shape: InputType, name: str) -> None:
        self.selected.setdefault(id(shape), set()).add(name)
        self.shapes.append(shape)

    def field(self, of: InputType, name: str, offset: int) -> InputType:
        if of.fields is not None:
            if name in of.fields:
                self.select(of, name)
                return of.fields[name]
            known = ", ".join(sorted(of.fields)) or "none"
            self.problems.append(
                FieldProblem(offset, f"{of.name} has no field '{name}' (its fields: {known})")
            )
            return DYN
        if of.is_map:
            self.select(of, name)
            return of.element or DYN
        if of.is_list:
            self.problems.append(
                FieldProblem(offset, f"'{name}' is read from a {of.name}: use [index] or a macro")
            )
        elif of.name in SCALARS:
            self.problems.append(
                FieldProblem(offset, f"'{name}' is read from a {of.name}, which has no fields")
            )
        return DYN

    def index(self, node: Node, scope: Mapping[str, InputType]) -> InputType:
        assert node.target is not None
        of = self.check(node.target, scope, False)
        key = node.args[0]
        self.check(key, scope)
        literal = key.op == "literal" and key.name[:1] in "'\""
        if (of.fields is not None or of.is_map) and literal:
            return self.field(of, key.name[1:-1], key.offset)
        if of.is_map:
            self.mark_whole(of)
        return of.element or DYN if (of.is_list or of.is_map) else DYN

    def call(self, node: Node, scope: Mapping[str, InputType]) -> InputType:
        if node.name in ("has", "size") and node.target is None and node.args:
            # has() reads one field; size() only a length.
            for arg in node.args:
                self.check(arg, scope, False)
            return BOOL if node.name == "has" else NUMBER
        if node.target is None:
            for arg in node.args:
                self.check(arg, scope)
            return DYN
        of = self.check(node.target, scope, node.name not in MACROS and node.name != "size")
        if _is_macro(node):
            if of.is_map:
                self.mark_whole(of)
            element = of.element if of.is_list else STRING if of.is_map else DYN
            inner = {**scope, node.args[0].name: element or DYN}
            results = [self.check(arg, inner) for arg in node.args[1:]]
            if node.name == "filter":
                return list_of(element or DYN)
            if node.name == "map":
                return list_of(results[-1] if results else DYN)
            return BOOL
        for arg in node.args:
            self.check(arg, scope)
        return NUMBER if node.name == "size" else DYN


@dataclass(frozen=True)
class Usage:
    """What a rule reads of its inputs: per shape (by identity) the fields it selects, and the
    shapes it reads whole. Only that is handed to CEL (`project`): converting a plan of 20,000
    objects for a rule that reads one list's two fields would cost more than the rule."""

    selected: Mapping[int, frozenset[str]]
    whole: frozenset[int]
    shapes: tuple[InputType, ...]


def usage(sources: Iterable[str], variables: Mapping[str, InputType]) -> Usage:
    checker = _Checker(variables)
    for source in sources:
        checker.check(parse(source), {})
    selected = {k: frozenset(v) for k, v in checker.selected.items()}
    return Usage(selected, frozenset(checker.whole), tuple(checker.shapes))


def project(value: object, shape: InputType, used: Usage) -> object:
    """``value`` cut to what ``used`` reads of it, as ``shape`` describes it."""
    if id(shape) in used.whole or (shape.fields is None and shape.element is None):
        return value
    if shape.is_list:
        element = shape.element or DYN
        return [project(v, element, used) for v in value] if type(value) is list else value
    if type(value) is not dict:
        return value
    keys = used.selected.get(id(shape), frozenset())
    if shape.fields is not None:
        return {k: project(value[k], shape.fields[k], used) for k in keys if k in value}
    element = shape.element or DYN
    return {k: project(value[k], element, used) for k in keys if k in value}


def field_problems(source: str, variables: Mapping[str, InputType]) -> list[tuple[int, int, str]]:
    """Every field ``source`` selects that its input does not have, as (line, column, message)
    within the rule (1-based). Raises `RuleSyntaxError` when it cannot read the rule."""
    checker = _Checker(variables)
    checker.check(parse(source), {})
    return [(*line_and_column(source, p.offset), p.message) for p in checker.problems]


def line_and_column(source: str, offset: int) -> tuple[int, int]:
    before = source[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def read_key(value: object, shape: InputType, used: Usage) -> str:
    """A text that is equal for two values exactly when what ``used`` reads of them is equal
    (the projection of `project`, without building it where the rule reads named fields)."""
    if id(shape) in used.whole or shape.fields is None or type(value) is not dict:
        return _canonical(project(value, shape, used))
    parts: list[object] = []
    for name in sorted(used.selected.get(id(shape), ())):
        inner, item = shape.fields[name], value.get(name, _ABSENT)
        if type(item) is dict and id(inner) not in used.whole and (inner.fields or inner.is_map):
            names = sorted(used.selected.get(id(inner), ()))
            parts.append([_canonical(item.get(n, _ABSENT)) for n in names])
        else:
            parts.append(_canonical(project(item, inner, used)))
    return repr(parts)


def _canonical(value: object) -> str:
    if value is _ABSENT:
        return "<absent>"  # unlike any repr, which quotes a text
    if value is None or type(value) in (str, int, float, bool):
        return repr(value)
    return json.dumps(value, sort_keys=True, default=repr)


_ABSENT = object()
"""Where a read field is missing: unlike any value a field can hold."""


# -- what a rule reads ------------------------------------------------------------------------


def roots_read(source: str) -> set[tuple[str, str | None]]:
    """The inputs a rule reads: (variable, field) for each ``variable.field`` it selects, and
    (variable, None) where it reads a variable whole; comprehension variables left out."""
    found: set[tuple[str, str | None]] = set()

    def walk(node: Node, bound: frozenset[str]) -> None:
        if node.op == "select" and node.target is not None and node.target.op == "ident":
            if node.target.name not in bound:
                found.add((node.target.name, node.name))
            return
        if node.op == "ident" and node.name not in bound:
            found.add((node.name, None))
        if node.target is not None:
            walk(node.target, bound)
        if _is_macro(node):
            for arg in node.args[1:]:
                walk(arg, bound | {node.args[0].name})
            return
        for arg in node.args:
            walk(arg, bound)

    walk(parse(source), frozenset())
    return found


def _is_macro(node: Node) -> bool:
    return (
        node.op == "call"
        and node.name in MACROS
        and node.target is not None
        and bool(node.args)
        and node.args[0].op == "ident"
    )
