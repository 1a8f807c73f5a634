"""The built-in operators. Each module holds one operator family; each operator is one class."""

from runtime.operators.aggregate import Aggregate
from runtime.operators.column_ops import Cast, FillNulls, Select, Transform
from runtime.operators.combine import Join, Union
from runtime.operators.csv_files import CsvInput, CsvOutput
from runtime.operators.excel_files import ExcelInput, ExcelOutput
from runtime.operators.filter import Filter
from runtime.operators.json_files import JsonInput, JsonOutput
from runtime.operators.parquet_files import ParquetInput, ParquetOutput
from runtime.operators.rows import Deduplicate, DropNulls, Limit, Sample, Sort
from runtime.operators.sql import SqlInput, SqlOutput
from runtime.operators.validate import Validate

BUILTIN_OPERATORS = [
    CsvInput,
    CsvOutput,
    JsonInput,
    JsonOutput,
    ParquetInput,
    ParquetOutput,
    ExcelInput,
    ExcelOutput,
    Filter,
    SqlInput,
    SqlOutput,
    Transform,
    Select,
    Cast,
    FillNulls,
    Sort,
    Deduplicate,
    Limit,
    Sample,
    DropNulls,
    Join,
    Union,
    Aggregate,
    Validate,
]
