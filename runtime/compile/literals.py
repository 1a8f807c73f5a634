"""Python source for values: the only way a value from a document (a text, a number, a date,
a list of column names) reaches a script's code. Texts go through `repr()`, so no quote,
newline or backslash in them can end the string they are written in."""

from __future__ import annotations

import datetime
import math
from typing import Any

import numpy as np
from pydantic import BaseModel

from .errors import CompileRefused


def literal(value: Any) -> str:
    """Python source that evaluates to `value`: texts, numbers, booleans, None, dates and
    times, and lists, sets and mappings of them."""
    if isinstance(value, BaseModel):
        raise CompileRefused(f"cannot write {type(value).__name__} as a value")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, set | frozenset):  # in a stable order
        return "{" + ", ".join(sorted(literal(item) for item in value)) + "}" if value else "set()"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, datetime.datetime):  # pandas' Timestamp too
        return f"pd.Timestamp({value.isoformat()!r})"
    if isinstance(value, datetime.date):
        return f"datetime.date({value.year}, {value.month}, {value.day})"
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    raise CompileRefused(f"cannot write the value {value!r} in a script")
