"""A pipeline whose expression would build more text than a column may hold fails alike on
pandas and on DuckDB: the same node, the same message naming its params field, and on DuckDB
before the query that would build the text runs (nothing is written)."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare

TENFOLD = "'a', 'aaaaaaaaaa'"
BOMB = f"replace(replace(replace(name, {TENFOLD}), {TENFOLD}), {TENFOLD})"
"""Each `a` of `name` becomes a thousand: 200 of them on 3,000 rows make 572 MiB."""
ROWS = 3000
TOO_LARGE = "replace: the result would be 572.2 MiB, more than the 256 MiB a column may hold"


@pytest.fixture
def names(tmp_path):
    (tmp_path / "names.csv").write_text(
        "id,name\n" + "".join(f"{i},{'a' * 200}\n" for i in range(ROWS))
    )
    return FileArea.of(tmp_path)


def pipeline(node: dict) -> dict:
    """`names.csv` read, then `node`, then its `out` port written to `out.csv`."""
    return {
        "name": "bounded",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "names.csv"}},
            node,
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [
            {"source": "read", "target": node["id"]},
            {"source": node["id"], "target": "write", "source_port": node.pop("port", "out")},
        ],
    }


def run(document: dict, area: FileArea, backend: str):
    plan = prepare(build_plan(load_document(document)), backend=backend, data_root=area)
    on_duckdb = [segment.nodes for segment in plan.segments]
    assert bool(on_duckdb) == (backend == "duckdb")
    return execute(plan, data_root=area)


CASES = {
    "filter": (
        {"id": "grow", "operator": "filter", "params": {"condition": f"len({BOMB}) > 0"}},
        f"condition: {TOO_LARGE} at 1:5",
    ),
    "transform": (
        {
            "id": "grow",
            "operator": "transform",
            "params": {
                "mappings": [
                    {"target": "short", "expression": "substr(name, 1, 3)"},
                    {"target": "big", "expression": f"concat(short, {BOMB})"},
                ]
            },
        },
        f"mappings[1].expression: {TOO_LARGE} at 1:15",
    ),
    "route": (
        {
            "id": "grow",
            "operator": "route",
            "params": {
                "conditions": [
                    {"name": "few", "condition": "id < 10"},
                    {"name": "long", "condition": f"len({BOMB}) > 5"},
                ]
            },
            "port": "few",
        },
        f"conditions.1.condition: {TOO_LARGE} at 1:5",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_text_past_the_bound_fails_alike_on_both_backends(names, case):
    node, message = CASES[case]
    results = {
        backend: run(pipeline(dict(node)), names, backend) for backend in ("pandas", "duckdb")
    }
    for backend, result in results.items():
        assert result.nodes["grow"].status == "failed", backend
        assert result.nodes["grow"].error == message, backend
    assert not (names.root / "out.csv").exists()


def test_the_innermost_call_past_the_bound_is_the_one_named(names):
    """A check never builds the text of a call an earlier check refused: the middle replace
    (1.9 GiB on 100,000 rows) is refused, as on pandas, and the outer is never sized."""
    (names.root / "names.csv").write_text("id,name\n" + f"1,{'a' * 200}\n" * 100_000)
    node = {"id": "grow", "operator": "filter", "params": {"condition": f"len({BOMB}) > 0"}}
    errors = {
        run(pipeline(dict(node)), names, backend).nodes["grow"].error
        for backend in ("pandas", "duckdb")
    }
    assert errors == {
        "condition: replace: the result would be 1.9 GiB, more than the 256 MiB a column may "
        "hold at 1:13"
    }


def test_text_within_the_bound_is_built_alike(names):
    grow = "concat(replace(replace(name, 'a', 'bb'), 'b', 'cc'), '-', id)"
    node = {
        "id": "grow",
        "operator": "transform",
        "params": {"mappings": [{"target": "big", "expression": grow.replace(", id)", ", name)")}]},
    }
    written = {}
    for backend in ("pandas", "duckdb"):
        assert run(pipeline(dict(node)), names, backend).ok
        written[backend] = pd.read_csv(names.root / "out.csv")
    pd.testing.assert_frame_equal(written["duckdb"], written["pandas"])
    assert written["duckdb"]["big"].str.len().eq(800 + 1 + 200).all()
