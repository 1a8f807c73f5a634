"""A CSV file's column types as pyarrow infers them, read without pyarrow where that is sure.

Planning a run reads each CSV input's types (runtime/operators/csv_files.py, runtime/backends/
duckdb/scans.py). pyarrow's inference is the reference, since pyarrow reads the rows on pandas,
but importing it is most of a DuckDB run's start-up over a new file (0.15 CPU-s and 58 MiB of
the seed ETL's peak). Most files hold plain integers, decimal numbers, ISO dates and words,
whose types are plain to see, so this module reads the first block as pyarrow's streaming
reader would and types those. It answers None, and pyarrow is asked, as soon as anything is
less plain: text after a closing quote, a quoted field across lines, a byte-order mark, a lone
carriage return, a row of the wrong width, a value pyarrow might read as a boolean, time,
timestamp, hexadecimal, infinity or NaN, a column of nothing but nulls.
tests/runtime/io/test_csv_types.py holds it to pyarrow's answers.
"""

from __future__ import annotations

import csv
import datetime
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

NULL_MARKERS = (
    *("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN"),
    *("N/A", "NA", "NULL", "NaN", "n/a", "nan", "null"),
)
"""pyarrow's default null strings (`ConvertOptions().null_values`), which `csv_input` uses:
written out so that neither this module nor rendering a scan needs pyarrow (a test holds them
equal)."""
_NULLS = frozenset(NULL_MARKERS)

_INTEGER = r"-?[0-9]+"
_REAL = r"-?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+"
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"


def _lines_of(value: str) -> re.Pattern:
    """Lines each of which is a `value`: a test of many values at once."""
    return re.compile(f"(?:{value})(?:\n(?:{value}))*")


_BLANK_LINES = re.compile(r"\n\n+")
_INTEGERS = _lines_of(_INTEGER)
_REALS = _lines_of(f"{_INTEGER}|{_REAL}")
_DATES = _lines_of(_DATE)
_MAYBE_NOT_TEXT = re.compile(
    r"[-+]?(?:true|false|inf|infinity|nan)"
    r"|[-+]?(?:0x[0-9a-f]*|[0-9]*\.?[0-9]*(?:e[-+]?[0-9]*)?)"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}.*"
    r"|[0-9]{2}:[0-9]{2}.*",
    re.IGNORECASE,
)
"""All that pyarrow may read as something other than text, once its spaces are trimmed (and
more): words it reads as booleans or floats, numbers in any notation, anything that starts
as a date or a time of day. A phone number or `1-URGENT` is text."""
_INT64 = range(-(2**63), 2**63)


@dataclass(frozen=True)
class CsvColumn:
    """A column's type as pyarrow names it, and the first row of the block holding a null."""

    name: str
    kind: str
    first_null: int | None


@dataclass(frozen=True)
class CsvBlock:
    """What the first block of a file says: its columns, its rows, whether it is all of it."""

    columns: tuple[CsvColumn, ...]
    rows: int
    whole_file: bool


def plain_csv_types(path: Path, delimiter: str, block_size: int) -> CsvBlock | None:
    """The columns of a UTF-8 file with a header row, read from its first `block_size` bytes
    as pyarrow's `open_csv` reads its first batch; None where that is not sure."""
    if delimiter in '"\r\n':
        return None
    try:
        with open(path, "rb") as file:
            data = file.read(block_size)
        whole_file = os.stat(path).st_size <= block_size
    except OSError:
        return None  # pyarrow's read says what is wrong
    text = _complete_text(data, whole_file)
    table = None if text is None or text.startswith("\n") else _block_columns(text, delimiter)
    if table is None:
        return None
    names, values = table
    if "" in names:
        return None
    columns = []
    for name, column in zip(names, values, strict=True):
        typed = _typed_column(name, column)
        if typed is None:
            return None
        columns.append(typed)
    return CsvBlock(tuple(columns), len(values[0]), whole_file)


def _block_columns(text: str, delimiter: str) -> tuple[list[str], list[list[str]]] | None:
    """The header's names and each column's values, blank lines left out as pyarrow leaves
    them; None when a row is not as wide as the header, or when pyarrow may read its quotes
    otherwise. Without quotes, a block of 100,000 short rows is split in a few calls, not a
    call per row (which cost 0.16 CPU-s, more than importing pyarrow)."""
    text = _BLANK_LINES.sub("\n", text).strip("\n")
    header, _, body = text.partition("\n")
    if not body:
        return None
    if '"' in text:
        rows = _quoted_rows(text.split("\n"), delimiter)
        if rows is None or any(len(row) != len(rows[0]) for row in rows):
            return None
        return rows[0], [list(column) for column in zip(*rows[1:], strict=True)]
    names = header.split(delimiter)
    if not _rows_of_width(delimiter, len(names)).fullmatch(body):
        return None
    flat = body.replace("\n", delimiter).split(delimiter)
    return names, [flat[index :: len(names)] for index in range(len(names))]


@functools.cache
def _rows_of_width(delimiter: str, width: int) -> re.Pattern:
    """Lines of `width` fields apart by `delimiter` (without quotes)."""
    field = f"[^{re.escape(delimiter)}\n]*"
    return _lines_of(field + f"(?:{re.escape(delimiter)}{field})" * (width - 1))


def _quoted_rows(lines: list[str], delimiter: str) -> list[list[str]] | None:
    """Each line's fields, quotes read as pyarrow reads them (a doubled quote inside a quoted
    field is one); None for what pyarrow may read otherwise: text after a closing quote, a
    quoted field across lines."""
    reader = csv.reader(lines, delimiter=delimiter, quotechar='"', doublequote=True, strict=True)
    try:
        rows = list(reader)
    except csv.Error:
        return None
    return rows if len(rows) == len(lines) else None


def _complete_text(data: bytes, whole_file: bool) -> str | None:
    """The text pyarrow's first batch parses (with the header): up to the last line end of
    the block, or all of a file that fits in it; line ends as `\n`."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    if not whole_file:
        end = data.rfind(b"\n")
        if end < 0 or b"\r" in data[end + 1 :]:  # pyarrow also ends a line at a lone \r
            return None
        data = data[: end + 1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text.replace("\r\n", ""):
        return None
    return text.replace("\r\n", "\n")


def _typed_column(name: str, values: list[str]) -> CsvColumn | None:
    """The kind pyarrow gives the column (None when unsure): the narrowest that reads every
    value but the nulls, or text as soon as one value is surely text. Each test runs once
    over the distinct values joined by line ends (a block holds some 20,000 rows)."""
    distinct = set(values)
    nulls = distinct & _NULLS
    first_null = min(values.index(marker) for marker in nulls) if nulls else None
    distinct -= nulls
    if not distinct:
        return None  # no value: pyarrow's null type
    joined = "\n".join(distinct)
    if _INTEGERS.fullmatch(joined):
        longest = max(distinct, key=len)
        fits = len(longest) < 19 or all(int(value) in _INT64 for value in distinct)
        return CsvColumn(name, "int64", first_null) if fits else None
    if _REALS.fullmatch(joined):
        return CsvColumn(name, "double", first_null)
    if _DATES.fullmatch(joined) and all(map(_is_date, distinct)):
        return CsvColumn(name, "date32[day]", first_null)
    if any(not _MAYBE_NOT_TEXT.fullmatch(value.strip()) for value in distinct):
        return CsvColumn(name, "string", first_null)
    return None


def _is_date(value: str) -> bool:
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True
