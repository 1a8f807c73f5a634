"""`sql_input` by a watermark: only rows above the stored position, the value bound and the
column quoted; and its one connection per node (open / close)."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from pydantic import ValidationError

from runtime.errors import OperatorError
from runtime.operators.sql import SqlInput
from tests.runtime.operators.contract import make_ctx
from tests.runtime.operators.sql_nodes import numbers, write


def incremental_read(db, column="id", position=None, query=None, resources=None):
    operator = SqlInput()
    params = {
        "connection": "db",
        "query": query or f"SELECT * FROM {db.table}",
        "incremental": {"mode": "watermark", "column": column},
    }
    ctx = make_ctx(
        operator, params, db.data_root, connections=db.connections, position=position,
        resources=resources,
    )  # fmt: skip
    frame = operator.run(ctx, {})["out"]
    return frame, ctx.metrics["position"]


def test_a_watermark_reads_only_rows_strictly_above_the_stored_position(db):
    write(db, numbers(3, start=1))
    frame, position = incremental_read(db)
    assert list(frame["id"]) == [1, 2, 3]
    assert position == {"column": "id", "type": "integer", "value": 3}
    write(db, numbers(2, start=3), mode="append")  # a 3 again (not unique), and a 4
    frame, position = incremental_read(db, position=position)
    assert list(frame["id"]) == [4]
    assert position["value"] == 4


def test_with_nothing_new_the_position_stays(db):
    write(db, numbers(2, start=1))
    _, position = incremental_read(db)
    frame, again = incremental_read(db, position=position)
    assert frame.empty and list(frame.columns) == ["id"]
    assert again == position


def test_a_time_watermark_is_stored_as_text_and_bound_as_a_time(db):
    times = pd.Series(
        [datetime(2026, 1, 1, 10), datetime(2026, 1, 2, 9, 30)], dtype="datetime64[us]"
    )
    write(db, pd.DataFrame({"id": pd.array([1, 2], dtype="Int64"), "seen": times}))
    start = {"column": "seen", "type": "datetime", "value": "2026-01-01T10:00:00"}
    frame, position = incremental_read(db, column="seen", position=start)
    assert list(frame["id"]) == [2]
    assert position == {"column": "seen", "type": "datetime", "value": "2026-01-02T09:30:00"}


def test_a_hostile_column_name_is_quoted_never_pasted(db):
    write(db, numbers(3, start=1))
    start = {"column": 'id" > 0 OR "1', "type": "integer", "value": 2}
    # PostgreSQL and MariaDB find no such column; SQLite reads an unknown quoted name as text,
    # and the watermark then finds no such column in the rows
    with pytest.raises(OperatorError, match=r"query on 'db' failed|there is no column"):
        incremental_read(db, column='id" > 0 OR "1', position=start)


def test_a_query_parameter_may_not_take_the_watermarks_name():
    with pytest.raises(ValidationError, match="pw_watermark is reserved"):
        SqlInput.Params.model_validate(
            {"connection": "db", "query": "SELECT :pw_watermark", "params": {"pw_watermark": 1}}
        )


def test_every_attempt_uses_the_connection_open_made_and_close_ends_it(db):
    write(db, numbers(2, start=1))
    operator, resources = SqlInput(), {}
    params = {"connection": "db", "query": f"SELECT * FROM {db.table}"}
    ctx = make_ctx(operator, params, db.data_root, connections=db.connections, resources=resources)
    operator.open(ctx)
    connection = resources["sql_connection"][1]
    for _ in range(2):
        attempt = make_ctx(
            operator, params, db.data_root, connections=db.connections, resources=resources
        )
        assert list(operator.run(attempt, {})["out"]["id"]) == [1, 2]
        assert resources["sql_connection"][1] is connection
    operator.close(ctx)
    assert connection.closed and "sql_connection" not in resources
