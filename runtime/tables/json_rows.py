"""Table cells as JSON a browser shows faithfully: previews' rows and stored results' pages.

NaN and missing values are null, dates and times ISO text (to the second, as previews have
always shown them), bytes their hexadecimal text (`0x00ff`, the first `MAX_BYTES` of them:
JSON has no bytes and they are rarely UTF-8), and integers that a JavaScript number cannot
hold exactly (past 2**53) decimal text, so that a browser never shows a different number.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math

from runtime.lazy import pd

MAX_BYTES = 64
"""The most bytes of one binary value shown (as hexadecimal text)."""
_EXACT = 2**53


def json_rows(frame: pd.DataFrame) -> list[list]:
    """The rows of `frame` as lists of JSON-safe values."""
    binary = [
        name
        for name in frame.columns
        if frame[name].dtype == object and frame[name].map(_is_bytes).any()
    ]
    if binary:
        frame = frame.assign(**{name: frame[name].map(_bytes_text) for name in binary})
    text = frame.to_json(orient="values", date_format="iso", date_unit="s")
    return [[_exact(value) for value in row] for row in json.loads(text)]


def json_value(value):
    """One value (as DuckDB or pyarrow give it in Python) as a JSON-safe value."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime.datetime):
        return value.replace(microsecond=0, tzinfo=None).isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return _bytes_text(bytes(value))
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, int):
        return _exact(value)
    return value


def _exact(value):
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _EXACT:
        return str(value)
    return value


def _is_bytes(value) -> bool:
    return isinstance(value, bytes | bytearray)


def _bytes_text(value):
    if not _is_bytes(value):
        return value
    shown = "0x" + bytes(value[:MAX_BYTES]).hex()
    return shown + "…" if len(value) > MAX_BYTES else shown
