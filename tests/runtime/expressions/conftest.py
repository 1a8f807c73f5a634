"""The frame the expression tests evaluate over, and the two checks they share:
`values(text, frame)` and `fails(message)`.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import pytest

from runtime.expressions import ExpressionError, evaluate
from runtime.tables.schema import date_dtype


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["Ann", None, "cid", " Dan "],
            "age": [17, 30, 45, 18],
            "country": ["FR", "DE", None, "US"],
            "score": [1.5, np.nan, 3.0, -2.0],
            "visits": pd.array([1, None, 0, 4], dtype="Int64"),
            "member": pd.array([True, None, False, True], dtype="boolean"),
            "joined": pd.array(
                [dt.date(2024, 1, 31), None, dt.date(2020, 2, 29), dt.date(1999, 12, 31)],
                dtype=date_dtype(),
            ),
            "seen": pd.to_datetime(
                ["2024-01-31 23:59", None, "2020-02-29 00:00", "1999-12-31 12:00"]
            ),
            "unit price": [2.0, 4.0, 8.0, 16.0],
        },
        index=["a", "b", "c", "d"],
    )


def values(text: str, frame: pd.DataFrame) -> list:
    """The evaluated values as a plain list, nulls as None."""
    return [None if pd.isna(value) else value for value in evaluate(text, frame)]


def fails(message: str):
    """Expect an ExpressionError whose str() is exactly `message`."""
    return pytest.raises(ExpressionError, match=f"^{re.escape(message)}$")
