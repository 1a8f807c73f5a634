"""Reuse: a run re-executes exactly what an edit changed, on either backend, and its outputs
are those of a run without the store."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from runtime.cache.store import ResultStore
from runtime.io.paths import CACHE
from runtime.plan.reuse.reuse_pass import SMALL_INPUT
from runtime.plan.run_options import RunOptions
from tests.runtime.cache.runs import ALL, node_params, ran, reused, run, seed_document, write_data

BACKENDS = ["pandas", "duckdb"]


@pytest.fixture
def root(tmp_path):
    write_data(tmp_path)
    return tmp_path


def output(root) -> pd.DataFrame:
    return by_country(pd.read_csv(root / "out" / "pipewright.csv"))


def by_country(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in country order: on this data the join's row order differs between the backends
    with or without the store (a difference noted apart), and these tests are about values."""
    return frame.sort_values("country", ignore_index=True)


def expected(document, root, **options) -> pd.DataFrame:
    """The output of the same document run without the store, in a folder of its own."""
    other = root / "no-store"
    other.mkdir(exist_ok=True)
    for name in ("users.csv", "countries.csv"):
        (other / name).write_bytes((root / name).read_bytes())
    run(document, other, store=False, **options)
    return output(other)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unchanged_pipeline_runs_nothing_the_second_time(root, backend):
    document = seed_document()
    assert ran(run(document, root, backend=backend)) == ALL
    written = (root / "out" / "pipewright.csv").stat().st_mtime_ns
    again = run(document, root, backend=backend)
    assert ran(again) == set() and reused(again) == ALL
    for node in again.nodes.values():
        assert (node.status, node.reason, node.extra["cached"]) == (
            "succeeded",
            "reused from the cache",
            True,
        )
    assert (root / "out" / "pipewright.csv").stat().st_mtime_ns == written


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reused_node_shows_the_figures_of_the_run_that_stored_it(root, backend):
    document = seed_document()
    first = run(document, root, backend=backend)
    again = run(document, root, backend=backend)
    for node_id, node in again.nodes.items():
        assert node.rows_in == first.nodes[node_id].rows_in, node_id
        if node_id != "write":  # an output passes no rows on
            assert node.rows_out == first.nodes[node_id].rows_out, node_id
    assert again.totals["reused"] == sorted(ALL)
    assert (again.totals["rows_read"], again.totals["rows_written"]) == (0, 0)
    assert first.totals["rows_written"] > 0 and first.totals["reused"] == []


@pytest.mark.parametrize(
    ("backend", "recomputed"),
    # on DuckDB the segment stored only the filter's rows (the top of the aggregate's row-wise
    # input): the transform between them runs again over those rows, not over the file
    [("pandas", set()), ("duckdb", {"enrich"})],
)
def test_editing_the_aggregate_runs_only_it_and_what_follows(root, backend, recomputed):
    document = seed_document()
    run(document, root, backend=backend)
    node_params(document, "by_country")["aggregations"][2]["function"] = "max"
    again = run(document, root, backend=backend)
    assert ran(again) == {"by_country", "named", "write", *recomputed}
    assert {"users", "adults"} <= reused(again)
    pd.testing.assert_frame_equal(output(root), expected(document, root, backend=backend))


@pytest.fixture
def large(tmp_path):
    """The seed's data with a users.csv over `SMALL_INPUT` (1 MiB), and a copy of it apart."""
    write_data(tmp_path, rows=30_000)
    assert (tmp_path / "users.csv").stat().st_size > SMALL_INPUT
    original = tmp_path / "original"
    original.mkdir()
    for name in ("users.csv", "countries.csv"):
        (original / name).write_bytes((tmp_path / name).read_bytes())
    return tmp_path


def rewrite_in_place(users) -> None:
    """Other countries in the file, keeping its size, inode and time (over 1 MiB, so not
    hashed): a run that read it again would count them."""
    before = users.stat()
    with users.open("r+b") as file:
        file.write(users.read_bytes().replace(b",FR,", b",DE,"))
    os.utime(users, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize(
    ("backend", "first_edit_reads"),
    # on DuckDB the first run stored no rows of the large file's chain: the first edit of the
    # transform reads the file again and stores the filter's rows
    [("pandas", set()), ("duckdb", {"users", "adults"})],
)
def test_editing_the_transform_again_reruns_it_from_the_stored_filter_rows_not_the_file(
    large, backend, first_edit_reads
):
    """The input file is rewritten in place before the second edit: that run reads the
    filter's stored rows instead and equals a fresh run over the data the first runs saw."""
    document = seed_document()
    run(document, large, backend=backend)
    node_params(document, "enrich")["mappings"][0]["expression"] = "amount * 0.7"
    first = run(document, large, backend=backend)
    assert ran(first) == {"enrich", "by_country", "named", "write", *first_edit_reads}
    rewrite_in_place(large / "users.csv")
    node_params(document, "enrich")["mappings"][0]["expression"] = "amount * 0.5"
    again = run(document, large, backend=backend)
    assert ran(again) == {"enrich", "by_country", "named", "write"}
    assert {"users", "adults", "countries"} <= reused(again)
    assert again.nodes["adults"].extra["cached"] is True
    original = large / "original"
    pd.testing.assert_frame_equal(output(large), expected(document, original, backend=backend))


def test_a_first_run_stores_no_rows_of_a_large_input_until_an_edit_below_it(large):
    """On DuckDB a run of a plan never edited stores the small results (the aggregate's, the
    join's) but not the filter's rows over the large file; once the aggregate was edited, the
    run stores them, and the next edit of the aggregate reads them, not the file."""
    document = seed_document()
    assert ("adults", "out") not in stored_ports(document, large)
    first = run(document, large, backend="duckdb")
    assert "results" not in first.nodes["adults"].extra
    node_params(document, "by_country")["aggregations"][2]["function"] = "max"
    assert ("adults", "out") in stored_ports(document, large)
    edited = run(document, large, backend="duckdb")
    assert "users" in ran(edited) and "out" in edited.nodes["adults"].extra["results"]
    node_params(document, "by_country")["aggregations"][2]["function"] = "min"
    again = run(document, large, backend="duckdb")
    assert ran(again) == {"enrich", "by_country", "named", "write"}
    pd.testing.assert_frame_equal(output(large), expected(document, large, backend="duckdb"))


def test_editing_a_filter_over_a_large_file_a_second_time_reads_the_scan_from_the_store(
    large,
):
    """On DuckDB the first edit of the filter reads the file and stores its scan (the rows
    the filter reads, the columns read below it); the second reads that, not the file."""
    document = seed_document()
    run(document, large, backend="duckdb")
    node_params(document, "adults")["condition"] = "age > 40"
    assert "users" in ran(run(document, large, backend="duckdb"))
    rewrite_in_place(large / "users.csv")
    node_params(document, "adults")["condition"] = "age > 30"
    again = run(document, large, backend="duckdb")
    assert ran(again) == {"adults", "enrich", "by_country", "named", "write"}
    assert "users" in reused(again)
    original = large / "original"
    pd.testing.assert_frame_equal(output(large), expected(document, original, backend="duckdb"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_editing_a_filter_runs_it_and_what_follows_but_not_the_inputs(root, backend):
    document = seed_document()
    run(document, root, backend=backend)
    node_params(document, "adults")["condition"] = "age > 40"
    again = run(document, root, backend=backend)
    assert {"adults", "enrich", "by_country", "named", "write"} <= ran(again)
    assert {"countries"} <= reused(again)
    pd.testing.assert_frame_equal(output(root), expected(document, root, backend=backend))


def test_a_pipeline_parameter_is_part_of_the_key(root):
    document = seed_document()
    run(document, root, parameters={"min_age": 18})
    again = run(document, root, parameters={"min_age": 60})
    assert "adults" in ran(again) and "users" not in ran(again)
    pd.testing.assert_frame_equal(
        output(root), expected(document, root, parameters={"min_age": 60})
    )
    assert ran(run(document, root, parameters={"min_age": 18})) == {"write"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_input_file_touched_is_read_again(root, backend):
    document = seed_document()
    run(document, root, backend=backend)
    os.utime(root / "users.csv")
    assert "users" in ran(run(document, root, backend=backend))


def test_an_input_file_replaced_with_one_of_the_same_size_and_time_is_read_again(root):
    document = seed_document()
    run(document, root)
    users = root / "users.csv"
    before = users.stat()
    text = users.read_text()
    users.write_text(text.replace(",FR,", ",DE,", 1))  # same length, other content
    os.utime(users, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert users.stat().st_size == before.st_size
    again = run(document, root)
    assert {"users", "by_country", "write"} <= ran(again)
    pd.testing.assert_frame_equal(output(root), expected(document, root))


def test_reading_other_columns_downstream_recomputes_the_pruned_results(root):
    document = seed_document()
    run(document, root, backend="duckdb")
    node_params(document, "by_country")["aggregations"][0] = {
        "column": "name",
        "function": "count",
        "name": "users",
    }
    again = run(document, root, backend="duckdb")
    assert "enrich" in ran(again)
    pd.testing.assert_frame_equal(output(root), expected(document, root, backend="duckdb"))


@pytest.mark.parametrize("first, second", [("pandas", "duckdb"), ("duckdb", "pandas")])
def test_results_stored_by_one_backend_are_reused_by_the_other(root, first, second):
    document = seed_document()
    run(document, root, backend=first)
    node_params(document, "enrich")["mappings"][0]["expression"] = "amount * 0.5"
    again = run(document, root, backend=second)
    assert ran(again) == {"enrich", "by_country", "named", "write"}
    pd.testing.assert_frame_equal(output(root), expected(document, root, backend=second))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_metrics_name_each_stored_result_and_it_reads_back(root, backend):
    result = run(seed_document(), root, backend=backend)
    store = ResultStore(root / CACHE)
    write = result.nodes["write"].extra["results"]
    assert set(write) == {"in"}
    stored = by_country(pd.read_parquet(store.path_of(write["in"])))
    pd.testing.assert_frame_equal(stored, output(root), check_dtype=False)
    adults = result.nodes["adults"].extra["results"]["out"]
    assert len(pd.read_parquet(store.path_of(adults))) == result.nodes["adults"].rows_out


def test_a_removed_output_file_is_written_again_and_nothing_else_runs(root):
    document = seed_document()
    run(document, root)
    (root / "out" / "pipewright.csv").unlink()
    assert ran(run(document, root)) == {"write"}
    pd.testing.assert_frame_equal(output(root), expected(document, root))


def test_a_changed_output_file_is_written_again(root):
    document = seed_document()
    run(document, root)
    target = root / "out" / "pipewright.csv"
    text = target.read_text()
    target.write_text(text.replace("F", "X", 1))  # same size, other content
    assert ran(run(document, root)) == {"write"}
    assert target.read_text() == text


def test_an_append_output_always_runs(root):
    document = seed_document()
    node_params(document, "write")["mode"] = "append"
    run(document, root)
    again = run(document, root)
    assert ran(again) == {"write"}
    assert len(output(root)) == 2 * len(expected(seed_document(), root))


def test_config_cache_off_neither_reuses_nor_stores(root):
    document = seed_document(cache=False)
    run(document, root)
    again = run(document, root)
    assert ran(again) == ALL
    assert "results" not in again.nodes["enrich"].extra
    assert not (root / CACHE).exists()


def test_a_fresh_run_ignores_stored_results_and_stores_new_ones(root):
    document = seed_document()
    run(document, root)
    assert ran(run(document, root, options=RunOptions(fresh=True))) == ALL
    assert ran(run(document, root)) == set()


def test_a_sample_without_a_seed_is_never_reused_and_neither_is_what_follows(root):
    document = seed_document()
    document["nodes"].append({"id": "some", "operator": "sample", "params": {"n": 10}})
    document["edges"] = [
        {"source": "enrich", "target": "some"} if edge["target"] == "by_country" else edge
        for edge in document["edges"]
    ] + [{"source": "some", "target": "by_country"}]
    run(document, root)
    assert {"some", "by_country", "write"} <= ran(run(document, root))
    node_params(document, "some")["seed"] = 7
    run(document, root)
    assert ran(run(document, root)) == set()


def test_run_up_to_a_node_runs_its_ancestors_only_and_stores_it(root):
    document = seed_document()
    up_to = run(document, root, options=RunOptions(up_to="enrich"))
    assert ran(up_to) == {"users", "adults", "enrich"}
    for node_id in ("by_country", "countries", "named", "write"):
        node = up_to.nodes[node_id]
        assert (node.status, node.reason) == ("skipped", "left out: the run goes up to enrich")
    assert "out" in up_to.nodes["enrich"].extra["results"]
    assert not (root / "out").exists()
    assert ran(run(document, root)) == {"by_country", "countries", "named", "write"}


def test_run_from_a_node_reruns_it_and_everything_below(root):
    document = seed_document()
    run(document, root)
    again = run(document, root, options=RunOptions(from_node="by_country"))
    assert ran(again) == {"by_country", "named", "write"}


def test_a_run_option_naming_no_node_is_refused(root):
    from runtime.plan.prepare import UnknownNode

    with pytest.raises(UnknownNode, match="--up-to: the pipeline has no node 'nope'"):
        run(seed_document(), root, options=RunOptions(up_to="nope"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_result_evicted_after_planning_fails_its_node_saying_to_run_again(root, backend):
    import json

    from runtime.document.spec import load_document
    from runtime.execution.events import ListSink
    from runtime.execution.executor import execute
    from runtime.io.paths import FileArea
    from runtime.plan import build_plan
    from runtime.plan.prepare import prepare

    document = seed_document()
    run(document, root, backend=backend)
    node_params(document, "by_country")["aggregations"][2]["function"] = "max"
    area = FileArea(root, cache=root / CACHE)
    plan = build_plan(load_document(json.dumps(document)), data_root=area)
    plan = prepare(plan, backend=backend, data_root=area, options=RunOptions())
    for entry in (root / CACHE).rglob("*.parquet"):
        entry.unlink()
    result = execute(plan, data_root=area, sinks=[ListSink()])
    assert result.status == "failed"
    assert result.error.endswith(
        "its stored result was removed meanwhile (the store keeps a bounded size); run again"
    )
    assert str(root) not in result.error


def stored_ports(document: dict, root) -> set:
    """What a run of `document` on DuckDB would store beyond its tasks' outputs."""
    import json

    from runtime.document.spec import load_document
    from runtime.io.paths import FileArea
    from runtime.plan import build_plan
    from runtime.plan.prepare import prepare

    area = FileArea(root, cache=root / CACHE)
    plan = build_plan(load_document(json.dumps(document)), data_root=area)
    return prepare(plan, backend="duckdb", data_root=area, options=RunOptions()).stored


def test_a_chain_is_kept_after_its_last_filter_never_above_it(root):
    """users → slim (select) → adults (filter) → enrich (transform) → by_country: the filter's
    rows are kept, no more rows than the aggregate reads; the select above it keeps as many
    rows as the file. (users.csv is small here: its chain is stored from the first run.)"""
    document = seed_document()
    slim = {"id": "slim", "operator": "select", "params": {"columns": ["id", "age", "country"]}}
    document["nodes"].append(slim)
    node_params(document, "enrich")["mappings"] = [{"target": "older", "expression": "age + 1"}]
    node_params(document, "by_country")["aggregations"] = [
        {"column": "id", "function": "count", "name": "users"}
    ]
    document["edges"] = [edge for edge in document["edges"] if edge["source"] != "users"] + [
        {"source": "users", "target": "slim"},
        {"source": "slim", "target": "adults"},
    ]
    assert ("adults", "out") in stored_ports(document, root)
    assert not {("slim", "out"), ("enrich", "out")} & stored_ports(document, root)
    double = {"target": "double", "expression": "age * 2"}
    document["nodes"][1] = {
        "id": "adults",
        "operator": "transform",
        "params": {"mappings": [double]},
    }
    assert ("slim", "out") in stored_ports(document, root)  # no filter: the chain's top


def test_an_aggregate_stored_inside_a_segment_is_computed_once(root, monkeypatch):
    """The aggregate's rows carry their order in hidden columns, which its stored file does
    not hold: the segment computes them once into a table that the file is copied from and
    the join reads, not again from users.csv for the join."""
    import runtime.backends.duckdb.segment as segment

    profiles = []  # of each query the segment ran
    opened = segment.open_session

    class Recording:
        def __init__(self, connection):
            self._connection = connection

        def get_profiling_information(self):
            profiles.append(self._connection.get_profiling_information())
            return profiles[-1]

        def __getattr__(self, name):
            return getattr(self._connection, name)

    monkeypatch.setattr(segment, "open_session", lambda *a, **k: Recording(opened(*a, **k)))
    result = run(seed_document(), root, backend="duckdb")
    assert "out" in result.nodes["by_country"].extra["results"]
    assert sum("GROUP_BY" in profile for profile in profiles) == 1, profiles
    pd.testing.assert_frame_equal(output(root), expected(seed_document(), root, backend="duckdb"))
