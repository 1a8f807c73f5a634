"""Arrow tables to pandas frames, with the dtypes every operator can rely on.

One convention for the whole engine, whatever the source: `integer` columns are nullable
`Int64` (an integer column with a gap stays integer, and its type does not depend on whether
this file happens to have a gap), `boolean` is nullable `boolean`, `float` is `float64`,
`string` is pandas' `str`, `date` is Arrow's date32 and `datetime` is `datetime64`.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from runtime.schema import DATE_DTYPE

_INTEGER = pd.Int64Dtype()
_BOOLEAN = pd.BooleanDtype()


def _pandas_dtype(arrow_type: pa.DataType):
    if pa.types.is_integer(arrow_type):
        return _INTEGER
    if pa.types.is_boolean(arrow_type):
        return _BOOLEAN
    if pa.types.is_date(arrow_type):
        return DATE_DTYPE
    return None  # pyarrow's own choice: float64, str, datetime64


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """A pandas frame following the engine's dtype convention."""
    return table.to_pandas(types_mapper=_pandas_dtype)


def column_dtypes(frame: pd.DataFrame) -> list:
    """The dtype of each column, in order.

    Reads pandas' block manager because `DataFrame.dtypes` builds a Series, a large part of a
    cheap operator on a small frame (docs/performance.md); falls back if pandas changes.
    """
    try:
        return [frame._mgr.iget_values(i).dtype for i in range(frame.shape[1])]
    except AttributeError:
        return list(frame.dtypes)
