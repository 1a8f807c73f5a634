"""Converting columns to the public type names (`string`, `integer`, ... `datetime`).

Used wherever a user writes a type: `csv_input.dtypes`, `cast`, `transform`'s `type`. Values
that do not convert become null rather than failing the whole column; integers stay nullable.
"""

from __future__ import annotations

from runtime.errors import OperatorError
from runtime.lazy import pd
from runtime.tables.schema import TypeName, date_dtype, is_decimal_dtype


def cast_series(series: pd.Series, type_name: TypeName) -> pd.Series:
    """`series` converted to `type_name`; unconvertible values become null."""
    if type_name == "string":
        return series.astype("str").where(series.notna())
    if is_decimal_dtype(series.dtype) and type_name in ("integer", "float"):
        # exact to the unit (halves to even, like a float's round); pandas' to_numeric fails
        # on a decimal column holding nulls
        return series.round().astype("Int64") if type_name == "integer" else series.astype(float)
    if type_name == "integer":
        return pd.to_numeric(series, errors="coerce").round().astype("Int64")
    if type_name == "float":
        return pd.to_numeric(series, errors="coerce").astype("float64")
    if type_name == "boolean":
        return _to_boolean(series)
    if type_name == "datetime":
        return pd.to_datetime(series, errors="coerce")
    if type_name == "date":
        return pd.to_datetime(series, errors="coerce").dt.normalize().astype(date_dtype())
    raise OperatorError(f"unknown type '{type_name}'")


_TRUE = {"true", "t", "yes", "y", "1"}
_FALSE = {"false", "f", "no", "n", "0"}


def _to_boolean(series: pd.Series) -> pd.Series:
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.astype("boolean")
    text = series.astype("str").str.strip().str.lower()
    result = pd.Series(pd.NA, index=series.index, dtype="boolean")
    result[text.isin(_TRUE)] = True
    result[text.isin(_FALSE)] = False
    return result
