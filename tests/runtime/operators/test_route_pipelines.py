"""`route` in whole pipelines: its ports are real ports for validation, the plan, both backends
and the result store."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from runtime.checks.analysis import validate
from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.prepare import prepare
from tests.runtime.cache.runs import ran, run

CONDITIONS = [
    {"name": "minors", "condition": "age < 18"},
    {"name": "french", "condition": "country = 'FR'"},
    {"name": "rich", "condition": "amount > 50"},
]


def routed(mode: str = "first", conditions=CONDITIONS) -> dict:
    """users.csv → route → one CSV output per port."""
    ports = [condition["name"] for condition in conditions] + ["otherwise"]
    return {
        "name": "routing",
        "nodes": [
            {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
            {
                "id": "split",
                "operator": "route",
                "params": {"conditions": copy.deepcopy(conditions), "mode": mode},
            },
            *(
                {"id": f"w_{port}", "operator": "csv_output", "params": {"path": f"{port}.csv"}}
                for port in ports
            ),
        ],
        "edges": [
            {"source": "users", "target": "split"},
            *({"source": "split", "source_port": port, "target": f"w_{port}"} for port in ports),
        ],
    }


@pytest.fixture
def users(tmp_path):
    rng = np.random.default_rng(3)
    rows = 3000
    age = rng.integers(1, 90, rows).astype("float")
    age[rng.random(rows) < 0.1] = np.nan  # nulls: a null condition is false on both backends
    pd.DataFrame(
        {
            "id": np.arange(rows),
            "age": age,
            "country": rng.choice(["FR", "DE", "é", None], rows),
            "amount": rng.uniform(0, 100, rows).round(2),
        }
    ).to_csv(tmp_path / "users.csv", index=False)
    return tmp_path


def written(root, ports) -> dict[str, list[int]]:
    return {port: sorted(pd.read_csv(root / f"{port}.csv")["id"].tolist()) for port in ports}


@pytest.mark.parametrize("mode", ["first", "all"])
def test_pandas_and_duckdb_route_the_same_rows(users, mode):
    ports = ["minors", "french", "rich", "otherwise"]
    run(routed(mode), users, backend="pandas", store=False)
    on_pandas = written(users, ports)
    result = run(routed(mode), users, backend="duckdb", store=False)
    assert result.nodes["split"].extra.get("backend", "duckdb") == "duckdb"
    assert written(users, ports) == on_pandas
    frame = pd.read_csv(users / "users.csv")
    minors = frame["age"] < 18
    french = frame["country"] == "FR"
    rich = frame["amount"] > 50
    if mode == "first":
        assert on_pandas["french"] == sorted(frame["id"][french & ~minors])
        assert on_pandas["rich"] == sorted(frame["id"][rich & ~minors & ~french])
    else:
        assert on_pandas["rich"] == sorted(frame["id"][rich])
    assert on_pandas["otherwise"] == sorted(frame["id"][~(minors | french | rich)])


def test_the_route_runs_inside_the_duckdb_segment(users):
    area = FileArea.of(users)
    plan = prepare(build_plan(load_document(routed())), backend="duckdb", data_root=area)
    assert [segment.backend for segment in plan.segments] == ["duckdb"]
    assert "split" in plan.segments[0].nodes
    assert "split" in explain(plan)


def test_an_edge_from_a_removed_condition_is_a_problem_naming_node_and_port():
    document = routed()
    document["nodes"][1]["params"]["conditions"] = CONDITIONS[1:]  # "minors" removed
    problems = validate(load_document(document))
    assert [(p.code, p.node, p.field, p.message) for p in problems] == [
        (
            "unknown_port",
            "split",
            "outputs.minors",
            "there is no output port 'minors'; its output ports are: french, rich, otherwise",
        ),
        (
            "unconnected_port",
            "w_minors",
            "inputs.in",
            "input port 'in' is not connected; connect an edge to it",
        ),
    ]


def test_edges_wait_while_the_conditions_are_not_valid():
    """A half-typed condition name is a params problem, not also a problem for every edge."""
    document = routed()
    document["nodes"][1]["params"]["conditions"][0]["name"] = "min ors"
    problems = validate(load_document(document))
    assert [(p.code, p.field) for p in problems] == [("invalid_params", "params.conditions.0.name")]


def test_a_condition_naming_a_missing_column_is_a_problem_naming_its_field(users):
    from runtime.checks.inference import infer_schemas

    document = routed(conditions=[CONDITIONS[0], {"name": "b", "condition": "agee > 1"}])
    inferred = infer_schemas(load_document(document), data_root=FileArea.of(users))
    (problem,) = [p for p in inferred.problems if p.node == "split"]
    assert problem.field == "params.conditions.1.condition"
    assert "unknown column 'agee'" in problem.message


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_editing_one_condition_runs_the_route_again_and_keys_differ_per_port(users, backend):
    document = routed()
    first = run(document, users, backend=backend)
    keys = first.nodes["split"].extra["results"]
    assert set(keys) == {"minors", "french", "rich", "otherwise"}
    assert len(set(keys.values())) == 4
    assert ran(run(document, users, backend=backend)) == set()
    edited = copy.deepcopy(document)
    edited["nodes"][1]["params"]["conditions"][2]["condition"] = "amount > 90"
    again = run(edited, users, backend=backend)
    assert {"split", "w_rich", "w_otherwise"} <= ran(again)
    assert again.nodes["split"].extra["results"]["rich"] != keys["rich"]
    frame = pd.read_csv(users / "users.csv")
    rich = frame[(frame["amount"] > 90) & ~(frame["age"] < 18) & (frame["country"] != "FR")]
    assert written(users, ["rich"])["rich"] == sorted(rich["id"])
    assert (users / CACHE).is_dir()


def test_a_preview_of_a_route_shows_its_first_condition_or_the_port_asked(users):
    from runtime.execution.preview import preview

    document = load_document(routed())
    first = preview(document, "split", data_root=users)
    assert first.port == "minors"
    age = first.schema.names.index("age")
    assert first.rows and all(row[age] < 18 for row in first.rows)
    other = preview(document, "split", port="otherwise", data_root=users)
    assert other.port == "otherwise"
    with pytest.raises(PipelineValidationError, match="node 'split' has no output port 'out'"):
        preview(document, "split", port="out", data_root=users)


@pytest.mark.parametrize("mode", ["first", "all"])
def test_a_compiled_script_routes_the_rows_the_run_does(users, tmp_path_factory, mode):
    from tests.runtime.compile.scripts import compiled, run_script

    ports = ["minors", "french", "rich", "otherwise"]
    run(routed(mode), users, backend="pandas", store=False)
    expected = written(users, ports)
    for port_name in ports:
        (users / f"{port_name}.csv").unlink()
    script = compiled(routed(mode), users, tmp_path_factory.mktemp("script"))
    result = run_script(script, cwd=users)
    assert result.returncode == 0, result.stderr
    assert written(users, ports) == expected
