"""`excel_input` and `excel_output`: sheets of Excel workbooks (.xlsx) under the data root.

The first row of a sheet names the columns. Excel keeps every number as a float, so a column
of whole numbers reads as `integer`; a column of dates and times reads as `datetime`, or as
`date` when its cells are formatted as dates without a time. Excel keeps times to the
millisecond and has no time zones: datetimes with a zone are written as their local time.
Appending adds rows below those of the sheet (a new sheet when the workbook has none of
that name); the sheet's header must name the same columns. A folder's files are those
ending in `.xlsx`; each one's sheet is read (by name, or at the same position).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Annotated

import pyarrow as pa
from openpyxl.utils.exceptions import IllegalCharacterError, InvalidFileException
from pydantic import AfterValidator, Field

from runtime.document.fields import DataPath, FileEndings
from runtime.errors import OperatorError, ParamsError
from runtime.io.incremental import IncrementalField
from runtime.lazy import np, pd
from runtime.operators.column_names import read_names
from runtime.operators.contract import OperatorParams
from runtime.operators.file_common import (
    FileInput,
    FileNameColumn,
    FileOutput,
    FileOutputParams,
    OutputPath,
    arrow_table,
    conform_table,
)
from runtime.tables.schema import type_name_of

MAX_ROWS = 1_048_576
"""Rows an Excel sheet holds, its header included."""
FORMAT_SAMPLE_ROWS = 100
"""Rows whose number formats are looked at to tell date columns from datetime columns."""
EXCEL_ENDINGS = (".xlsx",)
"""The files of a folder that `excel_input` reads."""
_QUOTED_OR_BRACKETED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')


def _counted_from_zero(sheet: int | str) -> int | str:
    if isinstance(sheet, int) and sheet < 0:
        raise ValueError("a sheet's position counts from 0 (the first sheet)")
    return sheet


class ExcelInputParams(OperatorParams):
    path: Annotated[DataPath, FileEndings(EXCEL_ENDINGS)] = Field(
        title="Path",
        description="Excel workbook (.xlsx), folder of them or pattern such as "
        "'reports/*.xlsx', relative to the data root.",
    )
    sheet: Annotated[int | str, AfterValidator(_counted_from_zero)] = Field(
        0,
        title="Sheet",
        description="The sheet's name, or its position counting from 0 (the first sheet).",
    )
    file_name_column: FileNameColumn = None
    incremental: IncrementalField = None


class ExcelInput(FileInput):
    name = "excel_input"
    summary = "{path}[ · sheet {sheet}]"
    title = "Excel sheet"
    description = (
        "Read one sheet of an Excel workbook (.xlsx), or of each workbook of a folder or "
        "pattern, from the data root."
    )
    Params = ExcelInputParams

    def read_file(self, ctx, file, row_limit):
        table = read_sheet(file.location, file.name, ctx.params.sheet, row_limit, ctx.columns)
        ctx.progress(table.num_rows)
        return table


def read_sheet(
    location: Path,
    source: str,
    sheet: int | str,
    row_limit: int | None,
    columns: set[str] | None = None,
) -> pa.Table:
    """The rows of a workbook's sheet (by name or position), at most `row_limit`, of the
    `columns` anything reads (None: all): the others are never converted."""
    with _open(location, source) as workbook:
        name = _sheet_name(workbook.sheet_names, sheet, source)
        frame = pd.read_excel(workbook, sheet_name=name, dtype=object, nrows=row_limit)
        dates = _date_columns(workbook.book[name])
    names = [str(name) for name in frame.columns]
    kept = read_names(names, columns)
    if len(kept) < len(names):  # column pruning
        positions = [names.index(name) for name in kept]
        dates = {new for new, old in enumerate(positions) if old in dates}
        frame = frame.iloc[:, positions]
    return _as_dates(conform_table(arrow_table(frame)), dates)


def _open(path: Path, source: str) -> pd.ExcelFile:
    try:
        return pd.ExcelFile(path, engine="openpyxl")
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError) as error:
        raise OperatorError(
            f"cannot read '{source}' as an Excel workbook (.xlsx): {error}"
        ) from error


def _sheet_name(names: list[str], sheet: str | int, source: str) -> str:
    """The name of the asked-for sheet; a `ParamsError` listing the sheets if there is none."""
    if isinstance(sheet, int):
        if sheet < len(names):
            return names[sheet]
        problem = f"'{source}' has {len(names)} sheet(s), so there is no sheet {sheet}"
    elif sheet in names:
        return sheet
    else:
        problem = f"there is no sheet '{sheet}' in '{source}'"
    raise ParamsError("sheet", f"{problem}; the sheets are: {', '.join(names)}")


def _date_columns(worksheet) -> set[int]:
    """Positions of columns whose first dated cells are formatted without a time of day."""
    formats: dict[int, str] = {}
    rows = worksheet.iter_rows(min_row=2, max_row=1 + FORMAT_SAMPLE_ROWS)
    for row in rows:
        for index, cell in enumerate(row):
            if getattr(cell, "is_date", False):
                formats.setdefault(index, cell.number_format)
    return {index for index, number_format in formats.items() if not _shows_time(number_format)}


def _shows_time(number_format: str) -> bool:
    codes = _QUOTED_OR_BRACKETED.sub("", number_format).lower()
    return "h" in codes or "s" in codes


def _as_dates(table: pa.Table, dates: set[int]) -> pa.Table:
    columns = [
        column.cast(pa.date32())
        if index in dates and pa.types.is_timestamp(column.type)
        else column
        for index, column in enumerate(table.columns)
    ]
    return pa.table(columns, names=table.column_names)


class ExcelOutputParams(FileOutputParams):
    path: OutputPath = Field(
        title="Path", description="Excel workbook (.xlsx) to write, relative to the data root."
    )
    sheet: str = Field(
        "Sheet1",
        title="Sheet",
        description="Name of the sheet to write the rows to.",
        min_length=1,
        max_length=31,
        pattern=r"^[^\[\]:*?/\\]+$",
    )


class ExcelOutput(FileOutput):
    name = "excel_output"
    summary = "{path}[ · sheet {sheet}]"
    title = "Write Excel"
    description = (
        "Write rows to a sheet of an Excel workbook (.xlsx) under the data root, "
        "all at once or not at all."
    )
    Params = ExcelOutputParams

    def write(self, ctx, frame, temporary, appending):
        write_sheet(frame, temporary, appending, ctx.params.path, ctx.params.sheet)


def write_sheet(
    frame: pd.DataFrame, temporary: Path, appending: bool, source: str, sheet: str
) -> None:
    """Write `frame` to `sheet` of the workbook `temporary` (below its rows when `appending`)."""
    frame = _local_times(frame)
    options = {"mode": "a", "if_sheet_exists": "overlay"} if appending else {}
    try:
        with pd.ExcelWriter(temporary, engine="openpyxl", **options) as writer:
            start = _next_row(writer, sheet, frame, source)
            _refuse_too_many_rows(start + len(frame) + (start == 0), source)
            frame.to_excel(writer, sheet_name=sheet, startrow=start, header=start == 0, index=False)
            _keep_text_as_text(writer.sheets[sheet], frame, start + 1 + (start == 0))
    except IllegalCharacterError as error:
        raise OperatorError(
            f"cannot write '{source}': a text value holds a control character "
            "that Excel does not allow"
        ) from error


def _next_row(writer: pd.ExcelWriter, sheet: str, frame: pd.DataFrame, source: str) -> int:
    """Where appended rows go (0 for a new or empty sheet), once the header is checked."""
    if sheet not in writer.sheets:
        return 0
    worksheet = writer.sheets[sheet]
    header = [cell.value for cell in next(worksheet.iter_rows(max_row=1))]
    if all(value is None for value in header):
        return 0
    expected = [str(name) for name in frame.columns]
    if [str(value) for value in header] != expected:
        raise OperatorError(
            f"cannot append to sheet '{sheet}' of '{source}': its columns are "
            f"{', '.join(map(str, header))} but the rows to write have {', '.join(expected)}; "
            "choose overwrite, another sheet or another path"
        )
    return worksheet.max_row


def _keep_text_as_text(worksheet, frame: pd.DataFrame, first_row: int) -> None:
    """Text starting with `=` stays text: openpyxl would store it as a formula."""
    for index in range(frame.shape[1]):
        column = frame.iloc[:, index]
        if type_name_of(column.dtype) == "string":
            starts = column.astype("str").str.startswith("=").fillna(False).to_numpy(bool)
            for row in np.flatnonzero(starts):
                worksheet.cell(row=first_row + int(row), column=index + 1).data_type = "s"


def _refuse_too_many_rows(rows: int, source: str) -> None:
    if rows > MAX_ROWS:
        raise OperatorError(
            f"cannot write '{source}': an Excel sheet holds at most {MAX_ROWS:,} rows and "
            f"this one would need {rows:,}; write a CSV or Parquet file instead"
        )


def _local_times(frame: pd.DataFrame) -> pd.DataFrame:
    """Datetimes with a time zone as their local time, which is all Excel can hold."""
    zoned = [
        index
        for index, dtype in enumerate(frame.dtypes)
        if type_name_of(dtype) == "datetime" and getattr(dtype, "tz", None) is not None
    ]
    if not zoned:
        return frame
    result = frame.copy(deep=False)  # the input frame is shared: never changed in place
    for index in zoned:
        result.isetitem(index, frame.iloc[:, index].dt.tz_localize(None))
    return result
