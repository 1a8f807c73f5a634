"""A part that several exits of a DuckDB segment read is computed once, into a table the later
queries read: same rows and order as pandas, every member's rows, within the memory budget,
and a stop or the progress of the segment work across its queries."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime import relational as r
from runtime.backends.duckdb import run_segment
from runtime.backends.duckdb.shared import steps
from runtime.budget import Budget
from runtime.errors import NodeCancelled
from tests.runtime.backends.both import Step, assert_frames_match, run_duckdb, run_pandas
from tests.runtime.backends.test_duckdb_properties import frames as random_frames
from tests.runtime.backends.test_duckdb_properties import steps as random_chains
from tests.strategies import bounded

CSV = (("delimiter", ","), ("header", True), ("skip_rows", 0))
USERS = r.Scan("csv", "users.csv", CSV)
ADULTS = r.Filter(USERS, "age > 18")
BY_COUNTRY = r.Aggregate(ADULTS, ("country",), (r.AggregateCall("size", None, "n"),))
BY_AGE = r.Sort(ADULTS, (("age", True),))


def test_two_exits_reading_one_filter_over_a_csv_file_compute_it_once():
    schedule = steps([BY_COUNTRY, BY_AGE])
    assert [step.relation for step in schedule] == [ADULTS, BY_COUNTRY, BY_AGE]
    table = schedule[0].table
    assert table is not None and [step.table for step in schedule[1:]] == [None, None]
    assert [step.done_with for step in schedule] == [(), (), (table,)]  # dropped after its last


def test_an_exit_that_another_exit_reads_is_computed_once_and_read_back():
    schedule = steps([ADULTS, BY_COUNTRY])
    assert [(step.relation, step.table is None) for step in schedule] == [
        (ADULTS, False), (ADULTS, True), (BY_COUNTRY, True)
    ]  # fmt: skip


def test_a_table_goes_only_after_the_last_query_reading_it_an_exit_reading_its_own_included():
    first = r.Limit(BY_COUNTRY, 1)
    schedule = steps([first, BY_COUNTRY, ADULTS])
    adults, by_country = (step.table for step in schedule[:2])
    assert [step.relation for step in schedule] == [ADULTS, BY_COUNTRY, first, BY_COUNTRY, ADULTS]
    assert [step.done_with for step in schedule] == [(), (), (), (by_country,), (adults,)]


def test_a_part_under_a_shared_part_that_a_third_exit_reads_is_computed_first():
    names = r.Project(USERS, ("name",))
    schedule = steps([BY_COUNTRY, BY_AGE, names])
    assert [step.relation for step in schedule][:2] == [USERS, ADULTS]
    assert all(step.table for step in schedule[:2]) and len(schedule) == 5


@pytest.mark.parametrize(
    "source",
    [r.Input(("frame", "out")), r.Scan("parquet", "users.parquet")],
    ids=["frame", "parquet"],
)
def test_what_is_cheap_to_compute_again_stays_inside_each_query(source):
    picked = r.Filter(source, "age > 18")
    exits = [r.Limit(picked, 5), r.Sort(picked, (("age", False),))]
    assert [step.relation for step in steps(exits)] == exits
    shared = r.Aggregate(picked, ("country",), (r.AggregateCall("size", None, "n"),))
    assert steps([r.Limit(shared, 1), r.Sort(shared, (("n", True),))])[0].relation == shared


@pytest.fixture
def people(tmp_path):
    rng = np.random.default_rng(11)
    rows = 3000
    frame = pd.DataFrame(
        {
            "id": np.arange(rows),
            "age": rng.integers(1, 90, rows),
            "country": rng.choice(["FR", "DE", "é", ""], rows),
            "amount": rng.uniform(0, 100, rows).round(2),
        }
    )
    frame.to_csv(tmp_path / "people.csv", index=False)
    return tmp_path


@pytest.mark.parametrize(
    "part, readers",
    [
        (
            Step("adults", "filter", {"condition": "age > 18"}, {"in": "read"}),
            [
                Step("first", "limit", {"n": 7}, {"in": "adults"}),
                Step("by_country", "aggregate", {"group_by": ["country"], "aggregations": [
                    {"column": "amount", "function": "sum", "name": "amount"}]},
                    {"in": "adults"}),
            ],
        ),
        (
            Step("ranked", "sort", {"by": [{"column": "country"}]}, {"in": "read"}),
            [
                Step("first", "limit", {"n": 7}, {"in": "ranked"}),
                Step("once", "deduplicate", {"columns": ["country"], "keep": "last"},
                     {"in": "ranked"}),
            ],
        ),
        (
            Step("by_age", "aggregate", {"group_by": ["age"], "aggregations": [
                {"column": "amount", "function": "mean", "name": "amount"}]}, {"in": "read"}),
            [
                Step("first", "limit", {"n": 7}, {"in": "by_age"}),
                Step("old", "filter", {"condition": "age > 60"}, {"in": "by_age"}),
            ],
        ),
    ],
    ids=["natural order", "sorted", "aggregated"],
)  # fmt: skip
def test_exits_reading_a_part_computed_once_give_pandas_rows_in_pandas_order(people, part, readers):
    chain = [Step("read", "csv_input", {"path": "people.csv"}), part, *readers]
    exits = [reader.id for reader in readers]
    expected, schemas = run_pandas(chain, {}, people)
    actual, result = run_duckdb(chain, {}, schemas, people, exits)
    for exit in exits:
        assert_frames_match(actual[exit], expected[exit], ordered=True)
    assert result.rows == {step.id: len(expected[step.id]) for step in chain}


def self_joined_totals(folder, rows: int) -> tuple[r.Relation, r.Relation]:
    """Two exits reading the totals per key of t.csv joined with itself on a key of two values
    (rows² / 2 rows to add up)."""
    keys = np.arange(rows) % 2
    pd.DataFrame({"k": keys, "v": keys * 0.5}).to_csv(folder / "t.csv", index=False)
    scan = r.Scan("csv", "t.csv", CSV)
    columns = (r.JoinColumn("key", "k", "k"), r.JoinColumn("right", "v", "w"))
    joined = r.Join(scan, scan, "inner", (("k", "k"),), columns)
    totals = r.Aggregate(joined, ("k",), (r.AggregateCall("sum", "w", "total"),))
    return r.Filter(totals, "k = 1"), r.Limit(totals, 1)


def test_the_progress_of_a_segment_counts_its_shared_part_as_one_of_its_queries(tmp_path):
    one, first = self_joined_totals(tmp_path, 20_000)  # 200 million rows to add up
    shares = []
    result = run_segment(
        {"one": {"out": one}, "first": {"out": first}},
        [("one", "out"), ("first", "out")],
        {},
        files=tmp_path,
        spill_dir=tmp_path / "spill",
        on_progress=shares.append,
    )
    assert result.frames[("one", "out")]["total"].tolist() == [20_000**2 / 4 * 0.5]
    assert shares and all(0 <= share <= 1 / 3 for share in shares)  # the part: 1 query of 3


def test_stopping_interrupts_a_shared_part_being_computed(tmp_path):
    one, first = self_joined_totals(tmp_path, 200_000)  # 20 billion rows: never ends alone
    stops, stopped_at = [], []

    def stop_soon() -> None:
        deadline = time.monotonic() + 60
        while not stops and time.monotonic() < deadline:  # the segment is rendered first
            time.sleep(0.01)
        time.sleep(0.5)  # into the shared part's query
        stopped_at.append(time.monotonic())
        stops[0]()

    threading.Thread(target=stop_soon, daemon=True).start()
    with pytest.raises(NodeCancelled):
        run_segment(
            {"one": {"out": one}, "first": {"out": first}},
            [("one", "out"), ("first", "out")],
            {},
            files=tmp_path,
            spill_dir=tmp_path / "spill",
            on_stop=stops.append,
        )
    assert time.monotonic() - stopped_at[0] < 1.0
    assert not (tmp_path / "spill").exists()


def test_a_shared_part_larger_than_memory_spills_and_both_exits_finish(tmp_path):
    rows = 6_000_000  # 96 MB of values against a 64 MiB budget
    rng = np.random.default_rng(5)
    pq.write_table(pa.table({"k": rng.permutation(rows), "v": rng.random(rows)}), tmp_path / "b.pq")
    scan = r.Scan("parquet", "b.pq")
    joined = r.Join(scan, scan, "inner", (("k", "k"),), (r.JoinColumn("key", "k", "k"),
                    r.JoinColumn("left", "v", "v")))  # fmt: skip
    total = r.Aggregate(joined, (), (r.AggregateCall("size", None, "n"),))
    top = r.Limit(r.Sort(joined, (("k", False),)), 3)
    spill = tmp_path / "spill"
    peak = [0]

    def watch() -> None:
        while not done.is_set():
            try:  # DuckDB creates and removes the folder and its files as it goes
                sizes = [path.stat().st_size for path in spill.rglob("*") if path.is_file()]
            except FileNotFoundError:
                sizes = []
            peak[0] = max(peak[0], sum(sizes))
            time.sleep(0.01)

    done = threading.Event()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        result = run_segment(
            {"total": {"out": total}, "top": {"out": top}},
            [("total", "out"), ("top", "out")],
            {},
            files=tmp_path,
            spill_dir=spill,
            budget=Budget(64 * 2**20, 2),
        )
    finally:
        done.set()
        watcher.join()
    assert steps([total, top])[0].relation == joined
    assert result.frames[("total", "out")]["n"].tolist() == [rows]
    assert result.frames[("top", "out")]["k"].tolist() == [0, 1, 2]
    assert peak[0] > 64 * 2**20  # the part did not fit: it went to disk
    assert not spill.exists()


@bounded(80, tolerate=[HealthCheck.too_slow])
@given(random_frames(), random_frames(max_rows=6), random_chains(), st.data())
def test_random_chains_with_a_second_exit_midway_give_pandas_rows_on_duckdb(
    left, right, chain, data
):
    chain, _ = chain
    once = Step("p", "deduplicate", {}, {"in": "raw"})  # costly: what the exits share is kept
    midway = data.draw(st.sampled_from([once, *chain[:-1]]))
    exits = list(dict.fromkeys([chain[-1].id, midway.id]))
    with tempfile.TemporaryDirectory() as folder:
        frames = {"raw": left, "q": right}
        expected, schemas = run_pandas([once, *chain], frames, Path(folder))
        actual, result = run_duckdb([once, *chain], frames, schemas, Path(folder), exits)
    for exit in exits:  # the order of rows read from a stored part: the tests above
        assert_frames_match(actual[exit], expected[exit], ordered=False)
    known = {node: rows for node, rows in result.rows.items() if rows is not None}
    assert known.items() <= {step.id: len(expected[step.id]) for step in [once, *chain]}.items()
