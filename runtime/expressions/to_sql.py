"""The expression language lowered to DuckDB SQL, with pandas' results exactly or not at all.

`to_sql` checks an expression with the pandas compiler first (so its errors are the usual
ExpressionError), then walks the syntax tree into SQL text in which every identifier is quoted
and every literal is a bound `?` parameter: no text a user wrote is ever part of the SQL.
Where DuckDB would give a different result than `compiler.py`, it raises NotLowerable with the
reason instead: never a silent difference. The rules for operators are here, those for
functions in `sql_functions.py`; each was decided by running both engines, and
tests/runtime/expressions/test_to_sql.py keeps checking them against each other.

Each call that builds text carries a `Bound` (sql_bounds.py): SQL for its result's size,
which the backend checks before building the text, as pandas does.

Belongs here: SQL text for one expression. Does not belong here: connections, relations and
running queries (this package never imports duckdb), or deciding what runs where.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.errors import NotLowerable
from runtime.tables.schema import Schema

from . import sql_decimals
from .compiler import check_condition, infer_type
from .decimals import literal_arithmetic
from .nodes import (
    Between,
    Binary,
    Call,
    Case,
    Column,
    In,
    Interval,
    IsNull,
    Like,
    Literal,
    Logical,
    Node,
    Unary,
    children,
    walk,
)
from .parser import parse
from .sql_bounds import Bound, joined_size, replaced_size, text_size
from .sql_dates import DATED, date_arithmetic, lower_interval
from .sql_functions import lower_call
from .sql_parts import (
    NULL_SQL,
    Sql,
    cast,
    common_type,
    finite,
    finite_column,
    huge,
    identifier,
    joined,
    param,
    sql,
    wrapped,
)
from .sql_patterns import lower_case, lower_like
from .values import NULL, NUMBERS

_LITERAL_TYPES = {bool: "boolean", int: "integer", float: "float", str: "string"}
_EXACT_FLOATS = 2**53  # every integer up to this is exactly a float
_COMPARISONS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass(frozen=True)
class SqlExpression:
    """DuckDB SQL for an expression: text with `?` placeholders, their values, and its type."""

    sql: str
    params: tuple
    type: str
    nullable: bool
    bounds: tuple[Bound, ...] = ()
    """The calls that build text, in the order pandas builds (and checks) them."""


def to_sql(text: str, schema: Schema) -> SqlExpression:
    """Lower an expression over columns `schema` to DuckDB SQL (NotLowerable if DuckDB differs)."""
    type, nullable = infer_type(text, schema)
    lowering = _Lowering(schema, text)
    lowered = cast(lowering.value(parse(text)), type)
    return SqlExpression(lowered.text, lowered.params, type, nullable, tuple(lowering.bounds))


def to_sql_condition(text: str, schema: Schema) -> SqlExpression:
    """A filter as SQL that is never null: true exactly where `filter_mask` keeps the row (for
    a place where null and false differ: under NOT, or as a column).

    `IS TRUE` rather than `COALESCE(..., FALSE)`: DuckDB simplifies it away where it can, so a
    comparison reaches a Parquet scan bare and row groups whose statistics rule it out are
    skipped (15 times faster on a selective filter of 20M rows; docs/performance.md)."""
    lowered = to_sql_predicate(text, schema)
    condition = sql("(", Sql(lowered.sql, lowered.params, "boolean"), ") IS TRUE")
    return SqlExpression(condition.text, condition.params, "boolean", False, lowered.bounds)


def to_sql_predicate(text: str, schema: Schema) -> SqlExpression:
    """A filter as a WHERE, ON or FILTER predicate: true where `filter_mask` keeps the row,
    false or null where it does not (those clauses drop both alike).

    Bare, not `IS TRUE`: DuckDB does not look inside `(a OR b) IS TRUE`, so conjuncts common
    to every branch of an OR were not factored out and pushed below a join (TPC-H Q19 at
    SF 10: 5.6 CPU-s with it, 1.2 without)."""
    check_condition(text, schema)
    return to_sql(text, schema)


class _Lowering:
    """Walks a checked syntax tree into `Sql`, refusing what DuckDB computes differently."""

    def __init__(self, schema: Schema, text: str) -> None:
        self.schema = schema
        self.text = text
        self.bounds: list[Bound] = []
        self._sizes: dict[int, Bound] = {}
        """The bound of each lowered node that builds text, by the node's id."""
        self._depths: dict[int, int] = {}
        """How deeply calls that build text nest in each lowered node, by its id."""

    def value(self, node: Node) -> Sql:
        """`node` lowered as the operand of something (datetimes do not lower)."""
        item = self.lower(node)
        if item.type == "datetime":
            raise NotLowerable(
                "datetimes do not run on DuckDB: pandas keeps each column's time zone, "
                "DuckDB converts to its own"
            )
        return item

    def lower(self, node: Node) -> Sql:
        """`node` lowered, whatever its type."""
        item = self._lowered(node)
        below = max((self._depths.get(id(child), 0) for child in children(node)), default=0)
        self._depths[id(node)] = below + (id(node) in self._sizes)
        return item

    def _lowered(self, node: Node) -> Sql:
        if isinstance(node, Literal):
            if node.value is None:
                return NULL_SQL
            return param(node.value, _LITERAL_TYPES[type(node.value)])
        if isinstance(node, Column):
            column = Sql(identifier(node.name), (), self.schema.get(node.name).type)
            return finite_column(column) if column.type == "float" else column
        if isinstance(node, IsNull):  # the one place a datetime may go: it is only tested
            test = " IS NOT NULL)" if node.negated else " IS NULL)"
            return sql("(", cast(self.lower(node.operand), "string"), test, type="boolean")
        if isinstance(node, Call):
            args = [self.value(arg) for arg in node.args]
            if node.name in ("coalesce", "if"):  # the choices meet, as decimals or floats
                choices = slice(1, None) if node.name == "if" else slice(None)
                met = sql_decimals.promoted(list(node.args[choices]), args[choices], self.text)
                args[choices] = met
            item = lower_call(node, args)
            if node.name == "replace" and NULL not in (args[1].type, args[2].type):
                self._bound(node, "replace", *self._replaced(node, *args))
            elif node.name == "concat":
                self._bound(node, "concat", *self._joined(node.args, args))
            return item
        return _RULES[type(node)](self, node)

    def _bound(self, node: Node, what: str, size: Sql, stage: int) -> None:
        """Record that `node` builds text of `size` bytes per row (unless pandas folds it:
        a call of constants is computed, and checked, when the expression is compiled)."""
        if any(isinstance(part, Column) for part in walk(node)):
            bound = Bound(self.text, node, what, size, stage)
            self.bounds.append(bound)
            self._sizes[id(node)] = bound

    def _size(self, node: Node, item: Sql) -> tuple[Sql, int]:
        """The size of a lowered argument and the stage that computing it needs."""
        bound = self._sizes.get(id(node))
        if bound is not None:
            return bound.size, bound.stage
        return text_size(item), self._depths[id(node)]

    def _replaced(self, node: Call, text: Sql, old: Sql, new: Sql) -> tuple[Sql, int]:
        return replaced_size(text, old, new), self._depths[id(node.args[0])]

    def _joined(self, nodes, items: list[Sql]) -> tuple[Sql, int]:
        sizes = [self._size(node, item) for node, item in zip(nodes, items, strict=True)]
        return joined_size([size for size, _ in sizes]), max(stage for _, stage in sizes)

    def unary(self, node: Unary) -> Sql:
        operand = self.value(node.operand)
        if node.op == "not":
            return sql("(NOT ", cast(operand, "boolean"), ")", type="boolean")
        if operand.type == "integer":
            return wrapped("-", huge(operand))
        return operand if operand.type == NULL else sql("(-", operand, ")", type=operand.type)

    def binary(self, node: Binary) -> Sql:
        left, right = self.value(node.left), self.value(node.right)
        exact = literal_arithmetic(node, self.text)
        if exact is not None and "decimal" not in (left.type, right.type):
            return param(exact, "float")
        if node.op in ("+", "-") and DATED & {left.type, right.type}:
            return date_arithmetic(node, left, right)
        left, right = sql_decimals.operands(node, left, right, self.text)
        if "decimal" in (left.type, right.type):
            operator = f" {_COMPARISONS.get(node.op, node.op)} "
            return sql_decimals.binary(node, left, right, operator)
        type = common_type(left, right)
        if node.op in _COMPARISONS:
            type = "string" if type == NULL else type
            operator = f" {_COMPARISONS[node.op]} "
            return sql("(", cast(left, type), operator, cast(right, type), ")", type="boolean")
        if type == NULL:
            return NULL_SQL
        if node.op in ("/", "**"):
            left, right = cast(left, "float"), cast(right, "float")
            if node.op == "**":
                return _power(left, right)
            return finite(sql("(", left, " / NULLIF(", right, ", 0))"))
        left, right = cast(left, type), cast(right, type)
        if type == "string":
            self._bound(node, "'+'", *self._joined((node.left, node.right), [left, right]))
            return sql("(", left, " || ", right, ")", type="string")
        if node.op == "%":
            return _modulo(left, right)
        if type == "integer":
            return wrapped(huge(left), f" {node.op} ", right)
        return finite(sql("(", left, f" {node.op} ", right, ")"))

    def logical(self, node: Logical) -> Sql:
        operands = [cast(self.value(operand), "boolean") for operand in node.operands]
        return sql("(", *joined(f" {node.op.upper()} ", operands), ")", type="boolean")

    def membership(self, node: In) -> Sql:
        items = [self.value(item) for item in (node.operand, *node.items)]
        items = sql_decimals.promoted([node.operand, *node.items], items, self.text)
        type = common_type(*items, default="string")
        for item, lowered in zip(node.items, items[1:], strict=True):
            if lowered.type in NUMBERS and lowered.type != items[0].type:
                _check_exact_choice(item)
        operand, *choices = (cast(item, type) for item in items)
        keyword = " NOT IN (" if node.negated else " IN ("
        return sql("(", operand, keyword, *joined(", ", choices), "))", type="boolean")

    def between(self, node: Between) -> Sql:
        items = [self.value(item) for item in (node.operand, node.low, node.high)]
        items = sql_decimals.promoted([node.operand, node.low, node.high], items, self.text)
        type = common_type(*items, default="string")
        operand, low, high = (cast(item, type) for item in items)
        keyword = " NOT BETWEEN " if node.negated else " BETWEEN "
        return sql("(", operand, keyword, low, " AND ", high, ")", type="boolean")


def _check_exact_choice(item: Node) -> None:
    """Refuse a constant `in` choice whose exact and float comparisons could disagree.

    pandas matches constant choices exactly (`isin`), DuckDB through floats: an integer and a
    float can only differ there from 2**53 on, or for a choice whose value is not known here.
    """
    if any(isinstance(part, Column) for part in walk(item)):
        return  # a column is compared with `=`, through floats in both
    if not (isinstance(item, Literal) and abs(item.value) < _EXACT_FLOATS):
        raise NotLowerable(
            "'in' matches an integer with a float constant exactly in pandas and through "
            "floats in DuckDB, which differ for numbers from 2**53 on"
        )


def _modulo(left: Sql, right: Sql) -> Sql:
    """Floored modulo (the divisor's sign, as in Python and numpy), null for a zero divisor."""
    divisor = sql("NULLIF(", right, ", 0)", type=right.type)
    if right.type == "float":  # DuckDB's fmod() is the floored one, like numpy's remainder
        return finite(sql("fmod(", left, ", ", divisor, ")"))
    remainder = sql("(", huge(left), " % ", divisor, ")")
    return sql("CAST((", remainder, " + ", divisor, ") % ", divisor, " AS BIGINT)", type="integer")


def _power(base: Sql, exponent: Sql) -> Sql:
    """`base ** exponent`; numpy makes `-inf ** 0.5` NaN (so null) where C's pow says inf."""
    fractional = sql(exponent, " > greatest(floor(", exponent, "), 0)")
    return finite(
        sql(
            "CASE WHEN ", base, " = ", param(float("-inf"), "float"), " AND ", fractional,
            " THEN NULL ELSE pow(", base, ", ", exponent, ") END",
        )
    )  # fmt: skip


_RULES = {
    Unary: _Lowering.unary,
    Binary: _Lowering.binary,
    Logical: _Lowering.logical,
    In: _Lowering.membership,
    Between: _Lowering.between,
    Interval: lower_interval,
    Like: lower_like,
    Case: lower_case,
}
