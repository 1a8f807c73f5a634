"""Decimal constants in plain Python: a literal's exact value in DuckDB's DECIMAL type.

Type-checking `0.06 - 0.01` or `1 - l_discount` settles exact values, with their precision
and scale, before any data is read, and a plan for DuckDB binds them as parameters of that
type. Only pandas computes with pyarrow's decimal128 scalars (`arrow`): a DuckDB run over
Parquet no longer imports pyarrow to check its expressions (a third of a small query's CPU).
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from runtime.lazy import pa


class ExactDecimal(NamedTuple):
    """A decimal constant: its value (None for null) in DECIMAL(precision, scale), written with
    exactly `scale` digits after the point, as pyarrow gives a decimal128 value back."""

    value: Decimal | None
    precision: int
    scale: int

    def arrow(self) -> pa.Scalar:
        """pyarrow's decimal128 scalar of it, built from its digits: pyarrow's conversion of
        Python objects imports pandas (to recognise its types)."""
        kind = pa.decimal128(self.precision, self.scale)
        if self.value is None:
            return pa.nulls(1, kind)[0]
        sign, digits, _ = self.value.as_tuple()
        unscaled = int("".join(map(str, digits)))
        data = (-unscaled if sign else unscaled).to_bytes(16, "little", signed=True)
        return pa.Array.from_buffers(kind, 1, [None, pa.py_buffer(data)])[0]


class DecimalRangeError(ValueError):
    """A value that DECIMAL(precision, scale) cannot hold exactly."""


def exact_decimal(value: Decimal | None, precision: int, scale: int) -> ExactDecimal:
    """`value` in DECIMAL(precision, scale); DecimalRangeError where digits would be lost below
    the scale or the value has more digits than the precision (where `pa.scalar` refuses it)."""
    if value is None:
        return ExactDecimal(None, precision, scale)
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise DecimalRangeError(f"{value} is not a decimal number")
    unscaled, shift = int("".join(map(str, digits)) or "0"), exponent + scale
    if shift < 0 and unscaled % 10**-shift:
        raise DecimalRangeError(f"{value} has digits below the scale {scale}")
    unscaled = unscaled * 10**shift if shift >= 0 else unscaled // 10**-shift
    if unscaled >= 10**precision:
        raise DecimalRangeError(f"Decimal value {value} does not fit in precision {precision}")
    negative = "-" if sign and unscaled else ""
    return ExactDecimal(Decimal(f"{negative}{unscaled}e-{scale}"), precision, scale)
