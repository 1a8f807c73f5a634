"""`json_input` and `json_output`: JSON files under the data root, either one array of objects
or JSON Lines (one object per line).

JSON has no date type, so dates and datetimes are written as ISO 8601 text (`2024-01-31`,
`2024-01-31T10:00:00`, UTC with a `Z` when the datetime has a time zone), and a text column
whose every value is such a date (or datetime) is read back as a date (or datetime) column.
Nested objects become one column per field (`address.city`), lists their JSON text.
A folder's files are those ending in `JSON_ENDINGS`, whether `lines` is on or off.
"""

from __future__ import annotations

import json
import re
from itertools import islice
from pathlib import Path
from typing import Annotated

import pyarrow as pa
from pyarrow import json as pa_json
from pydantic import Field

from runtime.document.fields import DataPath, FileEndings
from runtime.errors import OperatorError
from runtime.io.incremental import IncrementalField
from runtime.lazy import np, pc, pd
from runtime.operators.context import NodeContext
from runtime.operators.contract import OperatorParams
from runtime.operators.file_common import (
    FileInput,
    FileNameColumn,
    FileOutput,
    FileOutputParams,
    OutputPath,
    arrow_table,
    conform_table,
    empty_table,
    pruned_table,
    read_batches,
)
from runtime.tables import spilled as spilling
from runtime.tables.spilled import SpilledRows, SpillWriter

STREAM_ABOVE_BYTES = 256 * 2**20
"""Larger JSON Lines files are read block by block, with progress and cancellation checks."""
BLOCK_BYTES = 2**20
"""Bytes parsed at a time (a longer line is read more slowly, without Arrow)."""
JSON_ENDINGS = (".json", ".jsonl", ".ndjson")
"""The files of a folder that `json_input` reads."""

_ISO_DATE = r"\d{4}-\d{2}-\d{2}"
_ISO_TIME = r"[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?"
_ISO_TYPES = (
    (f"^{_ISO_DATE}$", pa.date32()),
    (f"^{_ISO_DATE}{_ISO_TIME}$", pa.timestamp("us")),
    (f"^{_ISO_DATE}{_ISO_TIME}(Z|[+-]\\d{{2}}:?\\d{{2}})$", pa.timestamp("us", "UTC")),
)
_LINE_BREAKS = re.compile(rb"\s*\n\s*")


class JsonInputParams(OperatorParams):
    path: Annotated[DataPath, FileEndings(JSON_ENDINGS)] = Field(
        title="Path",
        description="JSON file, folder of them (.json, .jsonl, .ndjson) or pattern such as "
        "'events/*.jsonl', relative to the data root.",
    )
    lines: bool = Field(
        False,
        title="JSON Lines",
        description="The file holds one object per line (JSON Lines), not one array of objects.",
    )
    file_name_column: FileNameColumn = None
    incremental: IncrementalField = None


class JsonInput(FileInput):
    name = "json_input"
    title = "JSON file"
    description = (
        "Read a JSON file (an array of objects, or JSON Lines), or a folder or pattern of "
        "them, from the data root."
    )
    Params = JsonInputParams

    def spills(self, params):
        return params.lines and params.file_name_column is None and params.incremental is None

    def spill_file(self, ctx, file):
        if not ctx.params.lines:
            return None
        return spill_json_lines(ctx, file.location, ctx.columns, ctx.spill_path)

    def read_file(self, ctx, file, row_limit):
        params = ctx.params
        return read_json_file(ctx, file.location, file.name, params.lines, row_limit, ctx.columns)


def read_json_file(
    ctx: NodeContext,
    path: Path,
    source: str,
    lines: bool,
    row_limit: int | None,
    columns: set[str] | None = None,
) -> pa.Table:
    """The objects of a JSON file (an array, or one per line when `lines`) as a table, of
    the `columns` anything reads (None: all): the others are parsed, but never typed."""
    if path.stat().st_size == 0:
        return empty_table(pa.schema([]))
    if lines:
        table = _read_lines(ctx, path, source, row_limit)
    else:
        table = _read_array(ctx, path, source, row_limit)
    return _parse_iso_text(conform_table(pruned_table(table, columns)))


def _read_lines(ctx: NodeContext, path: Path, source: str, row_limit: int | None) -> pa.Table:
    """JSON Lines through Arrow's parser; a column mixing kinds of values is read as text."""
    read = pa_json.ReadOptions(block_size=BLOCK_BYTES)
    try:
        guessed, parse = _parse_options(path, read)
        if row_limit is None and path.stat().st_size <= STREAM_ABOVE_BYTES:
            table = pa_json.read_json(path, read_options=read, parse_options=parse)
            ctx.progress(table.num_rows)
        else:
            with pa_json.open_json(path, read_options=read, parse_options=parse) as reader:
                table = read_batches(ctx, reader, reader.schema, row_limit)
    except pa.ArrowInvalid as error:
        problem = _first_bad_line(path)
        if problem:
            raise OperatorError(f"cannot read '{source}' as JSON Lines: {problem}") from error
        return _read_lines_as_objects(path, source, row_limit)  # mixed kinds, or a long line
    return _in_file_order(table, guessed.names)


def _parse_options(path: Path, read: pa_json.ReadOptions) -> tuple[pa.Schema, pa_json.ParseOptions]:
    """The schema Arrow guesses from the file's first block, and options that parse the file
    by it, datetimes kept as text (`_parse_iso_text` decides on the whole column)."""
    with pa_json.open_json(path, read_options=read) as reader:
        guessed = reader.schema
    return guessed, pa_json.ParseOptions(
        explicit_schema=_timestamps_as_text(guessed), unexpected_field_behavior="infer"
    )


def spill_json_lines(
    ctx: NodeContext, path: Path, columns: set[str] | None, spill_path: Path
) -> SpilledRows | None:
    """The objects of a JSON Lines file written to `spill_path` block by block, typed as
    `read_json_file` types them, ISO text columns included (a second pass over the spill file
    casts those: only the whole column says whether one is a date). None, with nothing left
    behind, where only a whole read gives those types (a column changing kind after the first
    block, a line Arrow cannot parse, no objects at all) or where the file is small
    (`SPILL_FROM_BYTES`): the caller then reads it whole."""
    if path.stat().st_size < max(1, spilling.SPILL_FROM_BYTES):
        return None
    writer, kinds = SpillWriter(spill_path), _IsoKinds()
    read = pa_json.ReadOptions(block_size=BLOCK_BYTES)
    try:
        guessed, parse = _parse_options(path, read)
        rows = 0
        with pa_json.open_json(path, read_options=read, parse_options=parse) as reader:
            for batch in reader:
                ctx.check_cancelled()
                table = _in_file_order(pa.Table.from_batches([batch]), guessed.names)
                table = conform_table(pruned_table(table, columns))
                kinds.see(table)
                writer.write(table)
                rows += batch.num_rows
                ctx.progress(rows)
        if writer.spilled is None:
            writer.discard()
            return None
        spilled = writer.close()
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        writer.discard()
        return None
    except BaseException:
        writer.discard()
        raise
    casts = kinds.casts()
    return _cast_spilled(spilled, casts) if casts else spilled


def _cast_spilled(spilled: SpilledRows, casts: dict[str, pa.DataType]) -> SpilledRows:
    """`spilled` rewritten batch by batch with the columns `casts` names cast to its types."""

    typed = spilled.path.with_name(spilled.path.name + ".typed")
    writer = SpillWriter(typed)
    try:
        for table in spilled.tables():
            table = table.replace_schema_metadata(None)
            writer.write(
                pa.table(
                    [
                        column.cast(casts[name]) if name in casts else column
                        for name, column in zip(table.column_names, table.columns, strict=True)
                    ],
                    names=table.column_names,
                )
            )
        result = writer.close()
    except BaseException:
        writer.discard()
        raise
    finally:
        spilled.path.unlink(missing_ok=True)
    result.path = typed.replace(spilled.path)
    result.batches = spilled.batches  # as read from the source
    return result


class _IsoKinds:
    """What `_parse_iso_text` makes of each column over a whole file, learned a block at a
    time: a text column takes the kind of its first value when every value is ISO text of
    that kind that casts to it."""

    def __init__(self):
        self._kinds: dict[str, tuple[str, pa.DataType] | None] = {}
        """Each column's kind so far, once it has a value (None: it stays as it is)."""

    def see(self, table: pa.Table) -> None:
        for name, column in zip(table.column_names, table.columns, strict=True):
            if name in self._kinds and self._kinds[name] is None:
                continue
            if not _is_text(column.type):
                self._kinds[name] = None
                continue
            values = column.drop_null()
            if len(values) == 0:
                continue
            if name not in self._kinds:
                self._kinds[name] = _iso_kind(values[0].as_py())
            found = self._kinds[name]
            if found is not None and not self._casts(values, *found):
                self._kinds[name] = None

    @staticmethod
    def _casts(values: pa.ChunkedArray, pattern: str, kind: pa.DataType) -> bool:
        if not _all_match(values, pattern):
            return False
        try:
            values.cast(kind)
        except pa.ArrowInvalid:  # looks like a date, is not one (2024-02-30)
            return False
        return True

    def casts(self) -> dict[str, pa.DataType]:
        return {name: found[1] for name, found in self._kinds.items() if found is not None}


def _timestamps_as_text(guessed: pa.Schema) -> pa.Schema:
    """Columns Arrow guessed are timestamps, to keep as text for `_parse_iso_text` to type.

    Arrow reads `2024-01-31` as a timestamp, and moves offsets to UTC without saying so.
    """
    return pa.schema(
        [
            pa.field(field.name, pa.string())
            for field in guessed
            if pa.types.is_timestamp(field.type)
        ]
    )


def _in_file_order(table: pa.Table, first: list[str]) -> pa.Table:
    """The columns in file order (Arrow puts those of an explicit schema first)."""
    seen = set(first)
    return table.select([*first, *(name for name in table.column_names if name not in seen)])


def _read_lines_as_objects(path: Path, source: str, row_limit: int | None) -> pa.Table:
    with path.open("rb") as handle:
        data = b"".join(islice(handle, row_limit)) if row_limit else handle.read()
    records = json.loads(b"[" + _LINE_BREAKS.sub(b",", data.strip()) + b"]")
    return _records_table(records, source)


def _first_bad_line(path: Path) -> str | None:
    """Where a JSON Lines file first breaks (`line 3: ...`); only run once reading failed."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as error:
                message = getattr(error, "msg", str(error))
                return f"line {number}: {message}{_array_hint(line) if number == 1 else ''}"
            if not isinstance(value, dict):
                return f"line {number}: expected an object {{...}}{_array_hint(line)}"
    return None


def _array_hint(line: bytes) -> str:
    if line.lstrip().startswith(b"["):
        return " (the file looks like one JSON array: turn 'JSON Lines' off)"
    return ""


def _read_array(ctx: NodeContext, path: Path, source: str, row_limit: int | None) -> pa.Table:
    try:
        records = json.loads(path.read_bytes())
    except json.JSONDecodeError as error:
        hint = " (one object per line? turn 'JSON Lines' on)" if error.msg == "Extra data" else ""
        raise OperatorError(
            f"cannot read '{source}' as JSON: {error.msg} at line {error.lineno}, "
            f"column {error.colno}{hint}"
        ) from error
    except UnicodeDecodeError as error:
        raise OperatorError(f"cannot read '{source}' as JSON: it is not UTF-8 text") from error
    if not isinstance(records, list):
        raise OperatorError(f"'{source}' does not hold a JSON array of objects [{{...}}, ...]")
    ctx.progress(len(records))
    return _records_table(records[:row_limit], source)


def _records_table(records: list, source: str) -> pa.Table:
    """Parsed objects as a table: the union of their keys, in order of first appearance."""
    if not records:
        return pa.table({})
    if not isinstance(records[0], dict):
        raise OperatorError(f"'{source}' holds {type(records[0]).__name__}s, not objects {{...}}")
    try:
        return pa.Table.from_struct_array(pa.array(records))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        pass  # a key whose values are of mixed kinds: type the columns one by one
    try:
        frame = pd.DataFrame(records, dtype=object)
    except (TypeError, ValueError) as error:
        raise OperatorError(f"'{source}' mixes objects {{...}} with other values") from error
    return arrow_table(frame)


def _parse_iso_text(table: pa.Table) -> pa.Table:
    """Text columns whose every value is an ISO date or datetime, as dates or datetimes."""
    return pa.table(
        [_parse_iso_column(column) for column in table.columns], names=table.column_names
    )


def _parse_iso_column(column: pa.ChunkedArray) -> pa.ChunkedArray:
    if not _is_text(column.type):
        return column
    values = column.drop_null()
    if len(values) == 0:
        return column
    found = _iso_kind(values[0].as_py())
    if found is None or not _all_match(values, found[0]):
        return column
    try:
        return column.cast(found[1])
    except pa.ArrowInvalid:  # looks like a date, is not one (2024-02-30)
        return column


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _iso_kind(first: str) -> tuple[str, pa.DataType] | None:
    """The pattern and type of the ISO date or datetime kind `first` is written in, if any."""
    return next(((pattern, kind) for pattern, kind in _ISO_TYPES if re.match(pattern, first)), None)


def _all_match(values: pa.ChunkedArray, pattern: str) -> bool:
    return pc.all(pc.match_substring_regex(values, pattern)).as_py()


class JsonOutputParams(FileOutputParams):
    path: OutputPath = Field(
        title="Path", description="JSON file to write, relative to the data root."
    )
    lines: bool = Field(
        True,
        title="JSON Lines",
        description="Write one object per line (JSON Lines); off: one array of objects.",
    )


class JsonOutput(FileOutput):
    name = "json_output"
    title = "Write JSON"
    description = (
        "Write rows to a JSON file (JSON Lines or one array of objects) under the data root, "
        "all at once or not at all."
    )
    Params = JsonOutputParams

    def write(self, ctx, frame, temporary, appending):
        write_json_file(frame, temporary, appending, ctx.params.path, ctx.params.lines)


def write_json_file(
    frame: pd.DataFrame, temporary: Path, appending: bool, source: str, lines: bool
) -> None:
    """Write `frame` as JSON Lines (`lines`) or one array, after the old rows if `appending`."""
    table = conform_table(arrow_table(frame))
    if lines:
        _write_lines(table, temporary, appending)
    else:
        _write_array(table, temporary, appending, source)


def _write_lines(table: pa.Table, temporary: Path, appending: bool) -> None:
    with temporary.open("ab" if appending else "wb") as handle:
        if appending and not _ends_a_line(temporary):
            handle.write(b"\n")
        handle.write(_concatenated(_json_objects(table, end="}\n")))


def _ends_a_line(path: Path) -> bool:
    """True if the file is empty or ends with a line break."""
    with path.open("rb") as handle:
        if handle.seek(0, 2) == 0:
            return True
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"


def _write_array(table: pa.Table, temporary: Path, appending: bool, source: str) -> None:
    """One array; appending splices the new objects into the old text, which stays as it was."""
    items = _concatenated(_json_objects(table, end="},")).to_pybytes()[:-1]
    if appending:
        old = temporary.read_bytes().strip()
        if not (old.startswith(b"[") and old.endswith(b"]")):
            raise OperatorError(
                f"cannot append to '{source}': it does not hold a JSON array; "
                "choose overwrite, or turn 'JSON Lines' on if it holds one object per line"
            )
        items = b",".join(part for part in (old[1:-1].strip(), items) if part)
    temporary.write_bytes(b"[" + items + b"]")


def _concatenated(texts: pa.ChunkedArray) -> pa.Buffer:
    """The texts end to end: a slice of the data buffer of one Arrow string array, no copy."""
    array = texts.combine_chunks()
    if len(array) == 0:
        return pa.py_buffer(b"")
    _, offsets, data = array.buffers()
    bounds = np.frombuffer(offsets, np.int64)[[array.offset, array.offset + len(array)]]
    return data[int(bounds[0]) : int(bounds[1])]


def _json_objects(table: pa.Table, end: str) -> pa.ChunkedArray:
    """Each row as the text of a JSON object, built a column at a time.

    pandas' `to_json` keeps 15 digits of a float at most; Arrow writes the shortest text that
    reads back as the same float.
    """
    if table.num_columns == 0:
        return pa.chunked_array([pa.repeat(_text("{" + end[1:]), table.num_rows)])
    parts = []
    for index, (name, column) in enumerate(zip(table.column_names, table.columns, strict=True)):
        key = json.dumps(name, ensure_ascii=False)
        parts += [_text(("{" if index == 0 else ",") + key + ":"), _json_values(column)]
    return pc.binary_join_element_wise(*parts, _text(end), _text(""))


def _json_values(column: pa.ChunkedArray) -> pa.ChunkedArray:
    kind = column.type
    if pa.types.is_floating(kind):
        text = _json_numbers(column)
    elif pa.types.is_decimal(kind):
        text = _fixed_point(column)
    elif pa.types.is_integer(kind) or pa.types.is_boolean(kind):
        text = column.cast(pa.large_string())
    elif pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        text = _quoted(_iso_text(column))
    else:
        text = _quoted(_escaped(column.cast(pa.large_string())))
    return text.fill_null(_text("null"))


def _json_numbers(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Floats as JSON numbers that stay floats (`2.0`, not `2`); NaN and infinities as null."""
    text = column.cast(pa.large_string())
    whole = pc.match_substring_regex(text, r"^-?\d+$")
    if pc.any(whole).as_py():
        text = pc.if_else(whole, pc.binary_join_element_wise(text, _text(".0"), _text("")), text)
    finite = pc.is_finite(column)
    if not pc.all(finite).as_py():
        text = pc.if_else(finite, text, pa.scalar(None, pa.large_string()))
    return text


def _fixed_point(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Decimals as JSON numbers of their exact digits, fixed-point as the CSV writers give them
    (`0.0000000001`, where Arrow's text is `1E-10`)."""
    text = column.cast(pa.large_string())
    exponent = pc.match_substring(text, "E")
    if not pc.any(exponent).as_py():
        return text
    fixed = [None if value is None else format(value, "f") for value in column.to_pylist()]
    return pc.if_else(exponent, pa.array(fixed, pa.large_string()), text)


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"} | {
    chr(code): f"\\u{code:04x}" for code in range(32) if chr(code) not in "\n\r\t"
}
"""What JSON requires escaping in a string: backslash (first), quote and control characters."""


def _escaped(text: pa.ChunkedArray) -> pa.ChunkedArray:
    if not pc.any(pc.match_substring_regex(text, r'[\\"\x00-\x1f]')).as_py():
        return text
    for character, escape in _ESCAPES.items():
        if pc.any(pc.match_substring(text, character)).as_py():
            text = pc.replace_substring(text, character, escape)
    return text


def _quoted(text: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(_text('"'), text, _text('"'), _text(""))


def _text(value: str) -> pa.Scalar:
    return pa.scalar(value, pa.large_string())


def _iso_text(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """`2024-01-31`, `2024-01-31T10:00:00.250` or, with a time zone, in UTC with a `Z`."""
    if pa.types.is_date(values.type):
        return values.cast(pa.large_string())
    if values.type.tz is not None:
        values = values.cast(pa.timestamp(values.type.unit, "UTC"))
    text = _whole_seconds(values).cast(pa.large_string())  # `2024-01-31 10:00:00`
    return pc.replace_substring(text, " ", "T", max_replacements=1)


def _whole_seconds(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """The coarsest of seconds and milliseconds that loses nothing, for the shortest text."""
    for unit in ("s", "ms"):
        try:
            return values.cast(pa.timestamp(unit, values.type.tz))
        except pa.ArrowInvalid:
            continue
    return values
