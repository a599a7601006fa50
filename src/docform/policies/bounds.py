"""An upper bound of the work and memory evaluating a policy's rule takes, before it runs.

The CEL runtime has an iteration budget for comprehensions, but none for functions: one
``sets.contains(lists.range(N), lists.range(N))`` compares N x N values, ``lists.range(N)``
builds N of them, and a ``map`` builds its list anew at each item (quadratic in the runtime
docform uses). A run of it cannot be interrupted, so the bound must come first: each node of
the rule is given an `Extent` (what evaluating it may cost, how long its value may be, how many
cells it may hold) from its children's, with a model for every function a rule may call. A
function outside the model, or a size that cannot be traced to a number (``lists.range(x)``
of a value read from an input), cannot be bounded, and the rule is refused (`Unbounded`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from docform.policies.cel_syntax import MACROS, RELATIONS, Node, parse
from docform.policies.extents import (
    FUNCTIONS,
    INPUT_CELLS,
    INPUT_TEXT,
    SCALAR,
    Extent,
    Unbounded,
    joined,
)

NAMESPACES = frozenset({"lists", "sets", "math", "strings"})


@dataclass(frozen=True)
class RuleBound:
    steps: int
    """Work of one evaluation, in steps (a node evaluated, two values compared, a cell copied)."""
    cells: int
    """The most cells any value the rule builds holds (inputs not counted: they are built)."""


MAX_STEPS = 5_000_000
"""Most steps one policy may take over one plan (its rule, times the items it is evaluated
for): about half a second of the runtime at its slowest step (a cell a map copies)."""
MAX_CELLS = 1_000_000
"""Most cells a value a rule builds may hold: about 55 MB in the runtime (9,000,000 cells of
``lists.range(3000).map(x, lists.range(3000))`` took 481 MB)."""


def rule_bound(
    source: str, values: Mapping[str, object], longest: int, text: int = INPUT_TEXT
) -> RuleBound:
    """The bound of evaluating ``source`` once over ``values`` (the inputs as far as they are
    known; a list it cannot trace to them counts ``longest`` items, a text ``text``
    characters). Raises `Unbounded`."""
    walker = _Bounds(values, max(longest, text))
    found = walker.extent(parse(source), {})
    return RuleBound(found.steps, max(walker.peak, 1))


def over_bounds(bound: RuleBound, times: int = 1, over: str = " over this plan") -> str | None:
    """Why a rule of ``bound`` evaluated ``times`` is not run, or None when it may be."""
    if bound.steps * times > MAX_STEPS:
        return (
            f"it may take up to {bound.steps * times:,} steps{over}, more than the "
            f"{MAX_STEPS:,} allowed; range over fewer objects (filter first, or use each:)"
        )
    if bound.cells > MAX_CELLS:
        return (
            f"it may build a value of up to {bound.cells:,} items, more than the "
            f"{MAX_CELLS:,} allowed"
        )
    return None


class _Bounds:
    def __init__(self, values: Mapping[str, object], longest: int) -> None:
        self.values = values
        self.longest = longest
        self.peak = 0

    def built(self, extent: Extent) -> Extent:
        """``extent`` is of a value the rule builds: it counts towards the memory bound."""
        self.peak = max(self.peak, extent.cells)
        return extent

    def unknown(self) -> Extent:
        """A value read from an input that cannot be traced to the inputs' values: as long as
        the longest list or text, one object's cells to compare, its items likewise."""
        item = Extent(length=self.longest, cells=INPUT_CELLS)
        return replace(item, element=item)

    def extent(self, node: Node, scope: Mapping[str, Extent]) -> Extent:
        if node.op == "literal":
            return _literal(node.name)
        if node.op == "ident":
            if node.name in scope:
                return scope[node.name]
            return self.traced(node, scope)
        if node.op == "select":
            return self.traced(node, scope)
        if node.op in ("list", "map"):
            return self.collection(node, scope)
        if node.op == "index":
            assert node.target is not None
            target, key = self.extent(node.target, scope), self.extent(node.args[0], scope)
            item = target.element or self.unknown().element or SCALAR
            return replace(item, steps=target.steps + key.steps + 1)
        if node.op == "call":
            return self.call(node, scope)
        return self.operator(node, [self.extent(arg, scope) for arg in node.args])

    def traced(self, node: Node, scope: Mapping[str, Extent]) -> Extent:
        """A variable or a field of one: its extent from the inputs' values where the path
        leads to them, else from its target's element."""
        path: list[str] = []
        at = node
        while at.op == "select" and at.target is not None:
            path.append(at.name)
            at = at.target
        if at.op == "ident" and at.name not in scope and at.name in self.values:
            value: object = self.values[at.name]
            for name in reversed(path):
                value = value.get(name) if isinstance(value, Mapping) else None
            return _of_value(value, self.longest) if value is not None else self.unknown()
        if node.op == "select" and node.target is not None:
            target = self.extent(node.target, scope)
            item = target.element or self.unknown()
            return replace(item, steps=target.steps + 1)
        return self.unknown()

    def collection(self, node: Node, scope: Mapping[str, Extent]) -> Extent:
        items = [self.extent(arg, scope) for arg in node.args]
        values = items if node.op == "list" else items[1::2]
        element = SCALAR
        for item in values:
            element = joined(element, item)
        cells = 1 + sum(item.cells for item in items)
        steps = 1 + sum(item.steps for item in items) + cells
        return self.built(Extent(steps, len(values), cells, len(values), element))

    def operator(self, node: Node, args: list[Extent]) -> Extent:
        steps = 1 + sum(a.steps for a in args)
        if node.op == "?:":
            return replace(joined(args[1], args[2]), steps=steps)
        if node.op in ("!unary", "&&", "||"):
            return Extent(steps)
        if node.op == "-unary":
            return Extent(steps, number=args[0].number)
        a, b = args
        # Two values compare no further than the smaller of them.
        if node.op == "in":
            item = b.element.cells if b.element is not None else a.cells
            return Extent(steps + b.length * (1 + min(a.cells, item)))
        if node.op in RELATIONS:
            return Extent(steps + 1 + min(a.cells, b.cells))
        if node.op == "+":
            length, cells = a.length + b.length, a.cells + b.cells
            element = joined(a.element or SCALAR, b.element or SCALAR)
            return self.built(Extent(steps + cells, length, cells, _add(a, b), element))
        if node.op == "*":
            product = None if a.number is None or b.number is None else a.number * b.number
            return Extent(steps, number=product)
        if node.op == "-":
            return Extent(steps, number=_add(a, b))
        return Extent(steps, number=_max(a, b))  # / and %: no larger than either side

    def call(self, node: Node, scope: Mapping[str, Extent]) -> Extent:
        target = node.target
        namespace = (
            target.name
            if target is not None and target.op == "ident" and target.name in NAMESPACES
            and target.name not in scope and target.name not in self.values
            else None
        )  # fmt: skip
        if target is not None and namespace is None and _is_macro(node):
            return self.comprehension(node, scope)
        if node.name == "has" and target is None:
            return Extent(2)
        receiver = [] if target is None or namespace else [self.extent(target, scope)]
        args = receiver + [self.extent(arg, scope) for arg in node.args]
        model = FUNCTIONS.get((namespace or "", node.name))
        if model is None:
            where = f"{namespace}.{node.name}" if namespace else node.name
            raise Unbounded(node.offset, f"the cost of {where}() cannot be bounded")
        found = model(args, node.offset)
        steps = found.steps + sum(a.steps for a in args)
        return (self.built if found.cells > 1 else _same)(replace(found, steps=steps))

    def comprehension(self, node: Node, scope: Mapping[str, Extent]) -> Extent:
        assert node.target is not None
        target = self.extent(node.target, scope)
        item = target.element or self.unknown().element or SCALAR
        inner = {**scope, node.args[0].name: replace(item, steps=1)}
        body = [self.extent(arg, inner) for arg in node.args[1:]]
        each = 1 + sum(b.steps for b in body)
        steps = target.steps + target.length * each
        if node.name == "map":
            made = body[-1]
            cells = 1 + target.length * made.cells
            # The runtime builds the list anew at each item: quadratic in what it holds.
            result = Extent(steps + target.length * cells, target.length, cells, None, made)
            return self.built(result)
        if node.name == "filter":
            result = Extent(steps + target.length * target.cells, target.length, target.cells,
                            None, item)  # fmt: skip
            return self.built(result)
        return Extent(steps)


def _same(extent: Extent) -> Extent:
    return extent


def _add(a: Extent, b: Extent) -> int | None:
    return None if a.number is None or b.number is None else a.number + b.number


def _max(a: Extent, b: Extent) -> int | None:
    return None if a.number is None or b.number is None else max(a.number, b.number)


def _is_macro(node: Node) -> bool:
    return node.name in MACROS and bool(node.args) and node.args[0].op == "ident"


def _literal(text: str) -> Extent:
    if text[:1] in "'\"" or text[:2].lower() in ("r'", 'r"', "b'", 'b"'):
        return Extent(length=len(text), cells=len(text))
    try:
        number = int(text.rstrip("uU"), 0)
    except ValueError:
        try:
            number = math.ceil(abs(float(text)))
        except (ValueError, OverflowError):
            return SCALAR  # true, false, null
    return Extent(number=abs(number))


def _of_value(value: object, longest: int) -> Extent:
    """The extent of an input's value: its real length, items counted as `INPUT_CELLS`."""
    if isinstance(value, str):
        return Extent(length=len(value), cells=len(value))
    if isinstance(value, bool):
        return SCALAR
    if isinstance(value, int):
        return Extent(number=abs(value))
    if isinstance(value, (list, tuple, Mapping)):
        items = list(value.values() if isinstance(value, Mapping) else value)
        item = (
            _of_value(items[0], longest)
            if items and all(isinstance(i, (int, float)) and not isinstance(i, bool) for i in items)
            else Extent(length=INPUT_TEXT, cells=INPUT_CELLS)
        )
        if item.number is not None:
            item = replace(item, number=max(abs(i) for i in items))
        return Extent(length=len(items), cells=1 + len(items) * item.cells, element=item)
    return SCALAR
