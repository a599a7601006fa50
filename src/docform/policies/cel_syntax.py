"""A small reader of CEL's grammar: a policy rule's tokens and syntax tree.

The CEL library parses rules for evaluation but does not expose its tree; the rule checker
(`docform.policies.expressions`) walks this one to find the fields a rule reads and to bound
its cost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
RELATIONS = ("==", "!=", "<=", ">=", "<", ">", "in")
MAX_NESTING = 48
"""How deeply a rule may nest (parentheses, calls, `!` on `!`): more than CEL's own limit of
32 parentheses, and few enough that reading the rule stays far from Python's recursion limit."""

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>[rR]?[bB]?[rR]?
        ("{3}[\s\S]*?"{3}|'{3}[\s\S]*?'{3}|"(\\.|[^"\\\n])*"|'(\\.|[^'\\\n])*'))
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?[uU]?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|[-+*/%!<>?:.,()\[\]{}])
    """,
    re.VERBOSE,
)


class RuleSyntaxError(ValueError):
    """The rule is not a CEL expression this checker can read (the library says more)."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    offset: int


@dataclass
class Node:
    """One node of the expression: ``op`` is ``ident``, ``select``, ``call``, ``index``,
    ``list``, ``map``, ``literal`` or an operator; ``name`` the identifier, field or function."""

    op: str
    offset: int
    name: str = ""
    args: list[Node] = field(default_factory=list)
    target: Node | None = None


def tokens(source: str) -> list[Token]:
    found, at = [], 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise RuleSyntaxError(f"unexpected {source[at]!r} at offset {at}")
        kind = match.lastgroup or ""
        if kind != "space":
            found.append(Token(kind, match.group(), at))
        at = match.end()
    found.append(Token("end", "", len(source)))
    return found


class _Parser:
    """Recursive descent over CEL's grammar (conditional, or, and, relation, addition,
    multiplication, unary, member, primary)."""

    def __init__(self, source: str) -> None:
        self.tokens = tokens(source)
        self.at = 0
        self.depth = 0

    def peek(self, *texts: str) -> bool:
        token = self.tokens[self.at]
        return token.kind in ("op", "name") and token.text in texts

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, text: str) -> Token:
        if not self.peek(text):
            token = self.tokens[self.at]
            raise RuleSyntaxError(f"expected {text!r} at offset {token.offset}")
        return self.take()

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            offset = self.tokens[self.at].offset
            raise RuleSyntaxError(
                f"the rule nests deeper than {MAX_NESTING} levels at offset {offset}: "
                "write it flatter"
            )

    def expression(self) -> Node:
        self.nested()
        try:
            return self._conditional()
        finally:
            self.depth -= 1

    def _conditional(self) -> Node:
        condition = self.binary(0)
        if self.peek("?"):
            at = self.take().offset
            then = self.binary(0)
            self.expect(":")
            return Node("?:", at, args=[condition, then, self.expression()])
        return condition

    _LEVELS: tuple[tuple[str, ...], ...] = (
        ("||",),
        ("&&",),
        RELATIONS,
        ("+", "-"),
        ("*", "/", "%"),
    )

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek(*self._LEVELS[level]):
            token = self.take()
            left = Node(token.text, token.offset, args=[left, self.binary(level + 1)])
        return left

    def unary(self) -> Node:
        found: list[Token] = []
        while self.peek("!", "-"):
            found.append(self.take())
            self.nested()
        try:
            node = self.member()
        finally:
            self.depth -= len(found)
        for token in reversed(found):
            node = Node(token.text + "unary", token.offset, args=[node])
        return node

    def member(self) -> Node:
        node = self.primary()
        while self.peek(".", "[", "{"):
            token = self.take()
            if token.text == "[":
                node = Node("index", token.offset, target=node, args=[self.expression()])
                self.expect("]")
            elif token.text == "{":
                node = Node("message", token.offset, target=node, args=self.inits("}"))
            else:
                name = self.take()
                if name.kind != "name":
                    raise RuleSyntaxError(f"expected a field name at offset {name.offset}")
                if self.peek("("):
                    self.take()
                    node = Node("call", name.offset, name.text, self.items(")"), target=node)
                else:
                    node = Node("select", name.offset, name.text, target=node)
        return node

    def primary(self) -> Node:
        token = self.take()
        if token.kind == "op" and token.text == ".":
            token = self.take()
        if token.kind == "name" and token.text not in ("true", "false", "null", "in"):
            if self.peek("("):
                self.take()
                return Node("call", token.offset, token.text, self.items(")"))
            return Node("ident", token.offset, token.text)
        if token.kind in ("string", "number", "name"):
            return Node("literal", token.offset, token.text)
        if token.text == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        if token.text == "[":
            return Node("list", token.offset, args=self.items("]"))
        if token.text == "{":
            return Node("map", token.offset, args=self.inits("}"))
        where = "the end of the rule" if token.kind == "end" else f"{token.text!r}"
        raise RuleSyntaxError(f"unexpected {where} at offset {token.offset}")

    def items(self, close: str) -> list[Node]:
        found: list[Node] = []
        while not self.peek(close):
            found.append(self.expression())
            if not self.peek(","):
                break
            self.take()
        self.expect(close)
        return found

    def inits(self, close: str) -> list[Node]:
        found: list[Node] = []
        while not self.peek(close):
            found.append(self.expression())
            self.expect(":")
            found.append(self.expression())
            if not self.peek(","):
                break
            self.take()
        self.expect(close)
        return found


@cache
def parse(source: str) -> Node:
    """The rule's syntax tree (cached: a policy's rule is read several times per plan; the
    tree is never changed)."""
    parser = _Parser(source)
    node = parser.expression()
    rest = parser.tokens[parser.at]
    if rest.kind != "end":
        raise RuleSyntaxError(f"unexpected {rest.text!r} at offset {rest.offset}")
    _refuse_deep(node)
    return node


MAX_DEPTH = 100
"""How deep a rule's tree may be (a chain of 100 `&&` is 100 deep): what walks it recurses."""


def _refuse_deep(root: Node) -> None:
    """Without recursion: the tree may be too deep to recurse into."""
    pending = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise RuleSyntaxError(
                f"the rule nests deeper than {MAX_DEPTH} levels at offset {node.offset}: "
                "write it flatter (split it into several policies)"
            )
        children = [*([node.target] if node.target is not None else []), *node.args]
        pending += [(child, depth + 1) for child in children]
