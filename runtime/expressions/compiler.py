"""From syntax tree to a function over DataFrames: the public compile and evaluate calls.

The compiler walks the tree once, type-checking every node against a `Schema` and building
the pandas code for it (symbols in `symbols.py`, functions in `functions.py`). Parts that
read no column are computed once, here, on a one-row frame ("constant folding"). Every node's
code is guarded so that, whatever pandas raises, callers only ever see an ExpressionError.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from runtime.lazy import np, pd
from runtime.suggestions import suggestion
from runtime.tables.frames import column_dtypes
from runtime.tables.schema import Column as SchemaColumn
from runtime.tables.schema import Schema, type_name_of

from .conditionals import build_case
from .errors import ExpressionError
from .functions import FUNCTIONS
from .lexer import printable, shorten
from .nodes import Call, Case, Column, Like, Literal, Node, children
from .parser import parse
from .patterns import build_like
from .symbols import RULES
from .type_checks import Checker
from .values import NULL, Compiled, conform, constant, is_true, resolve

_RULES = {**RULES, Like: build_like, Case: build_case}
_LITERAL_TYPES = {bool: "boolean", int: "integer", float: "float", str: "string", type(None): NULL}


def infer_type(text: str, schema: Schema) -> tuple[str, bool]:
    """The type name and nullability of an expression's result over columns `schema`."""
    compiled = _compile(text, schema)
    return compiled.type, compiled.nullable


def compile_expression(text: str, schema: Schema) -> Callable[[pd.DataFrame], pd.Series]:
    """Check an expression against `schema`; return a function evaluating it over a frame."""
    return _evaluator(_compile(text, schema))


def evaluate(text: str, frame: pd.DataFrame) -> pd.Series:
    """Evaluate an expression over `frame`, one value per row."""
    return compile_expression(text, _schema_of(frame))(frame)


def filter_mask(text: str, frame: pd.DataFrame) -> pd.Series:
    """A bool Series selecting the rows of `frame` where a condition is true (null is false)."""
    return pd.Series(condition_array(text, frame), index=frame.index)


def condition_array(text: str, frame: pd.DataFrame) -> np.ndarray:
    """`filter_mask` as a numpy array, for callers that select rows by position."""
    compiled = _condition(text, _schema_of(frame))
    mask = _run(compiled, frame)
    return mask.to_numpy() if mask.dtype == bool else is_true(mask)


def check_condition(text: str, schema: Schema) -> None:
    """Raise the ExpressionError a filter gives unless `text` is a condition over `schema`."""
    _condition(text, schema)


def _condition(text: str, schema: Schema) -> Compiled:
    compiled = _compile(text, schema)
    if compiled.type != "boolean":
        raise Checker(text).error(
            compiled.node,
            f"a filter must be a condition, but this expression gives {compiled.type} values",
            "compare it with something, e.g. 'x > 0'",
        )
    return compiled


def _schema_of(frame: pd.DataFrame) -> Schema:
    """Like `schema_of`, minus its scan for nulls: nullability only matters to `infer_type`."""
    return _schema_for(tuple(frame.columns), tuple(column_dtypes(frame)))


@functools.lru_cache(maxsize=256)
def _schema_for(names: tuple, dtypes: tuple) -> Schema:
    # Cached: a chain of operators sees the same columns over and over, and building a
    # Schema costs as much as evaluating a simple condition on a small frame.
    columns = (
        SchemaColumn(str(name), type_name_of(dtype))
        for name, dtype in zip(names, dtypes, strict=True)
    )
    return Schema(tuple(columns))


@functools.lru_cache(maxsize=256)
def _compile(text: str, schema: Schema) -> Compiled:
    # Cached: compiled code is immutable and thread-safe, and the same expression is checked
    # against the same columns by validation, schema inference, previews and runs.
    compiled = Compiler(text, schema).compile_node(parse(text))
    return resolve(compiled, "boolean")  # an expression that can only be null: "unknown"


def _evaluator(compiled: Compiled) -> Callable[[pd.DataFrame], pd.Series]:
    def evaluate(frame: pd.DataFrame) -> pd.Series:
        """The expression's value on each row of `frame`."""
        return _run(compiled, frame).set_axis(frame.index).rename(None)

    return evaluate


def _run(compiled: Compiled, frame: pd.DataFrame) -> pd.Series:
    """The value on each row of `frame`, indexed 0..n-1 (numpy warnings off: nulls are ours)."""
    with np.errstate(all="ignore"):
        return compiled.run(positional_view(frame))


def positional_view(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with a plain 0..n-1 index and string column names, so nothing mis-aligns."""
    index = frame.index
    positional = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    view = frame if positional else frame.set_axis(pd.RangeIndex(len(frame)), axis=0)
    names = view.columns  # both tests below are cached by pandas, unlike a loop over names
    if names.inferred_type not in ("string", "empty") or names.hasnans:
        view = view.set_axis([str(name) for name in view.columns], axis=1)
    return view


def _operand_type(type: str) -> str:
    """The type a column has in an expression: its own (a decimal stays exact: decimals.py)."""
    return type


class Compiler:
    """Type-checks a syntax tree against a schema, building each node's pandas code."""

    def __init__(self, text: str, schema: Schema) -> None:
        self.checker = Checker(text)
        self.schema = schema

    def compile_node(self, node: Node) -> Compiled:
        args = [self.compile_node(child) for child in children(node)]
        if isinstance(node, Literal):
            compiled = constant(node, node.value, _LITERAL_TYPES[type(node.value)])
        elif isinstance(node, Column):
            compiled = self.column(node)
        elif isinstance(node, Call):
            compiled = FUNCTIONS[node.name].build(self.checker, node, *args)
        else:
            compiled = _RULES[type(node)](self.checker, node, *args)
        compiled = dataclasses.replace(compiled, run=self.guarded(node, compiled.run))
        if args and all(arg.is_constant for arg in args) and not compiled.is_constant:
            return self.folded(compiled)
        return compiled

    def column(self, node: Column) -> Compiled:
        column = self.schema.get(node.name)
        if column is None:
            hint = suggestion(node.name, self.schema.names)
            raise self.checker.error(node, f"unknown column '{printable(node.name)}'", hint)
        name, type = column.name, _operand_type(column.type)

        def run(frame: pd.DataFrame) -> pd.Series:
            if name not in frame.columns:
                message = f"column '{printable(name)}' is missing from the data"
                raise self.checker.error(node, message)
            return conform(frame[name], type)

        return Compiled(node, type, column.nullable, run)

    def guarded(self, node: Node, run: Callable) -> Callable:
        def guarded_run(frame: pd.DataFrame) -> pd.Series:
            try:
                return run(frame)
            except ExpressionError:
                raise
            except Exception as error:  # the contract: only ExpressionError ever escapes
                raise self.checker.error(
                    node,
                    f"cannot evaluate {self.checker.describe(node)}",
                    printable(shorten(str(error) or type(error).__name__, 200)),
                ) from error

        return guarded_run

    def folded(self, compiled: Compiled) -> Compiled:
        """`compiled` replaced by its value, computed once (it reads no column)."""
        return constant(compiled.node, folded_value(compiled.run), compiled.type)


def folded_value(compute: Callable[[pd.DataFrame], pd.Series]) -> object:
    """The value `compute` gives on a frame of one row and no column (None for null)."""
    with np.errstate(all="ignore"):
        value = compute(pd.DataFrame(index=pd.RangeIndex(1))).iloc[0]
    if pd.isna(value):
        return None
    return value.item() if isinstance(value, np.generic) else value
