"""Converting a decimal column (as Parquet and DuckDB give money) to the written types."""

from __future__ import annotations

import decimal

import pandas as pd
import pyarrow as pa

from runtime.tables.casting import cast_series

PRICES = pd.Series(
    pd.array(
        [decimal.Decimal(text) if text else None for text in ("1.50", "", "-2.05", "2.50")],
        dtype=pd.ArrowDtype(pa.decimal128(15, 2)),
    )
)


def test_a_decimal_column_with_nulls_becomes_integers_rounding_halves_to_even():
    assert cast_series(PRICES, "integer").tolist() == [2, pd.NA, -2, 2]
    assert str(cast_series(PRICES, "integer").dtype) == "Int64"


def test_a_decimal_column_with_nulls_becomes_floats_and_text():
    assert cast_series(PRICES, "float").tolist()[::2] == [1.5, -2.05]
    assert cast_series(PRICES, "string").tolist()[::2] == ["1.50", "-2.05"]
