"""The DuckDB session reads only what the segment reads and writes only its spill folder:
paths out of the workspace, symlinks out, SQL that reaches for other files, databases or
extensions, and unlocking the configuration are all refused, in messages with no server path."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from runtime import relational as r
from runtime.backends.duckdb import SegmentError, run_segment
from runtime.backends.duckdb.messages import readable
from runtime.backends.duckdb.session import open_session
from runtime.budget import Budget
from runtime.errors import UnsafePathError
from tests.runtime.backends.both import Step, assert_same

BUDGET = Budget(memory_bytes=256 * 2**20, threads=1)


@pytest.fixture
def area(tmp_path):
    root = tmp_path / "workspace"
    (root / "data").mkdir(parents=True)
    (root / "data" / "in.csv").write_text("a,b\n1,x\n")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "secret.csv").write_text("password\nhunter2\n")
    return root


def scan_of(path: str) -> r.Scan:
    return r.Scan("csv", path, (("delimiter", ","), ("header", True), ("skip_rows", 0)))


def run_scan(area, path: str):
    members = {"read": {"out": scan_of(path)}}
    return run_segment(
        members, [("read", "out")], {}, files=area, spill_dir=area.parent / "spill", budget=BUDGET
    )


@pytest.mark.parametrize(
    "path", ["../secret/secret.csv", "/etc/passwd", "data/../../secret/secret.csv"]
)
def test_a_scan_outside_the_workspace_is_refused_naming_the_path_as_written(area, path):
    with pytest.raises(SegmentError) as caught:
        run_scan(area, path)
    assert str(caught.value).startswith(f"node 'read': path '{path}' is outside the data root")
    assert str(area.parent) not in str(caught.value)
    assert isinstance(caught.value.__cause__, UnsafePathError) and not caught.value.retryable


def test_a_symlink_pointing_out_of_the_workspace_is_refused(area):
    (area / "data" / "link.csv").symlink_to(area.parent / "secret" / "secret.csv")
    with pytest.raises(SegmentError, match=r"node 'read': path 'data/link\.csv' is outside"):
        run_scan(area, "data/link.csv")


@pytest.fixture
def session(area, tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    connection = open_session([area / "data" / "in.csv"], spill, BUDGET)
    yield connection
    connection.close()


def test_the_session_reads_the_segment_file(session, area):
    rows = session.sql("SELECT * FROM read_csv(?)", params=[str(area / "data" / "in.csv")])
    assert rows.fetchall() == [(1, "x")]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv('{secret}/secret.csv')",
        "SELECT * FROM read_text('{secret}/secret.csv')",
        "SELECT * FROM glob('{secret}/*')",
        "SELECT * FROM read_csv('{area}/data/*.csv')",
        "ATTACH '{secret}/other.db' AS other",
        "COPY (SELECT 1) TO '{secret}/out.csv'",
        "COPY (SELECT 1) TO '{area}/data/out.csv'",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "SET allowed_directories = ['/']",
        "SET memory_limit = '100GB'",
        "PRAGMA threads = 64",
    ],
)
def test_sql_reaching_past_the_lock_is_refused_without_server_paths(session, area, statement):
    text = statement.format(secret=area.parent / "secret", area=area)
    with pytest.raises(duckdb.Error) as caught:
        session.execute(text)
    message = readable(str(caught.value), {})
    assert str(area.parent) not in message and "/etc" not in message and "/root" not in message
    assert not (area / "data" / "out.csv").exists()


def test_a_column_name_made_of_sql_is_only_ever_a_name(area):
    name = "x\" FROM read_csv('/etc/passwd') --"
    frames = {"p": pd.DataFrame({name: pd.array([1, 2], dtype="Int64"), "b": [1.0, None]})}
    steps = [
        Step("s", "select", {"columns": [name]}, {"in": "p"}),
        Step("d", "drop_nulls", {"columns": [name]}, {"in": "s"}),
        Step(
            "t",
            "transform",
            {"mappings": [{"target": name, "expression": f"`{name}` * 2"}]},
            {"in": "d"},
        ),
    ]
    actual = assert_same(steps, frames, area, ordered=["t"])
    assert actual["t"].to_dict("list") == {name: [2, 4]}


def test_a_text_value_made_of_sql_is_a_bound_value(area):
    frames = {"p": pd.DataFrame({"s": pd.array(["a", "x' OR 1=1 --", None], dtype="str")})}
    steps = [
        Step("f", "filter", {"condition": "s != 'x\\' OR 1=1 --'"}, {"in": "p"}),
        Step(
            "g", "fill_nulls", {"values": {"s": "'); COPY (SELECT 1) TO '/tmp/x.csv"}}, {"in": "f"}
        ),
    ]
    assert_same(steps, frames, area, ordered=["g"])


def test_a_bad_value_late_in_a_csv_file_fails_naming_the_node_and_the_file_as_written(area):
    (area / "data" / "late.csv").write_text(
        "a,b\n" + "".join(f"{i},x\n" for i in range(200_000)) + "oops,y\n"
    )
    with pytest.raises(SegmentError) as caught:
        run_scan(area, "data/late.csv")
    message = str(caught.value)
    assert message.startswith("node 'read': ") and "oops" in message
    assert str(area) not in message


def test_messages_name_files_as_the_document_does_and_hide_other_server_paths():
    known = {"/srv/pw/workspaces/7/data/in.csv": "data/in.csv"}
    message = (
        'Conversion Error: in file "/srv/pw/workspaces/7/data/in.csv" near /srv/pw/tmp/3/x.tmp'
    )
    assert readable(message, known) == 'in file "data/in.csv" near x.tmp'


def test_a_missing_file_fails_naming_the_node_and_the_path_as_written(area):
    with pytest.raises(SegmentError) as caught:
        run_scan(area, "data/nope.csv")
    assert str(caught.value) == (
        "node 'read': input file 'data/nope.csv' not found under the data root; "
        "did you mean 'data/in.csv'?"
    )
