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
"""

from __future__ import annotations

from zoneinfo import available_timezones

from runtime.errors import NotLowerable
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


def parquet_columns(source: str, name: str, kind: pa.DataType) -> list[tuple[str, Column]]:
    """The (expression AS name, column) pairs that column `name` of file `source` becomes."""
    return _lowered(source, name, quoted(name), kind)


def _lowered(source: str, name: str, value: str, kind: pa.DataType) -> list[tuple[str, Column]]:
    if pa.types.is_struct(kind):  # pandas flattens them: `parent.field`
        return [
            pair
            for field in kind
            for pair in _lowered(
                source, f"{name}.{field.name}", f"{value}.{quoted(field.name)}", field.type
            )
        ]
    expression, type_name = _expression(source, name, value, kind)
    return [(f"{expression} AS {quoted(name)}", Column(name, type_name))]


def _expression(source: str, name: str, value: str, kind: pa.DataType) -> tuple[str, str]:
    """The SQL of one column's values and its public type."""
    if pa.types.is_dictionary(kind):  # DuckDB reads the values, as pandas does
        return _expression(source, name, value, kind.value_type)
    if pa.types.is_integer(kind) and kind != pa.uint64():
        return value, "integer"
    if is_exact_decimal(kind):  # DuckDB's DECIMAL(p, s) is Arrow's decimal128(p, s)
        return value, "decimal"
    if pa.types.is_floating(kind):  # NaN, which pandas holds as null (other engines write it)
        return finite_column(Sql(f"CAST({value} AS DOUBLE)", (), "float")).text, "float"
    if pa.types.is_decimal(kind):
        return f"CAST({value} AS DOUBLE)", "float"
    if pa.types.is_timestamp(kind):
        return _timestamp(source, name, value, kind), "datetime"
    if pa.types.is_time(kind) and kind.unit in _TIMES:
        return f"strftime(DATE '1970-01-01' + {value}, '{_TIMES[kind.unit]}')", "string"
    if pa.types.is_duration(kind) or pa.types.is_interval(kind):  # a Parquet INTERVAL's text
        return f"CAST({value} AS VARCHAR)", "string"
    if _nested(kind):
        if not _json_alike(kind):
            raise NotLowerable(
                f"column '{name}' of '{source}' is {kind}, whose JSON text pandas writes its "
                "own way (floats, dates and bytes in lists and maps)"
            )
        return f"CAST(to_json({value}) AS VARCHAR)", "string"
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return f"COALESCE(TRY(decode({value})), '0x' || lower(hex({value})))", "string"
    for check, type_name in _AS_IS:
        if getattr(pa.types, check)(kind):
            return value, type_name
    raise NotLowerable(f"column '{name}' of '{source}' is {kind}, {_why(kind)}")


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


def _timestamp(source: str, name: str, value: str, kind: pa.TimestampType) -> str:
    if kind.tz is None:
        return f"CAST({value} AS {TIMESTAMPS[kind.unit]})"
    if kind.tz not in available_timezones():
        raise NotLowerable(
            f"column '{name}' of '{source}' holds datetimes in the zone {kind.tz}, which is no "
            "zone name DuckDB knows"
        )
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
