"""A Pratt parser from tokens to the syntax tree, enforcing the nesting limit.

Syntax lives here, and the check that every call names a whitelisted function with the right
number of arguments. Whether columns exist and types fit is decided later, by the compiler.
"""

from __future__ import annotations

import dataclasses
import functools

from . import date_syntax
from .errors import ExpressionError, error_at
from .functions import lookup
from .lexer import Token, tokenize
from .nodes import (
    Between,
    Binary,
    Call,
    Case,
    Column,
    Expression,
    In,
    IsNull,
    Like,
    Literal,
    Logical,
    Node,
    Unary,
    walk,
)
from .type_checks import Checker

MAX_DEPTH = 64
"""The deepest nesting accepted, counting parentheses, operators and calls."""

# Binding powers, loosest first. A prefix `-` binds its operand at _NEGATE, so `-2 ** 2` is
# `-(2 ** 2)` as in Python, while `2 ** -1` still reads its right side with a leading minus.
_OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _NEGATE, _POWER = range(1, 9)
_COMPARISONS = {"==": "=", "<>": "!="} | {op: op for op in ("=", "!=", "<", "<=", ">", ">=")}
_OPERATORS = {"+": _SUM, "-": _SUM, "*": _PRODUCT, "/": _PRODUCT, "%": _PRODUCT, "**": _POWER}
_OPERATORS |= dict.fromkeys(_COMPARISONS, _COMPARE)
_KEYWORDS = {"or": _OR, "and": _AND, "is": _COMPARE, "in": _COMPARE, "between": _COMPARE}
_KEYWORDS |= {"like": _COMPARE, "ilike": _COMPARE}
_NEGATABLE = ("in", "between", "like", "ilike")
_CONSTANTS = {"true": True, "false": False, "null": None}


@functools.lru_cache(maxsize=1024)
def parse(text: str) -> Expression:
    """Parse expression text into its syntax tree, raising ExpressionError on any mistake.

    Trees are immutable, so a text parsed once (say, at validation) is not parsed again when
    the node runs or the editor asks for schemas.
    """
    tree = _Parser(text).parse()
    date_syntax.check_intervals(text, tree)
    return tree


@functools.lru_cache(maxsize=1024)
def referenced_columns(text: str) -> frozenset[str]:
    """The names of the columns an expression reads (cached like `parse`: pruning asks for
    every node of every plan)."""
    return frozenset(node.name for node in walk(parse(text)) if isinstance(node, Column))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.nesting = 0

    def parse(self) -> Node:
        node = self.expression()
        if self.peek().kind != "end":
            raise self.unexpected(self.peek(), "expected an operator or the end of the expression")
        return node

    def expression(self, power: int = 0) -> Node:
        """Read an expression whose operators all bind tighter than `power`."""
        self.nesting += 1
        try:
            if self.nesting > MAX_DEPTH:
                raise self.too_deep(self.peek().start)
            left = self.prefix(power)
            compared = False
            while (binding := self.infix_power(self.peek())) > power:
                if compared and binding == _COMPARE:
                    raise self.unexpected(self.peek(), "comparisons cannot be chained; use 'and'")
                compared = binding == _COMPARE
                left = self.infix(left, binding)
            return left
        finally:
            self.nesting -= 1

    def prefix(self, power: int) -> Node:
        token = self.advance()
        if token.kind in ("number", "string"):
            return self.made(Literal(token.value, span=(token.start, token.end)))
        if token.kind == "keyword" and token.value in _CONSTANTS:
            return self.made(Literal(_CONSTANTS[token.value], span=(token.start, token.end)))
        if token.kind == "column":
            return self.made(Column(token.value, span=(token.start, token.end)))
        dated = date_syntax.prefix(self, token)
        if dated is not None:
            return self.made(dated)
        if token.kind == "name":
            if _is(self.peek(), "("):
                return self.call(token)
            return self.made(Column(token.value, span=(token.start, token.end)))
        if _is(token, "("):
            node = self.expression()
            closing = self.expect(")", "expected ')'")
            return dataclasses.replace(node, span=(token.start, closing.end))
        if _is(token, "case"):
            return self.case(token)
        if _is(token, "-"):
            return self.negate(token, self.expression(_NEGATE))
        if _is(token, "not") and power < _NOT:
            operand = self.expression(_NOT)
            return self.made(Unary("not", operand, span=(token.start, operand.span[1])))
        raise self.unexpected(token, "expected an expression")

    def negate(self, minus: Token, operand: Node) -> Node:
        span = (minus.start, operand.span[1])
        value = operand.value if isinstance(operand, Literal) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return self.made(Literal(-value, span=span))
        return self.made(Unary("-", operand, span=span))

    def infix_power(self, token: Token) -> int:
        if token.kind == "op":
            return _OPERATORS.get(token.value, 0)
        if token.kind != "keyword":
            return 0
        if token.value == "not":
            return _COMPARE if _is(self.tokens[self.index + 1], *_NEGATABLE) else 0
        return _KEYWORDS.get(token.value, 0)

    def infix(self, left: Node, power: int) -> Node:
        token = self.advance()
        if token.value in ("and", "or"):
            return self.logical(token.value, left, self.expression(power))
        if token.value == "is":
            return self.is_null(left)
        negated = token.value == "not"
        if negated:
            token = self.advance()
        if token.value == "in":
            return self.in_list(left, negated)
        if token.value == "between":
            return self.between(left, negated)
        if token.value in ("like", "ilike"):
            return self.like(left, negated, token.value == "ilike")
        right = self.expression(_NEGATE if token.value == "**" else power)
        op = _COMPARISONS.get(token.value, token.value)
        return self.made(Binary(op, left, right, span=(left.span[0], right.span[1])))

    def logical(self, op: str, left: Node, right: Node) -> Node:
        same = isinstance(left, Logical) and left.op == op
        operands = (*left.operands, right) if same else (left, right)
        return self.made(Logical(op, operands, span=(left.span[0], right.span[1])))

    def is_null(self, operand: Node) -> Node:
        negated = _is(self.peek(), "not")
        if negated:
            self.advance()
        end = self.expect("null", "expected 'null' or 'not null' after 'is'")
        return self.made(IsNull(operand, negated, span=(operand.span[0], end.end)))

    def in_list(self, operand: Node, negated: bool) -> Node:
        self.expect("(", "expected '(' after 'in'")
        items, end = self.arguments()
        if not items:
            raise self.unexpected(end, "expected an expression")
        return self.made(In(operand, items, negated, span=(operand.span[0], end.end)))

    def between(self, operand: Node, negated: bool) -> Node:
        low = self.expression(_COMPARE)
        self.expect("and", "expected 'and' between the bounds of 'between'")
        high = self.expression(_COMPARE)
        return self.made(Between(operand, low, high, negated, span=(operand.span[0], high.span[1])))

    def like(self, operand: Node, negated: bool, insensitive: bool) -> Node:
        """The rest of `x [not] like pattern [escape char]` (or `ilike`)."""
        pattern = self.expression(_COMPARE)
        escape = None
        if _is_word(self.peek(), "escape"):
            self.advance()
            escape = self.expression(_COMPARE)
        end = (escape or pattern).span[1]
        node = Like(operand, pattern, escape, negated, insensitive, span=(operand.span[0], end))
        return self.made(node)

    def case(self, start: Token) -> Node:
        """The rest of `case [operand] when a then x ... [else y] end`."""
        operand = None if _is(self.peek(), "when") else self.expression()
        branches: list[Node] = []
        while _is(self.peek(), "when") or not branches:
            self.expect("when", "expected 'when'")
            branches.append(self.expression())
            self.expect("then", "expected 'then'")
            branches.append(self.expression())
        otherwise = None
        if _is(self.peek(), "else"):
            self.advance()
            otherwise = self.expression()
        end = self.expect("end", "expected 'when', 'else' or 'end'")
        node = Case(operand, tuple(branches), otherwise, span=(start.start, end.end))
        return self.made(node)

    def call(self, name: Token) -> Node:
        self.advance()
        if name.value.lower() == "substring":
            args, end = self.substring_arguments()
        else:
            args, end = self.arguments()
        node = self.made(Call(name.value.lower(), args, span=(name.start, end.end)))
        lookup(Checker(self.text), node)
        return node

    def substring_arguments(self) -> tuple[tuple[Node, ...], Token]:
        """`text, start[, length])` or SQL's `text from start [for length])`."""
        if _is(self.peek(), ")"):
            return self.arguments()
        text = self.expression()
        if not _is_word(self.peek(), "from"):
            return self.arguments(text)
        self.advance()
        items = [text, self.expression()]
        if _is_word(self.peek(), "for"):
            self.advance()
            items.append(self.expression())
        return tuple(items), self.expect(")", "expected 'for' or ')'")

    def arguments(self, first: Node | None = None) -> tuple[tuple[Node, ...], Token]:
        """Read `expr, expr, ...)` after an opening parenthesis (and `first`, if read
        already); return them and the `)`."""
        items: list[Node] = [] if first is None else [first]
        if first is None and not _is(self.peek(), ")"):
            items.append(self.expression())
        while items and _is(self.peek(), ","):
            self.advance()
            items.append(self.expression())
        return tuple(items), self.expect(")", "expected ',' or ')'")

    def made(self, node: Node) -> Node:
        if node.depth > MAX_DEPTH:
            raise self.too_deep(node.span[0])
        return node

    def peek(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index = min(self.index + 1, len(self.tokens) - 1)
        return token

    def expect(self, value: str, hint: str) -> Token:
        token = self.advance()
        if not _is(token, value):
            raise self.unexpected(token, hint)
        return token

    def unexpected(self, token: Token, hint: str) -> ExpressionError:
        word = self._reserved_before(token)
        if word is not None:  # `end - start` from before these words were reserved
            hint = f"{hint}; '{word}' is a reserved word: write a column of that name as `{word}`"
        return error_at(self.text, token.start, f"unexpected {token.shown()}", hint, token.end)

    def _reserved_before(self, token: Token) -> str | None:
        """A reserved word (`end`, `case`...) at `token` or just before it that stands where a
        column would, between operators: a user may have meant a column of that name."""
        position = next((i for i, each in enumerate(self.tokens) if each is token), 0)
        return self._as_column(position) or (self._as_column(position - 1) if position else None)

    def _as_column(self, index: int) -> str | None:
        word, tokens = self.tokens[index], self.tokens
        before = tokens[index - 1] if index > 0 else None
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        reserved = word.kind == "keyword" and str(word.value) in _COLUMN_LIKE_WORDS
        if reserved and (before is None or before.kind == "op"):
            return str(word.value) if after is None or after.kind in ("op", "end") else None
        return None

    def too_deep(self, offset: int) -> ExpressionError:
        return error_at(
            self.text, offset, "expression is nested too deeply", f"the limit is {MAX_DEPTH} levels"
        )


_COLUMN_LIKE_WORDS = frozenset({"like", "ilike", "case", "when", "then", "else", "end"})
"""Reserved words that were column names in expressions written before they were reserved."""


def _is(token: Token, *values: str) -> bool:
    return token.kind in ("op", "keyword") and token.value in values


def _is_word(token: Token, word: str) -> bool:
    """Whether `token` is `word` where only a clause may stand (`escape`, `from`, `for` are
    not reserved: a column may be named so)."""
    return token.kind in ("name", "keyword") and str(token.value).lower() == word
