"""A folder or a pattern scanned by DuckDB gives what pandas gives: the same files in the same
order, the same file name column, the same row counts; DuckDB is handed the checked list of
files, never a pattern of its own, and files that do not read alike stay on pandas."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.backends.duckdb import SegmentError
from runtime.backends.duckdb.scans import scan_sql
from runtime.document.spec import load_document
from runtime.errors import NotLowerable
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.operators.registry import default_registry
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import Step, assert_same, run_duckdb, run_pandas


@pytest.fixture
def root(tmp_path):
    area = tmp_path / "area"
    area.mkdir()
    return area


def write(root, name: str, text: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")


def monthly_csv(root, months=(3, 1, 2), rows=4) -> None:
    for month in months:
        lines = "".join(f"{month * 100 + i},r{i},{i * 0.5}\n" for i in range(rows))
        write(root, f"sales/2026-{month:02d}.csv", "id,name,score\n" + lines)
    write(root, "sales/2025-12.csv", "id,name,score\n1,old,0\n")


def monthly_parquet(root, months=(2, 1, 3)) -> None:
    (root / "sales").mkdir(parents=True, exist_ok=True)
    for month in months:
        frame = pd.DataFrame(
            {
                "k": pd.array([month, month + 1, None], dtype="Int64"),
                "v": [month * 1.5, None, 2.0],
                "s": [f"m{month}", None, "x"],
            }
        )
        frame.to_parquet(root / "sales" / f"2026-{month:02d}.parquet", index=False)


@pytest.mark.parametrize(
    "params",
    [{}, {"file_name_column": "file"}, {"columns": ["score", "id"], "file_name_column": "f"}],
    ids=["plain", "file name", "columns"],
)
def test_a_csv_pattern_scans_the_files_pandas_reads_in_the_same_order(root, params):
    monthly_csv(root)
    steps = [Step("read", "csv_input", {"path": "sales/2026-*.csv", **params})]
    actual = assert_same(steps, {}, root, ordered=["read"])
    assert actual["read"]["id"].tolist()[:5] == [100, 101, 102, 103, 200]


def test_a_csv_folder_with_header_and_skipped_lines_in_every_file(root):
    for name in ("b", "a"):
        write(root, f"in/{name}.txt", f"exported\n1;{name}\n2;{name}\n")
    steps = [Step("read", "csv_input", {"path": "in", "header": False, "delimiter": ";",
                                        "skip_rows": 1, "file_name_column": "from"})]  # fmt: skip
    actual = assert_same(steps, {}, root, ordered=["read"])
    assert actual["read"]["from"].tolist() == ["in/a.txt"] * 2 + ["in/b.txt"] * 2


def test_a_parquet_folder_through_a_filter_and_an_aggregate_equals_pandas(root):
    monthly_parquet(root)
    steps = [
        Step("read", "parquet_input", {"path": "sales", "file_name_column": "file"}),
        Step("some", "filter", {"condition": "v > 1"}, {"in": "read"}),
        Step("by_file", "aggregate", {"group_by": ["file"], "aggregations": [
            {"column": "v", "function": "sum", "name": "v"}]}, {"in": "some"}),
    ]  # fmt: skip
    assert_same(steps, {}, root, exits=["read", "by_file"], ordered=["read"])


def test_a_scan_of_many_files_reports_the_rows_pandas_reads(root):
    monthly_csv(root, months=range(1, 10), rows=3)  # more files than a profile names
    steps = [
        Step("read", "csv_input", {"path": "sales/**/2026-*.csv"}),
        Step("some", "filter", {"condition": "score > 0.2"}, {"in": "read"}),
        Step("sorted", "sort", {"by": [{"column": "id"}]}, {"in": "some"}),
    ]
    expected, schemas = run_pandas(steps, {}, root)
    _, result = run_duckdb(steps, {}, schemas, root, ["sorted"])
    assert result.rows == {step.id: len(expected[step.id]) for step in steps}
    assert result.rows["read"] == 27


def rendered_scan(root, operator: str, path: str):
    """The SQL of the scan `operator` lowers to when reading `path`."""
    input_operator = default_registry().get(operator)
    params = input_operator.Params.model_validate({"path": path})
    return scan_sql(input_operator.lower(params, {}, {})["out"], FileArea(root))


def test_duckdb_is_given_the_checked_files_as_a_bound_list_never_the_pattern(root):
    monthly_parquet(root)
    rendered = rendered_scan(root, "parquet_input", "sales/2026-0[12].parquet")
    assert "2026-0" not in rendered.sql and "?" in rendered.sql
    assert rendered.params == (
        [str((root / f"sales/2026-0{m}.parquet").resolve()) for m in (1, 2)],
    )
    assert [file.name for file in rendered.files] == [
        "sales/2026-01.parquet",
        "sales/2026-02.parquet",
    ]


@pytest.mark.parametrize(
    "second",
    ["name,id,score\nx,1,0.5\n", "id,name,score\nx,y,0.5\n", "id,name\n1,x\n"],
    ids=["other order", "other type", "other columns"],
)
def test_files_that_do_not_read_like_the_first_stay_on_pandas(root, second):
    write(root, "in/a.csv", "id,name,score\n1,a,0.5\n")
    write(root, "in/b.csv", second)
    with pytest.raises(NotLowerable, match=r"'in/b\.csv' does not read like 'in/a\.csv'"):
        rendered_scan(root, "csv_input", "in")


def test_a_file_whose_real_path_holds_a_wildcard_stays_on_pandas(root):
    write(root, "in/a[1].csv", "id\n1\n")
    with pytest.raises(NotLowerable, match=r"'in/a\[1\]\.csv' has wildcard characters"):
        rendered_scan(root, "csv_input", "in")


def test_a_file_name_column_that_would_hide_duckdbs_file_index_stays_on_pandas(root):
    write(root, "in/a.csv", "id,file_index\n1,7\n")
    steps = [Step("read", "csv_input", {"path": "in/*.csv", "file_name_column": "f"})]
    _, schemas = run_pandas(steps, {}, root)
    with pytest.raises(NotLowerable, match="file name column 'f' is added on pandas"):
        run_duckdb(steps, {}, schemas, root, ["read"])


def test_a_link_out_of_the_area_in_a_pattern_fails_naming_the_node_and_the_file(root):
    monthly_csv(root)
    secret = root.parent / "secret.csv"
    secret.write_text("id,name,score\n9,hunter2,1\n")
    (root / "sales" / "2026-04.csv").symlink_to(secret)
    steps = [Step("read", "csv_input", {"path": "sales/2026-*.csv"})]
    with pytest.raises(SegmentError) as caught:
        run_duckdb(steps, {}, {}, root, ["read"])
    assert str(caught.value).startswith(
        "node 'read': 'sales/2026-04.csv' (named by 'sales/2026-*.csv') leads outside the data "
        "root through a symbolic link"
    )
    assert not caught.value.retryable


def test_a_bad_value_in_a_later_file_fails_naming_the_node_and_that_file(root):
    monthly_csv(root)
    rows = "".join(f"{i},n,0.5\n" for i in range(150_000)) + "oops,n,0.5\n"  # past a block
    write(root, "sales/2026-04.csv", "id,name,score\n" + rows)
    steps = [Step("read", "csv_input", {"path": "sales/2026-*.csv"})]
    _, schemas = run_pandas([Step("read", "csv_input", {"path": "sales/2026-01.csv"})], {}, root)
    with pytest.raises(SegmentError) as caught:
        run_duckdb(steps, {}, schemas, root, ["read"])
    assert caught.value.node == "read"
    assert "sales/2026-04.csv" in str(caught.value) and str(root) not in str(caught.value)


def monthly_document(written: str):
    return load_document(
        {
            "name": "monthly",
            "nodes": [
                {"id": "read", "operator": "parquet_input",
                 "params": {"path": "sales/*.parquet", "file_name_column": "file"}},
                {"id": "some", "operator": "filter", "params": {"condition": "k > 1"}},
                {"id": "write", "operator": "csv_output", "params": {"path": written}},
            ],
            "edges": [{"source": "read", "target": "some"}, {"source": "some", "target": "write"}],
        }
    )  # fmt: skip


def test_a_pipeline_reading_a_pattern_runs_in_one_duckdb_segment_writing_what_pandas_writes(
    root,
):
    monthly_parquet(root)
    area = FileArea(root)
    for backend in ("pandas", "duckdb"):
        document = monthly_document(f"out/{backend}.csv")
        plan = prepare(build_plan(document), backend=backend, data_root=area)
        assert execute(plan, data_root=area).ok
    assert [segment.nodes for segment in plan.segments] == [("read", "some", "write")]
    written = (root / "out" / "pandas.csv").read_text()
    assert (root / "out" / "duckdb.csv").read_text() == written
    assert "sales/2026-03.parquet" in written
