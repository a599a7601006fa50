"""What each function a policy's rule may call costs, from its arguments' extents: the model
`docform.policies.bounds` bounds a rule with (CEL's standard library and its strings, lists,
sets and math extensions). A function outside it cannot be bounded, and a rule calling it is
refused."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

INPUT_TEXT = 4_096
"""How long a text read from an input counts (titles, emails, paths: the service's own limits
keep them far shorter)."""
INPUT_CELLS = 64
"""How many cells one object of an input counts: its fields and their values."""
NUMBER_TEXT = 32
"""The longest text a number or a time converts to."""


class Unbounded(ValueError):
    """The rule calls something whose cost cannot be bounded; ``offset`` is where."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Extent:
    """What evaluating one node may take: ``steps`` of work, a value of ``length`` items (or
    characters) holding ``cells`` in all, an integer of at most ``number`` in magnitude (None:
    not known), and ``element``, the extent of one of its items."""

    steps: int = 1
    length: int = 1
    cells: int = 1
    number: int | None = None
    element: Extent | None = None


SCALAR = Extent()


def joined(a: Extent, b: Extent) -> Extent:
    """An extent that bounds both ``a`` and ``b`` (the branches of ``?:``, a list's items)."""
    number = None if a.number is None or b.number is None else max(a.number, b.number)
    element = a.element if b.element is None else b.element if a.element is None else None
    if a.element is not None and b.element is not None:
        element = joined(a.element, b.element)
    return Extent(max(a.steps, b.steps), max(a.length, b.length), max(a.cells, b.cells),
                  number, element)  # fmt: skip


Model = Callable[[Sequence[Extent], int], Extent]


def _range(args: Sequence[Extent], offset: int) -> Extent:
    count = args[0].number if args else None
    if count is None:
        raise Unbounded(
            offset,
            "lists.range() of a number that cannot be traced to a literal or a size cannot "
            "be bounded",
        )
    return Extent(count, count, 1 + count, count, Extent(number=count))


def _text(length: int, steps: int = 0) -> Extent:
    return Extent(steps + length, length, length)


def _pairwise(args: Sequence[Extent], offset: int) -> Extent:
    return Extent(1 + args[0].cells * args[-1].cells)


def _searched(args: Sequence[Extent], offset: int) -> Extent:
    return Extent(1 + (args[0].length + 1) * (args[-1].length + 1), number=args[0].length)


def _replaced(args: Sequence[Extent], offset: int) -> Extent:
    text, new = args[0], args[2] if len(args) > 2 else SCALAR
    return _text((text.length + 1) * (new.length + 1), _searched(args, offset).steps)


def _split(args: Sequence[Extent], offset: int) -> Extent:
    text = args[0]
    part = Extent(length=text.length, cells=text.length)
    return Extent(1 + 2 * text.length, text.length + 1, 2 + 2 * text.length, None, part)


def _joined_text(args: Sequence[Extent], offset: int) -> Extent:
    items, separator = args[0], args[1] if len(args) > 1 else Extent(length=0, cells=0)
    return _text(items.cells + items.length * separator.length)


def _formatted(args: Sequence[Extent], offset: int) -> Extent:
    return _text(args[0].length + args[-1].cells * NUMBER_TEXT)


def _sorted(args: Sequence[Extent], offset: int) -> Extent:
    items = args[0]
    work = items.cells * max(1, math.ceil(math.log2(items.length + 1)))
    return replace(items, steps=1 + work + items.cells)


def _sorted_by(args: Sequence[Extent], offset: int) -> Extent:
    raise Unbounded(offset, "the cost of sortBy() cannot be bounded: sort a map() instead")


def _distinct(args: Sequence[Extent], offset: int) -> Extent:
    items = args[0]
    return replace(items, steps=1 + items.length * items.cells)


def _kept(args: Sequence[Extent], offset: int) -> Extent:
    """Of no more than its first argument (slice, reverse, trim, substring...)."""
    return replace(args[0], steps=1 + args[0].cells)


def _flattened(args: Sequence[Extent], offset: int) -> Extent:
    items = args[0]
    inner = items.element.element if items.element and items.element.element else SCALAR
    return Extent(1 + items.cells, items.cells, items.cells, None, inner)


def _extreme(args: Sequence[Extent], offset: int) -> Extent:
    pool = args[0].element if len(args) == 1 and args[0].element else None
    numbers = [a.number for a in ([pool] if pool else args)]
    number = None if None in numbers else max(n for n in numbers if n is not None)
    return Extent(1 + sum(a.cells for a in args), number=number)


def _size(args: Sequence[Extent], offset: int) -> Extent:
    return Extent(1, number=args[0].length)


def _scalar(number: Callable[[Sequence[Extent]], int | None]) -> Model:
    return lambda args, offset: Extent(1 + sum(a.cells for a in args), number=number(args))


def _converted_text(args: Sequence[Extent], offset: int) -> Extent:
    return _text(max(args[0].cells, NUMBER_TEXT))


def _quoted(args: Sequence[Extent], offset: int) -> Extent:
    return _text(2 + 6 * args[0].length)


def _as_is(args: Sequence[Extent], offset: int) -> Extent:
    return replace(args[0], steps=1)


_UNKNOWN_NUMBER = _scalar(lambda args: None)
_SAME_NUMBER = _scalar(lambda args: args[0].number)
_BOOL = _scalar(lambda args: None)
_CLOCK = _scalar(lambda args: 10_000)

CLOCK_GETTERS = """getFullYear getMonth getDate getDayOfMonth getDayOfWeek getDayOfYear getHours
getMinutes getSeconds getMilliseconds"""
MATH_OTHERS = "sign isInf isNaN isFinite bitAnd bitOr bitXor bitNot bitShiftLeft bitShiftRight sqrt"

FUNCTIONS: dict[tuple[str, str], Model] = {
    ("", "size"): _size,
    ("", "contains"): _searched,
    ("", "startsWith"): _searched,
    ("", "endsWith"): _searched,
    ("", "matches"): _searched,
    ("", "int"): _SAME_NUMBER,
    ("", "uint"): _SAME_NUMBER,
    ("", "double"): _UNKNOWN_NUMBER,
    ("", "bool"): _BOOL,
    ("", "string"): _converted_text,
    ("", "bytes"): _converted_text,
    ("", "timestamp"): _BOOL,
    ("", "duration"): _BOOL,
    ("", "dyn"): _as_is,
    ("", "type"): _BOOL,
    ("", "charAt"): _scalar(lambda args: None),
    ("", "indexOf"): _searched,
    ("", "lastIndexOf"): _searched,
    ("", "lowerAscii"): _kept,
    ("", "upperAscii"): _kept,
    ("", "trim"): _kept,
    ("", "substring"): _kept,
    ("", "reverse"): _kept,
    ("", "slice"): _kept,
    ("", "replace"): _replaced,
    ("", "split"): _split,
    ("", "join"): _joined_text,
    ("", "format"): _formatted,
    ("", "sort"): _sorted,
    ("", "sortBy"): _sorted_by,
    ("", "distinct"): _distinct,
    ("", "flatten"): _flattened,
    ("strings", "quote"): _quoted,
    ("lists", "range"): _range,
    ("sets", "contains"): _pairwise,
    ("sets", "equivalent"): _pairwise,
    ("sets", "intersects"): _pairwise,
    ("math", "greatest"): _extreme,
    ("math", "least"): _extreme,
    **{("", name): _CLOCK for name in CLOCK_GETTERS.split()},
    **{("math", name): _SAME_NUMBER for name in ["abs", "ceil", "floor", "round", "trunc"]},
    **{("math", name): _UNKNOWN_NUMBER for name in MATH_OTHERS.split()},
}
"""Every function a rule may call (CEL's standard library and its strings, lists, sets and
math extensions), with what it may cost: (namespace, name) -> its extent from its arguments'
(the receiver first)."""
