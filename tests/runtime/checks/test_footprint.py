"""A pipeline's footprint — the files and tables it reads and writes — and the links between
pipelines it gives, from the documents alone (no Django)."""

from __future__ import annotations

import pytest

from runtime.checks.footprint import footprint, links, query_tables
from runtime.operators.registry import default_registry


def document(*nodes: tuple[str, dict]) -> dict:
    return {
        "nodes": [{"id": f"n{i}", "operator": op, "params": p} for i, (op, p) in enumerate(nodes)]
    }


@pytest.mark.parametrize(
    ("query", "tables"),
    [
        (
            "select * from orders o join Sales.customers c on o.id = c.id",
            ["orders", "sales.customers"],
        ),
        (
            "select a from (select * from t1) x, t2 where y in (select z from t3)",
            ["t1", "t2", "t3"],
        ),
        (
            "with w as (select * from base) select * from w left join other using (k)",
            ["base", "other"],
        ),
        ('select * from "Quoted"', ["quoted"]),
    ],
    ids=["join", "subqueries", "with-clause", "quoted"],
)
def test_a_query_reads_the_tables_after_from_and_join(query, tables):
    assert list(query_tables(query)) == tables


def test_inputs_read_and_outputs_write_their_paths_with_parameters_as_wildcards():
    found = footprint(
        document(
            ("csv_input", {"path": "raw/people.csv"}),
            ("parquet_output", {"path": "clean/${day}.parquet"}),
            ("sql_output", {"connection": "Warehouse", "table": "sales.orders"}),
            ("filter", {"condition": "age > 1"}),
        ),
        default_registry(),
    )
    assert found.reads_files == {"raw/people.csv"}
    assert found.writes_files == {"clean/*.parquet"}
    assert found.writes_tables == {"warehouse:sales.orders"}


def test_a_reader_of_a_glob_or_a_table_is_linked_to_its_writer_and_not_to_itself():
    registry = default_registry()
    writer = footprint(
        document(
            ("csv_input", {"path": "clean/old.csv"}),
            ("csv_output", {"path": "clean/${day}.csv"}),
            ("sql_output", {"connection": "wh", "table": "sales.orders"}),
        ),
        registry,
    )
    reader = footprint(
        document(
            ("csv_input", {"path": "clean/*.csv"}),
            ("sql_input", {"connection": "wh", "query": "select * from orders"}),
        ),
        registry,
    )
    stranger = footprint(document(("csv_input", {"path": "other/*.csv"})), registry)
    found = {
        (link.writer, link.reader, link.via)
        for link in links({"A": writer, "B": reader, "C": stranger})
    }
    assert found == {("A", "B", "clean/*.csv"), ("A", "B", "wh:sales.orders")}


def test_unknown_operators_and_odd_params_add_nothing():
    found = footprint(
        document(
            ("no_such_operator", {"path": "x.csv"}),
            ("csv_input", "not params"),
            ("csv_input", {"path": 3}),
        ),
        default_registry(),
    )
    assert not (found.reads_files or found.writes_files or found.reads_tables)


@pytest.mark.parametrize(
    "query",
    [
        "select * from t where " + "(" * 5000 + "1" + ")" * 5000,
        "select * from a join b using (k) " * 600,
    ],
    ids=["deeply-nested", "past-the-token-limit"],
)
def test_a_query_sqlparse_refuses_reads_no_table_rather_than_failing(query):
    assert query_tables(query) == ()
