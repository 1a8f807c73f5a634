"""`sql_input` and `sql_output` run as the SQL tests run them: on a test database's
connection `db`, with the six column types as rows.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from runtime.operators import context
from runtime.operators.sql import SqlInput, SqlOutput
from runtime.tables.schema import date_dtype
from tests.runtime.operators.contract import make_ctx

DATA_ROOT = Path(__file__).parent


def people() -> pd.DataFrame:
    """The six column types, each with a null."""
    return pd.DataFrame(
        {
            "id": pd.array([1, 2, 3], dtype="Int64"),
            "age": pd.array([36, None, 85], dtype="Int64"),
            "score": [1.5, np.nan, -2.25],
            "member": pd.array([True, None, False], dtype="boolean"),
            "born": pd.Series([date(1988, 1, 31), None, date(1939, 5, 1)], dtype=date_dtype()),
            "seen": pd.Series(
                [datetime(2024, 1, 31, 10, 0, 0, 123456), None, datetime(2023, 5, 1)],
                dtype="datetime64[us]",
            ),
            "name": pd.Series(["Ada", None, "O'Brien ✓"], dtype="str"),
        }
    )


def numbers(count: int, start: int = 0) -> pd.DataFrame:
    return pd.DataFrame({"id": pd.array(range(start, start + count), dtype="Int64")})


def read(db, query: str, params: dict | None = None, **options) -> pd.DataFrame:
    return read_from(db.connections, query, params, data_root=db.data_root, **options)


def read_from(
    connections: dict, query: str, params: dict | None = None, data_root=DATA_ROOT, **options
):
    operator = SqlInput()
    settings = {"connection": "db", "query": query, "params": params or {}}
    ctx = make_ctx(operator, settings, data_root, connections=connections, **options)
    return operator.run(ctx, {})["out"]


def output_ctx(db, emit=None, **params) -> context.NodeContext:
    settings = {"connection": "db", "table": db.table, **params}
    return make_ctx(SqlOutput(), settings, db.data_root, connections=db.connections, emit=emit)


def write(db, frame: pd.DataFrame, emit=None, **params) -> context.NodeContext:
    ctx = output_ctx(db, emit, **params)
    SqlOutput().run(ctx, {"in": frame})
    return ctx


def ids(db) -> list[int]:
    return [row[0] for row in db.rows(f"SELECT id FROM {db.table} ORDER BY id")]


def progress_into(events: list):
    def emit(event_type, **fields):
        if event_type == "node_progress":
            events.append(fields["rows"])

    return emit
