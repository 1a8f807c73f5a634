"""Each column of a Parquet file as a DuckDB SELECT expression giving the values, type and
column names that `parquet_input` gives (runtime/operators/file_common.py `conform_table`, then
runtime/tables/frames.py `to_pandas`).

The Arrow type is the one pyarrow reads from the file's footer (with the Arrow schema a writer
stored there: string_view, dictionaries, date64, durations). DuckDB reads the same data its
own way; where the two differ, the expression converts to the pandas path's result:

    integers, booleans, dates (date32, date64), strings (also large, view, dictionary): as read
    decimals of up to 38 digits: DECIMAL(p, s), Arrow's decimal128(p, s); wider ones: DOUBLE
    floats: DOUBLE, NaN as null (pandas holds NaN as null: a sum skips it, a count
    leaves it out); timestamps without a zone: TIMESTAMP in the file's unit
    timestamps with a zone: TIMESTAMPTZ (microseconds; seconds and milliseconds too, which
    `parquet_input` also reads in microseconds) or TIMESTAMPTZ_NS, the same instants; the
    segment's session computes and gives them in that zone (its `TimeZone`, `zones_of`), as
    pandas keeps it
    times of day: text, as Arrow writes them (`12:34:56.500000` for microseconds)
    durations: the number of the unit's ticks, as text (DuckDB reads them as BIGINT)
    intervals (Parquet's INTERVAL, as DuckDB writes them; scans.py types them so): DuckDB's
    text, `1 year 2 months 3 days 04:05:06.789` (parquet_files.py `intervals_as_text`)
    bytes: the UTF-8 text they hold, or `0x` and their hexadecimal digits when they hold none
    structs: one column per field, named `parent.field`, each lowered the same way
    lists and maps: their compact JSON text, DuckDB's `to_json` (file_common.py `json_text`)

What cannot match is `NotLowerable`, naming the column and why: timestamps in a zone that is
an offset (`+01:00`) rather than a name, times in nanoseconds, lists and maps holding floats,
decimals, dates, times or bytes (Python and DuckDB write those in JSON differently), other
fixed-size binary (a UUID, say), and unsigned 64-bit integers.

A file's columns are worked out once from its footer (`footer_column`) into plain values, which
the scan keeps on disk by the file's identity (runtime/io/schema_reads.py): a later process
plans a scan of the same file without importing pyarrow (0.5 CPU-s, a third of a small query's
run over Parquet).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from zoneinfo import available_timezones

from runtime.errors import NotLowerable
from runtime.expressions import sql_parts
from runtime.expressions.sql_parts import Sql, finite_column
from runtime.expressions.sql_parts import identifier as quoted
from runtime.lazy import pa
from runtime.tables.frames import is_exact_decimal
from runtime.tables.schema import Column

TIMESTAMPS = {"s": "TIMESTAMP_S", "ms": "TIMESTAMP_MS", "us": "TIMESTAMP", "ns": "TIMESTAMP_NS"}
_ZONED = {"s": "TIMESTAMPTZ", "ms": "TIMESTAMPTZ", "us": "TIMESTAMPTZ", "ns": "TIMESTAMPTZ_NS"}
_TIMES = {"s": "%H:%M:%S", "ms": "%H:%M:%S.%g", "us": "%H:%M:%S.%f"}
"""strftime formats writing a time of day as Arrow's cast to text does, by unit."""
_AS_IS = (
    ("is_boolean", "boolean"),
    ("is_string", "string"),
    ("is_large_string", "string"),
    ("is_string_view", "string"),
    ("is_date", "date"),  # date64 too: Parquet stores either as days
)
"""`pyarrow.types` checks (by name: pyarrow loads when a file is read) and the public type."""


@dataclass(frozen=True)
class FooterColumn:
    """A top-level column of a Parquet file as its footer gives it and as it lowers."""

    name: str
    type: str
    """Arrow's text of its type: the files of one scan read alike when these agree."""
    nullable: bool
    lowered: tuple[tuple[str, str, str], ...]
    """(expression AS name, name, public type) of each column it becomes (a struct's fields)."""
    refused: tuple[str, str] | None
    """Where it cannot lower: the column (or field) and why."""
    zones: tuple[str, ...]
    """The time zones of the datetimes it holds."""

    def columns(self, source: str) -> list[tuple[str, Column]]:
        """The (expression AS name, column) pairs it becomes in a scan of `source`."""
        if self.refused is not None:
            name, why = self.refused
            raise NotLowerable(f"column '{name}' of '{source}' {why}")
        return [(sql, Column(name, type_name)) for sql, name, type_name in self.lowered]

    def as_json(self) -> list:
        return [self.name, self.type, self.nullable, self.lowered, self.refused, self.zones]

    @classmethod
    def from_json(cls, data: list) -> FooterColumn:
        name, kind, nullable, lowered, refused, zones = data
        refused = None if refused is None else tuple(refused)
        return cls(name, kind, nullable, tuple(map(tuple, lowered)), refused, tuple(zones))


@cache
def lowering_digest() -> str:
    """A digest of the code that lowers a footer's columns (this module and the SQL parts it
    writes with), in the key of the footers kept on disk: a version that lowers columns
    otherwise reads each file anew rather than reusing the SQL an older one kept."""
    sources = (Path(__file__), Path(sql_parts.__file__))
    return hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:16]


class _Refused(Exception):
    def __init__(self, name: str, why: str):
        super().__init__(name, why)
        self.name, self.why = name, why


def footer_column(field: pa.Field) -> FooterColumn:
    """The column `field` of a file's Arrow schema, worked out."""
    try:
        pairs = _lowered(field.name, quoted(field.name), field.type)
        lowered, refused = tuple((sql, column.name, column.type) for sql, column in pairs), None
    except _Refused as error:
        lowered, refused = (), (error.name, error.why)
    zones = tuple(sorted(zones_of(field.type)))
    return FooterColumn(field.name, str(field.type), field.nullable, lowered, refused, zones)


def _lowered(name: str, value: str, kind: pa.DataType) -> list[tuple[str, Column]]:
    if pa.types.is_struct(kind):  # pandas flattens them: `parent.field`
        return [
            pair
            for field in kind
            for pair in _lowered(
                f"{name}.{field.name}", f"{value}.{quoted(field.name)}", field.type
            )
        ]
    expression, type_name = _expression(name, value, kind)
    return [(f"{expression} AS {quoted(name)}", Column(name, type_name))]


def _expression(name: str, value: str, kind: pa.DataType) -> tuple[str, str]:
    """The SQL of one column's values and its public type."""
    if pa.types.is_dictionary(kind):  # DuckDB reads the values, as pandas does
        return _expression(name, value, kind.value_type)
    if pa.types.is_integer(kind) and kind != pa.uint64():
        return value, "integer"
    if is_exact_decimal(kind):  # DuckDB's DECIMAL(p, s) is Arrow's decimal128(p, s)
        return value, "decimal"
    if pa.types.is_floating(kind):  # NaN, which pandas holds as null (other engines write it)
        return finite_column(Sql(f"CAST({value} AS DOUBLE)", (), "float")).text, "float"
    if pa.types.is_decimal(kind):
        return f"CAST({value} AS DOUBLE)", "float"
    if pa.types.is_timestamp(kind):
        return _timestamp(name, value, kind), "datetime"
    if pa.types.is_time(kind) and kind.unit in _TIMES:
        return f"strftime(DATE '1970-01-01' + {value}, '{_TIMES[kind.unit]}')", "string"
    if pa.types.is_duration(kind) or pa.types.is_interval(kind):  # a Parquet INTERVAL's text
        return f"CAST({value} AS VARCHAR)", "string"
    if _nested(kind):
        if not _json_alike(kind):
            why = "whose JSON text pandas writes its own way (floats, dates and bytes in lists"
            raise _Refused(name, f"is {kind}, {why} and maps)")
        return f"CAST(to_json({value}) AS VARCHAR)", "string"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return f"COALESCE(TRY(decode({value})), '0x' || lower(hex({value})))", "string"
    for check, type_name in _AS_IS:
        if getattr(pa.types, check)(kind):
            return value, type_name
    raise _Refused(name, f"is {kind}, {_why(kind)}")


def _nested(kind: pa.DataType) -> bool:
    return any(
        check(kind)
        for check in (
            pa.types.is_list,
            pa.types.is_large_list,
            pa.types.is_fixed_size_list,
            pa.types.is_map,
            pa.types.is_struct,
        )
    )


def _json_alike(kind: pa.DataType) -> bool:
    """Whether DuckDB's `to_json` writes values of `kind` as `json_text` does: lists, maps and
    structs of integers, text, booleans and nulls (maps keyed by text or integers)."""
    if pa.types.is_map(kind):
        keys = kind.key_type
        keyed = pa.types.is_integer(keys) or pa.types.is_string(keys)
        return keyed and _json_alike(kind.item_type)
    if _nested(kind) and not pa.types.is_struct(kind):
        return _json_alike(kind.value_type)
    if pa.types.is_struct(kind):
        return all(_json_alike(field.type) for field in kind)
    return any(
        check(kind)
        for check in (
            pa.types.is_integer,
            pa.types.is_boolean,
            pa.types.is_null,
            pa.types.is_string,
            pa.types.is_large_string,
        )
    )


def _timestamp(name: str, value: str, kind: pa.TimestampType) -> str:
    if kind.tz is None:
        return f"CAST({value} AS {TIMESTAMPS[kind.unit]})"
    if kind.tz not in available_timezones():
        why = "which is no zone name DuckDB knows"
        raise _Refused(name, f"holds datetimes in the zone {kind.tz}, {why}")
    return f"CAST({value} AS {_ZONED[kind.unit]})"


def zones_of(kind: pa.DataType) -> set[str]:
    """The time zones of the datetimes a column of `kind` holds (in a struct's fields too)."""
    if pa.types.is_timestamp(kind):
        return set() if kind.tz is None else {kind.tz}
    if pa.types.is_struct(kind):
        return {zone for field in kind for zone in zones_of(field.type)}
    return set()


def _why(kind: pa.DataType) -> str:
    """Why a column of this type is read on pandas, in a user's words."""
    if pa.types.is_fixed_size_binary(kind):
        return "which DuckDB may read as another type (a UUID)"
    return "kept as pandas keeps it"
