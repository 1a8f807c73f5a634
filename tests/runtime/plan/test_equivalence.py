"""The optimized plan gives the same outputs as the plan as written: golden and random pipelines.

Each pipeline runs twice on its own copy of the data, once as built and once through
`optimize`, and everything it writes must be equal: the same files byte for byte (golden; an
Excel workbook row for row), the same rows, order and dtypes pandas reads back (random), the
same status per output node and the same first error.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime import cli
from runtime.checks.analysis import load_checked
from runtime.checks.inference import infer_schemas
from runtime.execution.executor import execute
from runtime.plan import build_plan
from runtime.plan.passes import optimize
from tests.runtime.plan.random_pipelines import pipelines, tables, write_tables
from tests.strategies import bounded

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
ROOT = GOLDEN.parents[1]


def schemas_of(document, parameters, data_root, connections=None):
    inferred = infer_schemas(
        document, parameters, data_root=data_root, connections=connections
    ).nodes
    return {node_id: schemas.outputs for node_id, schemas in inferred.items()}


def files_under(folder: Path) -> dict[str, object]:
    """Every file's bytes; an Excel workbook's rows (its bytes hold the time it was written)."""
    return {
        str(path.relative_to(folder)): (
            pd.read_excel(path).to_csv() if path.suffix == ".xlsx" else path.read_bytes()
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("name", sorted(p.parent.name for p in GOLDEN.glob("*/pipeline.json")))
def test_a_golden_pipeline_writes_the_same_files_once_optimized(name, tmp_path, monkeypatch):
    case = GOLDEN / name
    args = shlex.split((case / "args").read_text()) if (case / "args").exists() else []
    options = cli._parser().parse_args(["run", str(case / "pipeline.json"), *args])
    monkeypatch.chdir(ROOT)  # the args name files relative to the repository
    connections = cli._connections(options.connections)
    document = load_checked((case / "pipeline.json").read_text())
    parameters = dict(options.param)
    written = {}
    for variant in ("as_written", "optimized"):
        folder = tmp_path / variant
        shutil.copytree(case / "input", folder)
        plan = build_plan(document, parameters, data_root=folder)
        if variant == "optimized":
            plan = optimize(plan, schemas=schemas_of(document, parameters, folder, connections))
        result = execute(plan, data_root=folder, connections=connections)
        assert result.ok, result.error
        written[variant] = files_under(folder)
    assert written["optimized"] == written["as_written"]


def read_outputs(folder: Path, document) -> dict[str, pd.DataFrame]:
    paths = [node.params["path"] for node in document.nodes if node.operator == "parquet_output"]
    return {path: pd.read_parquet(folder / path) for path in paths if (folder / path).exists()}


@bounded(150, tolerate=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frames=tables(), data=st.data())
def test_a_random_pipeline_gives_the_same_outputs_once_optimized(frames, data, tmp_path_factory):
    folders = {variant: tmp_path_factory.mktemp(variant) for variant in ("as_written", "optimized")}
    for folder in folders.values():
        write_tables(folder, frames)
    document = data.draw(pipelines(folders["as_written"]))
    plan = build_plan(document)
    previewed = data.draw(st.sampled_from([None, *plan.order]))
    keep = [] if previewed is None else [previewed]
    optimized = optimize(plan, keep=keep, schemas=schemas_of(document, None, folders["optimized"]))
    results = {
        "as_written": execute(plan, data_root=folders["as_written"], retain=keep),
        "optimized": execute(optimized, data_root=folders["optimized"], retain=keep),
    }
    written, ran = results["as_written"], results["optimized"]
    assert ran.status == written.status
    assert ran.error == written.error
    outputs = [node_id for node_id in plan.order if plan.nodes[node_id].operator.kind == "output"]
    for node_id in outputs:
        assert ran.nodes[node_id].status == written.nodes[node_id].status, node_id
    expected = read_outputs(folders["as_written"], document)
    actual = read_outputs(folders["optimized"], document)
    assert actual.keys() == expected.keys()
    for path, frame in expected.items():
        pd.testing.assert_frame_equal(actual[path], frame, obj=path)
    if previewed is not None and (previewed, "out") in written.outputs:
        pd.testing.assert_frame_equal(
            ran.outputs[(previewed, "out")].reset_index(drop=True),
            written.outputs[(previewed, "out")].reset_index(drop=True),
        )
