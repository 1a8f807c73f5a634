"""`window` on DuckDB gives pandas' answer, in pandas' row order: random small frames (ties,
nulls in order keys and values, partitions of one row, empty tables) with random calls and
frames (hypothesis), and windows over inputs whose order comes from a sort or an aggregate."""

from __future__ import annotations

import datetime
from decimal import Decimal
from random import Random

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.document.spec import load_document
from runtime.errors import NotLowerable
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.tables.schema import date_dtype
from tests.runtime.backends.both import Step, assert_same, lower_all, run_pandas
from tests.strategies import bounded

VALUES = {
    "g": (["a", "b", "é", None], "str"),
    "k": ([None, -1, 0, 0, 2], "Int64"),
    "x": ([None, 0.5, -1.25, 2.0, 0.0], "float64"),
    "d": ([None, Decimal("1.10"), Decimal("-0.05"), Decimal("3.00")], None),
    "t": ([None, datetime.date(2024, 1, 1), datetime.date(2023, 5, 6)], None),
    "b": ([None, True, False], "boolean"),
}
DTYPES = {"d": pd.ArrowDtype(pa.decimal128(9, 2)), "t": date_dtype()}
NUMBERS = ["k", "x", "d"]
RANKINGS = ["row_number", "rank", "dense_rank", "percent_rank"]
FRAMED = ["first", "last", "sum", "mean", "min", "max", "count"]


def random_frame(rng: Random) -> pd.DataFrame:
    rows = rng.choice([0, 1, 2, 3, 6, 11])
    return pd.DataFrame(
        {
            name: pd.array([rng.choice(values) for _ in range(rows)], dtype=DTYPES.get(name, dtype))
            for name, (values, dtype) in VALUES.items()
        }
    )


def random_call(rng: Random, index: int) -> dict:
    function = rng.choice(
        ["row_number", "rank", "dense_rank", "percent_rank", "lag", "lead"] + FRAMED * 2
    )
    call: dict = {"function": function, "name": f"f{index}"}
    if function in ("sum", "mean"):
        call["column"] = rng.choice(NUMBERS)
    elif function in ("lag", "lead"):
        call["column"] = rng.choice(["g", "k", "x", "b"])
        call["offset"] = rng.choice([0, 1, 2, 5])
        if rng.random() < 0.5:
            call["default"] = {"g": "z", "k": 7, "x": 1.5, "b": True}[call["column"]]
    elif function in FRAMED and not (function == "count" and rng.random() < 0.3):
        call["column"] = rng.choice(list(VALUES))
    if function in FRAMED and rng.random() < 0.5:
        call["frame"] = {
            "preceding": rng.choice([None, 0, 1, 3]),
            "following": rng.choice([None, 0, 1, 2]),
        }
    return call


def random_params(rng: Random) -> dict:
    order = rng.sample(["k", "g", "x", "t", "b"], rng.choice([0, 1, 1, 2]))
    return {
        "partition_by": rng.sample(["g", "b"], rng.choice([0, 1, 1, 2])),
        "order_by": [{"column": name, "descending": rng.random() < 0.4} for name in order],
        "nulls_last": rng.random() < 0.7,
        "functions": [random_call(rng, index) for index in range(rng.randint(1, 4))],
    }


@bounded(25, tolerate=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32))
def test_random_windows_match_pandas_in_input_order(seed, tmp_path):
    rng = Random(seed)
    frame, params = random_frame(rng), random_params(rng)
    assert_same([Step("w", "window", params, {"in": "f"})], {"f": frame}, tmp_path, ordered={"w"})


def test_every_function_over_ties_and_nulls_matches_pandas(tmp_path):
    frame = next(f for f in map(random_frame, map(Random, range(100))) if len(f) == 11)
    functions = [{"function": f} for f in RANKINGS]
    functions += [
        {"function": f, "column": c, "frame": frame_}
        for f in FRAMED
        for c in (NUMBERS if f in ("sum", "mean") else list(VALUES))
        for frame_ in (None, {"preceding": 2, "following": 1})
    ]
    functions += [{"function": "lead", "column": "t", "offset": 2}]
    for index, call in enumerate(functions):
        call["name"] = f"f{index}"
    params = {"partition_by": ["b"], "order_by": [{"column": "k", "descending": True}]}
    step = Step("w", "window", {**params, "functions": functions}, {"in": "f"})
    assert_same([step], {"f": frame}, tmp_path, ordered={"w"})


def test_a_window_mean_of_decimals_past_15_digits_is_their_exact_sum_over_their_count(tmp_path):
    """10^17 + 0.01, -10^17 and 0.02 average to 0.01 (a mean of floats: 0.02 / 3)."""
    values = ["100000000000000000.01", "-100000000000000000", "0.02", None]
    prices = pa.array([None if v is None else Decimal(v) for v in values], pa.decimal128(38, 2))
    frame = pd.DataFrame(
        {
            "k": pd.array([1, 2, 3, 4], dtype="Int64"),
            "d": pd.Series(prices, dtype=pd.ArrowDtype(prices.type)),
        }
    )
    calls = [{"function": "mean", "column": "d", "name": "mean"}]
    params = {"order_by": [{"column": "k"}], "functions": calls}
    outputs = assert_same(
        [Step("w", "window", params, {"in": "f"})], {"f": frame}, tmp_path, ordered={"w"}
    )
    assert outputs["w"]["mean"].tolist() == [100000000000000000.01, 0.005, 0.01, 0.01]


def test_a_window_over_sorted_or_aggregated_rows_follows_their_order(tmp_path):
    frame = next(f for f in map(random_frame, map(Random, range(100))) if len(f) >= 6)
    running = {"functions": [{"function": "row_number"}, {"function": "sum", "column": "x"}]}
    ranked = {
        "order_by": [{"column": "n", "descending": True}],
        "functions": [{"function": "rank"}, {"function": "lag", "column": "g"}],
    }
    sizes = {"group_by": ["g"], "aggregations": [{"function": "size", "name": "n"}]}
    steps = [
        Step("s", "sort", {"by": [{"column": "k"}]}, {"in": "f"}),
        Step("w1", "window", running, {"in": "s"}),
        Step("a", "aggregate", sizes, {"in": "f"}),
        Step("w2", "window", ranked, {"in": "a"}),
    ]
    assert_same(steps, {"f": frame}, tmp_path, exits=["w1", "w2"], ordered={"w1", "w2"})


def test_a_window_whose_results_nothing_reads_is_pruned_on_both_backends(tmp_path):
    (tmp_path / "in.csv").write_text("g,k\na,1\nb,2\na,3\n")
    calls = [{"function": "rank", "name": "r"}, {"function": "sum", "column": "k", "name": "t"}]
    document = load_document(
        {
            "name": "pruned",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
                {"id": "w", "operator": "window",
                 "params": {"order_by": [{"column": "k"}], "functions": calls}},
                {"id": "keep", "operator": "select", "params": {"columns": ["g", "t"]}},
                {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
            ],
            "edges": [{"source": "read", "target": "w"}, {"source": "w", "target": "keep"},
                      {"source": "keep", "target": "write"}],
        }
    )  # fmt: skip
    for backend in ("pandas", "duckdb"):
        area = FileArea.of(tmp_path)
        plan = prepare(build_plan(document, data_root=area), backend=backend, data_root=area)
        assert plan.fallbacks == {}
        assert execute(plan, data_root=area).ok
        assert (tmp_path / "out.csv").read_text() == "g,t\na,1\nb,3\na,6\n", backend


def test_a_lag_default_on_a_datetime_column_stays_on_pandas(tmp_path):
    frame = pd.DataFrame({"t": pd.to_datetime(["2024-01-02 10:00", "2023-01-01 00:00"])})
    call = {"function": "lag", "column": "t", "default": "2020-01-01 00:00:00"}
    steps = [Step("w", "window", {"functions": [call]}, {"in": "f"})]
    _, schemas = run_pandas(steps, {"f": frame}, tmp_path)
    with pytest.raises(NotLowerable, match="datetime default of lag"):
        lower_all(steps, {"f": frame}, schemas)
