"""Recomputing a port a run did not store from the nearest results it did: the preview reads
them from the store (not the inputs), only when they hold the columns it needs, and only from
the store it is given."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import json
import shutil
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

from runtime.cache.store import ResultStore
from runtime.document.spec import load_document
from runtime.errors import NodeExecutionError
from runtime.execution.preview import preview
from runtime.io.paths import CACHE, FileArea
from runtime.plan.reuse.stored_result import missing_columns, read_stored
from tests.runtime.cache.runs import run, seed_document, write_data

PARAMETERS = {"min_age": 18}


def chain(*nodes: dict) -> dict:
    """The seed ETL's users → adults, then `nodes` one after the other."""
    document = seed_document()
    document["nodes"] = document["nodes"][:2] + list(nodes)
    ids = ["users", "adults", *(node["id"] for node in nodes)]
    document["edges"] = [{"source": a, "target": b} for a, b in itertools.pairwise(ids)]
    return document


def seed_node(node_id: str) -> dict:
    return copy.deepcopy(next(n for n in seed_document()["nodes"] if n["id"] == node_id))


WRITE = {"id": "write", "operator": "csv_output", "params": {"path": "out/x.csv"}}
BIG = {"id": "big", "operator": "filter", "params": {"condition": "users > 1"}}
ORDERED = {"id": "ordered", "operator": "sort", "params": {"by": [{"column": "country"}]}}
AGGREGATED = chain(seed_node("enrich"), seed_node("by_country"), BIG, ORDERED, WRITE)
"""On DuckDB one segment: it stores `adults` (the top of the row-wise chain the aggregate
reads) and `big` (the sort's input); `enrich` and `by_country`, between them, are inside."""


@pytest.fixture
def root(tmp_path) -> Path:
    write_data(tmp_path)
    return tmp_path


def run_results(document: dict, root: Path, backend: str = "duckdb") -> dict:
    """Run `document` with the store; the keys it recorded, by node and port."""
    result = run(document, root, backend=backend)
    return {
        node_id: node.extra["results"]
        for node_id, node in result.nodes.items()
        if node.extra.get("results")
    }


def shown(document: dict, node: str, root: Path, results, *, cache: Path | None = None):
    area = FileArea(root, cache=root / CACHE if cache is None else cache)
    return preview(
        load_document(json.dumps(document)), node, 100, parameters=PARAMETERS, data_root=area,
        results=results,
    )  # fmt: skip


def test_an_interior_port_is_recomputed_from_its_stored_boundary_after_the_input_went(root):
    results = run_results(AGGREGATED, root)
    assert "by_country" not in results and "enrich" not in results  # inside the segment
    assert "adults" in results
    expected = shown(AGGREGATED, "by_country", root, None)
    (root / "users.csv").unlink()
    found = shown(AGGREGATED, "by_country", root, results)
    assert (found.read_from_store, found.inputs_read) == (["adults"], [])
    assert sorted(found.rows) == sorted(expected.rows) and len(found.rows) == 3
    assert found.schema.names == ["country", "users", "amount_eur", "mean_age"]


def test_without_the_store_the_same_preview_needs_the_input(root):
    results = run_results(AGGREGATED, root)
    (root / "users.csv").unlink()
    with pytest.raises(NodeExecutionError, match=r"users\.csv"):
        shown(AGGREGATED, "by_country", root, None)
    shutil.rmtree(root / CACHE)  # every result evicted
    with pytest.raises(NodeExecutionError, match=r"users\.csv"):
        shown(AGGREGATED, "by_country", root, results)


def test_an_evicted_boundary_falls_back_to_the_inputs(root):
    results = run_results(AGGREGATED, root)
    ResultStore(root / CACHE).path_of(results["adults"]["out"]).unlink()
    found = shown(AGGREGATED, "by_country", root, results)
    assert (found.read_from_store, found.inputs_read) == ([], ["users"])
    assert len(found.rows) == 3


def test_a_result_only_another_store_holds_is_never_read(root, tmp_path_factory):
    """A second workspace runs the same pipeline on other data: its keys, handed to a preview
    in the first, find nothing in the first's store."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    write_data(elsewhere, seed=2)
    results = run_results(AGGREGATED, elsewhere)
    own = shown(AGGREGATED, "by_country", root, None)
    found = shown(AGGREGATED, "by_country", root, results)
    assert (found.read_from_store, found.inputs_read) == ([], ["users"])
    assert sorted(found.rows) == sorted(own.rows)


@pytest.mark.parametrize(
    "results",
    [
        {"adults": {"out": key}}
        for key in ["../../users", "", 7, None, "A" * 64, "0" * 64 + "\n", {"out": "x"}]
    ]
    + [{"adults": "0" * 64}, {"adults": None}],
)
def test_what_is_not_a_key_is_ignored(root, results):
    run_results(AGGREGATED, root)
    found = shown(AGGREGATED, "by_country", root, results)
    assert found.read_from_store == [] and len(found.rows) == 3


def test_a_stored_result_without_a_column_the_port_needs_does_not_stand_for_it(root):
    """The run kept of `adults` only what the sort's readers read (country, id): `ordered`
    shows every column, so it is computed from the input again."""
    slim = {"id": "slim", "operator": "select", "params": {"columns": ["country", "id"]}}
    document = chain(ORDERED, slim, WRITE)
    results = run_results(document, root)
    store = ResultStore(root / CACHE)
    assert sorted(store.columns(results["adults"]["out"])) == ["country", "id"]
    found = shown(document, "ordered", root, results)
    assert (found.read_from_store, found.inputs_read) == ([], ["users"])
    assert "email" in found.schema.names


def test_a_stored_result_with_every_column_stands_for_a_port_that_needs_them_all(root):
    """`adults` is stored whole (the output reads every column): `ordered`, inside the
    segment and showing every column, is recomputed from it."""
    euros = {"target": "amount_eur", "expression": "amount * 0.92"}
    document = chain(
        ORDERED, {"id": "euros", "operator": "transform", "params": {"mappings": [euros]}}, WRITE
    )
    results = run_results(document, root)
    assert "ordered" not in results
    (root / "users.csv").unlink()
    found = shown(document, "ordered", root, results)
    assert (found.read_from_store, found.inputs_read) == (["adults"], [])
    assert "email" in found.schema.names and all(row[3] > 18 for row in found.rows)


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_stored_result_names_the_columns_it_does_not_hold(root, backend):
    results = run_results(AGGREGATED, root, backend)
    store = ResultStore(root / CACHE)
    adults = results["adults"]["out"]
    assert {"name", "email", "signup"} <= set(missing_columns(store, adults))
    assert store.record(adults)["columns"] == [*pd.read_csv(root / "users.csv", nrows=1)]
    assert missing_columns(store, results["big"]["out"]) == []


def test_a_stored_results_head_is_read_without_the_rest(root):
    results = run_results(AGGREGATED, root, "pandas")
    location = ResultStore(root / CACHE).path_of(results["users"]["out"])
    head = read_stored(location, 7)
    assert len(head) == 7
    assert head.dtypes.equals(read_stored(location).dtypes)


def test_a_stored_result_that_fails_to_read_is_recomputed_from_the_inputs(root):
    """Its footer reads (so the preview starts from it) but its rows do not, as when the store
    evicts it while the preview reads: the preview starts again from the inputs."""
    results = run_results(AGGREGATED, root)
    location = ResultStore(root / CACHE).path_of(results["adults"]["out"])
    data = bytearray(location.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    data[4 : len(data) - footer] = bytes(len(data) - footer - 4)
    location.write_bytes(bytes(data))
    found = shown(AGGREGATED, "by_country", root, results)
    assert (found.read_from_store, found.inputs_read) == ([], ["users"])
    assert len(found.rows) == 3


BY_AGE = {"id": "by_age", "operator": "sort", "params": {"by": [{"column": "age"}]}}
OLD = {"id": "old", "operator": "filter", "params": {"condition": "age > 80"}}


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_nodes_a_filter_moved_past_record_no_result_and_are_recomputed_as_the_document_says(
    root, backend
):
    """The filter runs before the sort: what the run computed at `by_age` is the old people
    only, not the document's sorted adults, so the run does not offer it as `by_age`'s rows."""
    document = chain(BY_AGE, OLD, WRITE)
    results = run_results(document, root, backend)
    assert "by_age" not in results and "old" not in results
    found = shown(document, "by_age", root, results)
    adults = shown(document, "adults", root, None)
    assert len(found.rows) == len(adults.rows) > 0  # every adult, not the filtered few
    ages = [row[found.schema.names.index("age")] for row in found.rows]
    assert ages == sorted(ages) and min(ages) <= 80


def test_nodes_a_limit_moved_past_record_no_result(root):
    first = {"id": "first", "operator": "limit", "params": {"n": 5}}
    results = run_results(chain(seed_node("enrich"), first, WRITE), root, "pandas")
    assert "adults" in results and "enrich" not in results and "first" not in results


def test_a_result_duckdb_stores_keeps_its_datetimes_zone(tmp_path):
    pl.DataFrame(
        {"k": [1, 1, 2], "seen": [dt.datetime(2020, 1, 1, 23, 30), None, dt.datetime(2020, 7, 1)]},
        schema_overrides={"seen": pl.Datetime("us", "Europe/Paris")},
    ).write_parquet(tmp_path / "seen.parquet")
    steps = [
        {"id": "read", "operator": "parquet_input", "params": {"path": "seen.parquet"}},
        {"id": "known", "operator": "drop_nulls", "params": {}},
        {
            "id": "last",
            "operator": "aggregate",
            "params": {"group_by": ["k"], "aggregations": [{"column": "seen", "function": "max"}]},
        },
        {"id": "write", "operator": "parquet_output", "params": {"path": "out.parquet"}},
    ]
    ids = [step["id"] for step in steps]
    document = {
        "name": "zoned",
        "nodes": steps,
        "edges": [{"source": a, "target": b} for a, b in itertools.pairwise(ids)],
    }
    results = run_results(document, tmp_path)
    stored = ResultStore(tmp_path / CACHE).path_of(results["known"]["out"])
    assert str(pq.read_schema(stored).field("seen").type) == "timestamp[us, tz=Europe/Paris]"
    frame = read_stored(stored)
    assert str(frame["seen"].dtype) == "datetime64[us, Europe/Paris]"
