"""Partitioned runs on a real Dask cluster (a `LocalCluster` of two worker processes): a chain
over an input that names several files runs a partition per file, and gives what the run on
one machine gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from itertools import pairwise
from pathlib import Path

import pandas as pd
import pytest

from runtime.backends.dask import partitions
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.execution.tasks import tasks_of
from runtime.io.paths import FileArea
from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.contract import Operator, OperatorParams
from runtime.operators.registry import Registry
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.prepare import prepare

ROOT = Path(__file__).resolve().parents[3]
REGIONS = ["north", "south", "east", None]


def sales(folder: Path, files: int = 4, rows: int = 500, suffix: str = ".parquet") -> Path:
    """`files` files of sales under `folder/sales`, each a different slice of the rows."""
    (folder / "sales").mkdir(parents=True, exist_ok=True)
    for index in range(files):
        start = index * rows
        frame = pd.DataFrame(
            {
                "id": pd.Series(range(start, start + rows), dtype="Int64"),
                "region": pd.Series(
                    [REGIONS[(n * 7) % 4] for n in range(start, start + rows)], dtype="str"
                ),
                "amount": pd.Series([(n * 37) % 101 - 20 for n in range(rows)], dtype="Int64"),
                "price": [((n * 13) % 17) / 3 for n in range(rows)],
            }
        )
        path = folder / "sales" / f"part-{index}{suffix}"
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path)
    return folder


def document(path: str, *, chain: list[dict] | None = None, reader: str = "parquet_input"):
    chain = chain if chain is not None else [
        {"id": "positive", "operator": "filter", "params": {"condition": "amount > 0"}},
        {"id": "priced", "operator": "transform", "params": {"mappings": [
            {"target": "total", "expression": "amount * price"}]}},
    ]  # fmt: skip
    nodes = [
        {"id": "sales", "operator": reader, "params": {"path": path}},
        *chain,
        {"id": "by_region", "operator": "aggregate", "params": {
            "group_by": ["region"],
            "aggregations": [
                {"function": "size", "name": "rows"},
                {"column": "amount", "function": "sum"},
                {"column": "total", "function": "mean"},
                {"column": "price", "function": "min"},
                {"column": "id", "function": "max"},
                {"column": "amount", "function": "count"},
            ]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/by_region.csv"}},
    ]  # fmt: skip
    ids = [node["id"] for node in nodes]
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "partitioned",
        "config": {"backend": "pandas"},
        "nodes": nodes,
        "edges": [{"source": a, "target": b} for a, b in pairwise(ids)],
    }


def run(doc: dict, root: Path, cluster: str | None = None):
    area = FileArea(root)
    plan = prepare(build_plan(load_document(doc)), data_root=area, cluster=cluster)
    result = execute(plan, data_root=root)
    return plan, result


def written(root: Path) -> pd.DataFrame:
    return pd.read_csv(root / "out" / "by_region.csv", keep_default_na=False)


@pytest.mark.parametrize(
    ("path", "suffix", "reader"),
    [
        ("sales", ".parquet", "parquet_input"),
        ("sales/part-*.csv", ".csv", "csv_input"),
    ],
)
def test_a_chain_over_several_files_runs_a_partition_per_file_and_equals_the_local_run(
    cluster, tmp_path, path, suffix, reader
):
    local_root = sales(tmp_path / "local", suffix=suffix)
    remote_root = sales(tmp_path / "remote", suffix=suffix)
    doc = document(path, reader=reader)

    _, local = run(doc, local_root)
    plan, remote = run(doc, remote_root, cluster)

    assert local.status == remote.status == "succeeded", remote.error
    [segment] = plan.segments
    assert (segment.backend, segment.nodes) == (
        "dask",
        ("sales", "positive", "priced", "by_region"),
    )
    assert "partitioned:1 on dask (4 files, a partition each, on the Dask cluster at" in explain(
        plan
    )
    pd.testing.assert_frame_equal(written(remote_root), written(local_root), check_exact=False)
    for node in ("sales", "positive", "priced", "by_region", "write"):
        assert (remote.nodes[node].rows_in, remote.nodes[node].rows_out) == (
            local.nodes[node].rows_in,
            local.nodes[node].rows_out,
        ), node


def test_a_chain_that_does_not_work_row_by_row_runs_as_a_whole_and_says_why(cluster, tmp_path):
    root = sales(tmp_path)
    sort = [
        {"id": "sorted", "operator": "sort", "params": {"by": [{"column": "id"}]}},
        {"id": "priced", "operator": "transform", "params": {"mappings": [
            {"target": "total", "expression": "amount * price"}]}},
    ]  # fmt: skip
    plan, result = run(document("sales", chain=sort), root, cluster)

    assert result.status == "succeeded" and not plan.segments, result.error
    assert (
        "sales reads 4 files, but runs as a whole: sorted (Sort rows) does not work row by row"
        in (plan.notes)
    )


def test_a_file_with_other_columns_fails_the_segment_naming_the_file(cluster, tmp_path):
    root = sales(tmp_path)
    pd.DataFrame({"id": [1], "region": ["x"], "amount": [1.5], "price": [1.0]}).to_parquet(
        root / "sales" / "part-9.parquet"
    )
    _, result = run(document("sales"), root, cluster)

    assert result.status == "failed"
    assert "'sales/part-9.parquet' has other columns or types than 'sales/part-0.parquet'" in (
        result.error
    )
    assert not (root / "out" / "by_region.csv").exists()


def test_an_unreachable_scheduler_fails_the_run_naming_its_address(tmp_path, monkeypatch):
    monkeypatch.setattr(partitions, "CONNECT_TIMEOUT_S", 1)
    _, result = run(document("sales"), sales(tmp_path), "tcp://127.0.0.1:9")

    assert result.status == "failed"
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.error


def test_a_tls_scheduler_without_dask_tls_configuration_fails_the_run_saying_what_to_set(
    tmp_path,
):
    _, result = run(document("sales"), sales(tmp_path), "tls://127.0.0.1:9")

    assert result.status == "failed"
    assert "cannot connect to the Dask scheduler at tls://127.0.0.1:9: " in result.error
    assert "needs Dask's TLS configuration (DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in result.error


def test_the_cli_runs_partitions_on_the_cluster_it_is_given(cluster, tmp_path):
    root = sales(tmp_path)
    (tmp_path / "pipeline.json").write_text(json.dumps(document("sales")))
    command = [sys.executable, "-m", "runtime"]
    options = ["--data-root", str(root), "--dask", cluster]
    explained = subprocess.run(
        [*command, "explain", str(tmp_path / "pipeline.json"), *options],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    ran = subprocess.run(
        [*command, "run", str(tmp_path / "pipeline.json"), *options],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip

    assert "partitioned:1 on dask" in explained.stdout
    assert ran.returncode == 0, ran.stderr
    assert len(written(root)) == 4


def test_the_cli_sends_the_workers_a_data_root_given_relative_to_its_own_folder(cluster, tmp_path):
    """The workers' folder is not the command's: the data root travels made absolute."""
    root = sales(tmp_path / "here")
    (tmp_path / "pipeline.json").write_text(json.dumps(document("sales")))
    ran = subprocess.run(
        [sys.executable, "-m", "runtime", "run", "pipeline.json", "--data-root", "here",
         "--dask", cluster],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
    )  # fmt: skip

    assert ran.returncode == 0, ran.stderr
    assert len(written(root)) == 4


def test_a_partitioned_chain_reads_only_the_columns_its_aggregate_needs(cluster, tmp_path):
    doc = document("sales")
    doc["nodes"][3]["params"]["aggregations"] = [{"column": "amount", "function": "sum"}]
    plan, result = run(doc, sales(tmp_path), cluster)

    [segment] = plan.segments
    assert tasks_of(plan, set()).nodes[segment.id].operator.columns == {"region", "amount"}
    assert plan.nodes["priced"].params.mappings == []  # its total is read by nobody
    assert result.status == "succeeded", result.error


class Dawdle(Operator):
    """A row-wise step that takes `seconds` over every partition (importable by workers)."""

    name = "test_dawdle"
    kind = "process"
    title = "Dawdle"
    partitionable = True

    class Params(OperatorParams):
        seconds: float

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def run(self, ctx, inputs):
        time.sleep(ctx.params.seconds)
        return {"out": inputs["in"]}


def test_a_cancel_while_partitions_compute_ends_the_run_cancelled_and_writes_nothing(
    cluster, tmp_path
):
    root = sales(tmp_path, files=2)
    dawdle = [{"id": "slow", "operator": "test_dawdle", "params": {"seconds": 5}}]
    registry = Registry([Dawdle], lazy=BUILTIN_OPERATORS)
    doc = document("sales", chain=dawdle)
    doc["nodes"][2]["params"]["aggregations"] = [{"column": "amount", "function": "sum"}]
    area = FileArea(root)
    plan = prepare(
        build_plan(load_document(doc), registry=registry), data_root=area, cluster=cluster
    )
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()  # while every partition dawdles

    result = execute(plan, data_root=area, cancel_event=cancel)

    assert [segment.backend for segment in plan.segments] == ["dask"]
    assert result.status == "cancelled"
    assert result.nodes["by_region"].status == "cancelled"
    assert not (root / "out" / "by_region.csv").exists()
