"""Compiled nodes, and the helpers that keep their pandas values in a few canonical dtypes.

A `Compiled` node carries its checked type and nullability and a `run(frame)` that returns a
Series aligned with the frame. Every run returns one of these dtypes, so operators and
functions only ever meet a handful of cases:

    integer: int64, or Int64 when it may hold nulls     float: float64
    boolean: bool, or boolean when it may hold nulls    string: str
    date: date_dtype()                                  datetime: any datetime64 dtype
    decimal: an Arrow decimal128 (`pd.ArrowDtype`), or Arrow's null type for a bare null

Nothing here parses or type-checks; that is the compiler's job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from runtime.lazy import np, pa, pd
from runtime.tables.schema import date_dtype, type_name_of

from .errors import ExpressionError
from .exact_decimals import ExactDecimal
from .lexer import printable, shorten
from .nodes import Node
from .sizes import oversize, text_bytes

NULL = "null"
"""The type of a bare `null`: it fits wherever any other type is expected."""

NUMBERS = ("integer", "float", "decimal")

_VARIABLE = object()
_DTYPES = {"integer": "int64", "float": "float64", "boolean": "bool", "string": "str"}
_NULLABLE_DTYPES = {
    "integer": "Int64",
    "float": "float64",
    "boolean": "boolean",
    "string": "str",
    "date": "date32[pyarrow]",  # date_dtype(), named so that pandas loads when it is used
    "datetime": "datetime64[ns]",
}


@dataclass(frozen=True)
class Compiled:
    """A type-checked node: its type, whether it may be null, and how to compute it."""

    node: Node
    type: str
    nullable: bool
    run: Callable[[pd.DataFrame], pd.Series]
    constant: object = _VARIABLE

    @property
    def is_constant(self) -> bool:
        """Whether the value is known without looking at any column."""
        return self.constant is not _VARIABLE


def constant(node: Node, value: object, type: str) -> Compiled:
    """A compiled node whose value is `value` on every row."""

    def run(frame: pd.DataFrame) -> pd.Series:
        return broadcast(value, type, frame.index)

    return Compiled(node, type, value is None, run, value)


def derive(node: Node, type: str, nullable: bool, impl: Callable, *args: Compiled) -> Compiled:
    """A compiled node computing `impl(*values of args)`, conformed to `type`."""

    def run(frame: pd.DataFrame) -> pd.Series:
        return conform(impl(*values(frame, args)), type)

    return Compiled(node, type, nullable, run)


def values(frame: pd.DataFrame, args: Sequence[Compiled]) -> list[object]:
    """The arguments' values over `frame`: Series, except plain scalars for non-null constants.

    At least one value is a Series: when every argument is constant (as happens while folding
    constants), all of them are.
    """
    if all(arg.is_constant for arg in args):
        return [arg.run(frame) for arg in args]
    return [arg.constant if _is_scalar(arg) else arg.run(frame) for arg in args]


def _is_scalar(arg: Compiled) -> bool:
    return arg.is_constant and arg.constant is not None


def resolve(arg: Compiled, type: str) -> Compiled:
    """`arg`, with a bare null given the type `type`."""
    return constant(arg.node, None, type) if arg.type == NULL else arg


def broadcast(value: object, type: str, index: pd.Index) -> pd.Series:
    """A Series holding `value` (None for null) on every row of `index`."""
    if isinstance(value, str):
        size = text_bytes(value)
        problem = oversize(size * len(index), size)
        if problem is not None:
            text = printable(shorten(value))
            raise ExpressionError(f"the text '{text}' on each of {len(index)} rows: {problem}")
    if type == "decimal":
        return _decimal_constant(value, index)
    dtype = _NULLABLE_DTYPES[type] if value is None else _DTYPES.get(type, _NULLABLE_DTYPES[type])
    return pd.Series(value, index=index, dtype=dtype)


def _decimal_constant(value: ExactDecimal | None, index: pd.Index) -> pd.Series:
    """A decimal constant on every row; a null has no precision until it meets a decimal, so it
    has Arrow's null type."""
    array = pa.repeat(pa.scalar(None, pa.null()) if value is None else value.arrow(), len(index))
    return pd.Series(array, index=index, dtype=pd.ArrowDtype(array.type), copy=False)


def as_series(value: object, type: str, index: pd.Index) -> pd.Series:
    """`value` as a Series in the canonical dtype of `type` (a scalar is broadcast)."""
    return conform(value, type) if isinstance(value, pd.Series) else broadcast(value, type, index)


def to_nullable(series: pd.Series) -> pd.Series:
    """`series`, moved from numpy int64 or bool to the pandas dtype that can hold nulls."""
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "ib":
        return series.astype("Int64" if series.dtype.kind == "i" else "boolean")
    return series


def index_of(*items: object) -> pd.Index:
    """The index of the first Series among `items`."""
    return next(item.index for item in items if isinstance(item, pd.Series))


def conform(series: pd.Series, type: str) -> pd.Series:
    """`series` in the canonical dtype for `type` (a no-op when it already is)."""
    dtype = series.dtype
    if type == "integer":
        canonical = dtype == np.int64 or isinstance(dtype, pd.Int64Dtype)
        return series if canonical else series.astype("Int64")
    if type == "float":
        return series if dtype == np.float64 else pd.Series(floats(series), index=series.index)
    if type == "boolean":
        canonical = dtype == np.bool_ or isinstance(dtype, pd.BooleanDtype)
        return series if canonical else series.astype("boolean")
    if type == "string":
        canonical = isinstance(dtype, pd.StringDtype) and dtype == "str"
        return series if canonical else series.astype("str")
    if type == "date":
        return series if dtype == date_dtype() else to_date(series)
    if type == "decimal":
        kind = getattr(dtype, "pyarrow_dtype", None)
        if kind is None or not (pa.types.is_decimal(kind) or pa.types.is_null(kind)):
            raise TypeError(f"expected decimals but got {dtype} values")
        return series
    if type_name_of(dtype) != "datetime":
        raise TypeError(f"expected datetimes but got {dtype} values")
    return series


def to_date(series: pd.Series) -> pd.Series:
    """Dates (`date_dtype()`) from datetimes, dropping the time of day (the local one, if zoned)."""
    if type_name_of(series.dtype) != "datetime":
        return series.astype(date_dtype())
    if getattr(series.dt, "tz", None) is not None:
        series = series.dt.tz_localize(None)
    days = pa.array(series.dt.floor("D")).cast(pa.date32())
    return pd.Series(days, index=series.index, dtype=date_dtype())


def floats(value: object) -> np.ndarray | float:
    """`value` as float64 numbers, nulls as NaN (a numpy array for a Series)."""
    if isinstance(value, pd.Series):
        return value.to_numpy(dtype="float64", na_value=np.nan)
    return float(value)


def null_mask(*items: object) -> np.ndarray | None:
    """Where any Series among `items` is null, or None if none of them holds a null."""
    masks = [
        item.isna().to_numpy()
        for item in items
        if isinstance(item, pd.Series) and _can_hold_null(item.dtype)
    ]
    mask = np.logical_or.reduce(masks) if masks else None
    return mask if mask is not None and mask.any() else None


def _can_hold_null(dtype: object) -> bool:
    return not (isinstance(dtype, np.dtype) and dtype.kind in "iub")


def with_nulls(series: pd.Series, mask: np.ndarray | None) -> pd.Series:
    """`series` with nulls where `mask` is true (converted to a nullable dtype if needed)."""
    return series if mask is None or not mask.any() else to_nullable(series).mask(mask)


def is_true(series: pd.Series) -> np.ndarray:
    """A numpy bool array: true where `series` is true, false where false or null."""
    return series.to_numpy(dtype=bool, na_value=False)
