"""Arrow tables to pandas frames, with the dtypes every operator can rely on.

One convention for the whole engine, whatever the source: `integer` columns are nullable
`Int64` (an integer column with a gap stays integer, and its type does not depend on whether
this file happens to have a gap), `boolean` is nullable `boolean`, `float` is `float64`,
`string` is pandas' `str`, `date` is Arrow's date32, `datetime` is `datetime64` and `decimal`
is Arrow's decimal128 of the source's precision and scale (`pd.ArrowDtype`), whose sums and
comparisons pandas computes exactly in Arrow, as DuckDB does with its DECIMAL.
"""

from __future__ import annotations

from runtime.lazy import np, pa, pd
from runtime.tables.schema import Column, ColumnType, Schema, date_dtype

MAX_DECIMAL_DIGITS = 38
"""The most digits a `decimal` holds (decimal128's, DuckDB's DECIMAL's); wider ones are floats."""


def _pandas_dtype(arrow_type: pa.DataType):
    if pa.types.is_integer(arrow_type):
        return pd.Int64Dtype()
    if pa.types.is_boolean(arrow_type):
        return pd.BooleanDtype()
    if pa.types.is_date(arrow_type):
        return date_dtype()
    if is_exact_decimal(arrow_type):
        return pd.ArrowDtype(pa.decimal128(arrow_type.precision, arrow_type.scale))
    return None  # pyarrow's own choice: float64, str, datetime64


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """A pandas frame following the engine's dtype convention."""
    return table.to_pandas(types_mapper=_pandas_dtype)


def restored(table: pa.Table) -> pd.DataFrame:
    """A frame pandas wrote (with its metadata) in the dtypes it had; pandas' metadata alone
    would make a decimal column one of Python `Decimal` objects."""
    return table.to_pandas(types_mapper=_decimal_dtype)


def _decimal_dtype(arrow_type: pa.DataType):
    return _pandas_dtype(arrow_type) if is_exact_decimal(arrow_type) else None


def table_schema(table: pa.Table) -> Schema | None:
    """`schema_of(to_pandas(table))` read off the Arrow table, without pandas (None when a
    column's type is one whose conversion only pandas knows).

    Schema inference of an input that a DuckDB segment will read needs nothing else, so a run
    on DuckDB does not pay for importing pandas.
    """
    columns = []
    for name, column in zip(table.column_names, table.columns, strict=True):
        type_name = public_type(column.type)
        if type_name is None:
            return None
        missing = column.null_count > 0 or (type_name == "float" and _holds_nan(column))
        columns.append(Column(name, type_name, bool(missing)))
    return Schema(tuple(columns))


def _holds_nan(column: pa.ChunkedArray) -> bool:
    """Whether a float column without nulls holds a NaN, read off its data buffers: numpy is
    loaded with pyarrow, while `pc.is_nan` and even `to_numpy` import pyarrow.compute or pandas,
    which a run on DuckDB otherwise never needs."""
    dtype = np.dtype(f"float{column.type.bit_width}")
    return any(
        np.isnan(
            np.frombuffer(chunk.buffers()[1], dtype, len(chunk), chunk.offset * dtype.itemsize)
        ).any()
        for chunk in column.chunks
        if len(chunk)
    )


def is_exact_decimal(arrow_type: pa.DataType) -> bool:
    """Whether `arrow_type` is a decimal a `decimal` column holds (at most 38 digits)."""
    return pa.types.is_decimal(arrow_type) and arrow_type.precision <= MAX_DECIMAL_DIGITS


def public_type(arrow_type: pa.DataType) -> ColumnType | None:
    """The public type of a column `to_pandas` converts from `arrow_type` (None: pandas decides)."""
    if pa.types.is_integer(arrow_type):
        return "integer"
    if pa.types.is_floating(arrow_type):
        return "float"
    if pa.types.is_boolean(arrow_type):
        return "boolean"
    if is_exact_decimal(arrow_type):
        return "decimal"
    if any(
        check(arrow_type)
        for check in (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    ):
        return "string"
    if pa.types.is_null(arrow_type):  # a column of no values, as pandas names objects
        return "string"
    if pa.types.is_date32(arrow_type):
        return "date"
    if pa.types.is_timestamp(arrow_type):
        return "datetime"
    return None


def column_dtypes(frame: pd.DataFrame) -> list:
    """The dtype of each column, in order.

    Reads pandas' block manager because `DataFrame.dtypes` builds a Series, a large part of a
    cheap operator on a small frame (docs/performance.md); falls back if pandas changes.
    """
    try:
        return [frame._mgr.iget_values(i).dtype for i in range(frame.shape[1])]
    except AttributeError:
        return list(frame.dtypes)
