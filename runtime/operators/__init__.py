"""The built-in operators. Each module holds one operator family; each operator is one class."""

from runtime.operators.csv_files import CsvInput, CsvOutput
from runtime.operators.filter import Filter

BUILTIN_OPERATORS = [CsvInput, CsvOutput, Filter]
