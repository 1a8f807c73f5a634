"""Column pruning: inputs read only the columns that can reach an output."""

from __future__ import annotations

import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.plan import build_plan
from runtime.plan.passes.projection import needed_columns
from tests.runtime.plan.seed import etl

USERS = (
    "id,name,email,age,country,amount,signup\n"
    "1,ada,a@x,36,FR,10.5,2024-01-01\n2,bob,b@x,17,DE,3.0,2024-02-01\n"
)


AGGREGATE = {
    "id": "by_country",
    "operator": "aggregate",
    "params": {
        "group_by": ["country"],
        "aggregations": [
            {"column": "id", "function": "count", "name": "users"},
            {"column": "amount_eur", "function": "sum"},
        ],
    },
}
WRITE = {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}}


def plan_of(doc: dict):
    return build_plan(load_document(doc))


def test_an_aggregate_downstream_means_only_its_columns_are_read():
    doc = etl(
        [AGGREGATE, WRITE],
        [{"source": "enrich", "target": "by_country"}, {"source": "by_country", "target": "write"}],
    )
    assert needed_columns(plan_of(doc))["users"] == {"id", "age", "country", "amount"}


def test_an_output_downstream_reads_every_column():
    doc = etl([WRITE], [{"source": "enrich", "target": "write"}])
    assert needed_columns(plan_of(doc))["users"] is None


def test_a_selected_subset_is_renamed_back_to_the_input_names():
    select = {
        "id": "pick",
        "operator": "select",
        "params": {"columns": [], "rename": {"amount_eur": "eur"}},
    }
    sort = {"id": "order", "operator": "sort", "params": {"by": [{"column": "country"}]}}
    limit = {"id": "top", "operator": "limit", "params": {"n": 1}}
    agg = {
        **AGGREGATE,
        "params": {"group_by": ["country"], "aggregations": [{"column": "eur", "function": "sum"}]},
    }
    edges = [
        {"source": "enrich", "target": "pick"},
        {"source": "pick", "target": "order"},
        {"source": "order", "target": "top"},
        {"source": "top", "target": "by_country"},
        {"source": "by_country", "target": "write"},
    ]
    doc = etl([select, sort, limit, agg, WRITE], edges)
    assert needed_columns(plan_of(doc))["users"] == {"age", "country", "amount"}


def test_an_operator_that_declares_no_needs_keeps_every_column():
    dedup = {"id": "dedup", "operator": "deduplicate", "params": {"columns": ["country"]}}
    edges = [
        {"source": "enrich", "target": "dedup"},
        {"source": "dedup", "target": "by_country"},
        {"source": "by_country", "target": "write"},
    ]
    doc = etl([dedup, AGGREGATE, WRITE], edges)
    assert needed_columns(plan_of(doc))["users"] is None


def test_a_previewed_node_keeps_every_column_of_its_ancestors():
    doc = etl(
        [AGGREGATE, WRITE],
        [{"source": "enrich", "target": "by_country"}, {"source": "by_country", "target": "write"}],
    )
    assert needed_columns(plan_of(doc), keep_all={"adults"})["users"] is None


@pytest.mark.parametrize("prune", [True, False], ids=["pruned", "whole"])
def test_pruning_changes_what_is_read_not_what_is_written(tmp_path, prune):
    (tmp_path / "users.csv").write_text(USERS)
    doc = etl(
        [AGGREGATE, WRITE],
        [{"source": "enrich", "target": "by_country"}, {"source": "by_country", "target": "write"}],
    )
    plan = plan_of(doc)
    result = execute(plan, data_root=tmp_path, retain=() if prune else ["users"])
    assert result.ok
    assert (tmp_path / "out.csv").read_text() == "country,users,amount_eur_sum\nFR,1,9.66\n"
    assert result.nodes["users"].bytes_out < 100 if prune else result.nodes["users"].bytes_out > 100
