"""The built-in operator catalog and the contract they implement (`contract.py`).

Each module holds one operator family; each operator is one class. They are listed by name
and imported on first use, so that a run imports only the operators it needs (the SQL and
Excel families pull in SQLAlchemy and openpyxl, which a CSV pipeline should not pay for at
start-up). The registry checks that each class has the listed name.

Besides the families, this package holds what every operator works with: the contract
(`contract.py`), what a node sees of its run (`context.py`), typed param fields, the open/close
lifecycle, the registry, and param helpers (column names, file checks, file identity). Does not
belong here: planning (operators lower to `runtime.relational`, never import `runtime.plan`).
"""

BUILTIN_OPERATORS: dict[str, str] = {
    "csv_input": "runtime.operators.csv_files:CsvInput",
    "csv_output": "runtime.operators.csv_files:CsvOutput",
    "json_input": "runtime.operators.json_files:JsonInput",
    "json_output": "runtime.operators.json_files:JsonOutput",
    "parquet_input": "runtime.operators.parquet_files:ParquetInput",
    "parquet_output": "runtime.operators.parquet_files:ParquetOutput",
    "excel_input": "runtime.operators.excel_files:ExcelInput",
    "excel_output": "runtime.operators.excel_files:ExcelOutput",
    "sql_input": "runtime.operators.sql:SqlInput",
    "sql_output": "runtime.operators.sql:SqlOutput",
    "filter": "runtime.operators.filter:Filter",
    "transform": "runtime.operators.column_ops:Transform",
    "select": "runtime.operators.column_ops:Select",
    "cast": "runtime.operators.column_ops:Cast",
    "fill_nulls": "runtime.operators.column_ops:FillNulls",
    "sort": "runtime.operators.rows:Sort",
    "deduplicate": "runtime.operators.rows:Deduplicate",
    "limit": "runtime.operators.rows:Limit",
    "sample": "runtime.operators.rows:Sample",
    "drop_nulls": "runtime.operators.rows:DropNulls",
    "join": "runtime.operators.combine:Join",
    "union": "runtime.operators.combine:Union",
    "aggregate": "runtime.operators.aggregate:Aggregate",
    "broadcast": "runtime.operators.broadcast:Broadcast",
    "validate": "runtime.operators.validate:Validate",
    "route": "runtime.operators.route:Route",
    "pivot": "runtime.operators.reshape:Pivot",
    "unpivot": "runtime.operators.reshape:Unpivot",
    "window": "runtime.operators.window:Window",
    "pipeline_input": "runtime.operators.subpipelines:PipelineInput",
    "pipeline_output": "runtime.operators.subpipelines:PipelineOutput",
    "subpipeline": "runtime.operators.subpipelines:Subpipeline",
    "for_each": "runtime.operators.subpipelines:ForEach",
}
