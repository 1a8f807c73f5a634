"""Pins: a pinned node does not run, its output is the pinned rows, and the nodes below read
them; `explain` says so, and rows that lack a column read below are refused naming the node."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.pins import PinError
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from tests.runtime.cache.runs import ran, run, seed_document, write_data

BACKENDS = ["pandas", "duckdb"]


@pytest.fixture
def root(tmp_path):
    write_data(tmp_path)
    return tmp_path


def pinned_enrich(root, **columns) -> str:
    """A pin file for `enrich`: two French users (or the given columns)."""
    rows = columns or {
        "id": [1, 2],
        "name": ["ADA", "ALAN"],
        "age": [40, 50],
        "country": ["FR", "FR"],
        "amount_eur": [10.0, 5.5],
    }
    path = root / "enrich.parquet"
    pd.DataFrame(rows).to_parquet(path)
    return str(path)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pinned_node_does_not_run_and_the_nodes_below_read_its_rows(root, backend):
    options = RunOptions(pins={"enrich": pinned_enrich(root)})
    result = run(seed_document(), root, backend=backend, options=options)
    assert not {"users", "adults"} & ran(result)
    assert {"by_country", "named", "write"} <= ran(result)
    written = pd.read_csv(root / "out" / "pipewright.csv")
    assert written[["country", "users", "amount_eur"]].to_dict("records") == [
        {"country": "FR", "users": 2, "amount_eur": 15.5}
    ]


def test_a_node_above_a_pin_that_another_node_reads_still_runs(root):
    document = seed_document()
    document["nodes"].append({"id": "raw", "operator": "csv_output", "params": {"path": "raw.csv"}})
    document["edges"].append({"source": "users", "target": "raw"})
    result = run(document, root, options=RunOptions(pins={"enrich": pinned_enrich(root)}))
    assert "users" in ran(result) and "adults" not in ran(result)
    assert len(pd.read_csv(root / "raw.csv")) == 500


def test_a_new_pin_gives_the_nodes_below_new_results(root):
    run(seed_document(), root, options=RunOptions(pins={"enrich": pinned_enrich(root)}))
    other = pinned_enrich(root, id=[7], name=["X"], age=[30], country=["DE"], amount_eur=[1.0])
    run(seed_document(), root, options=RunOptions(pins={"enrich": other}))
    assert pd.read_csv(root / "out" / "pipewright.csv")["country"].tolist() == ["DE"]


def prepared(root, pins: dict):
    area = FileArea(root, cache=root / CACHE)
    plan = build_plan(load_document(json.dumps(seed_document())), data_root=area)
    return prepare(plan, data_root=area, options=RunOptions(pins=pins))


def test_explain_says_which_nodes_are_pinned(root):
    text = explain(prepared(root, {"enrich": pinned_enrich(root)}))
    assert "pinned: enrich (its output is the rows of enrich.parquet)" in text
    assert "not run: adults (only pinned nodes read from it)" in text
    assert "  enrich: pinned: its output is the pinned rows" in text


def test_pinned_rows_without_a_column_read_below_are_refused_naming_the_node(root):
    path = pinned_enrich(root, country=["FR"], id=[1], age=[3])
    with pytest.raises(PipelineValidationError, match="amount_eur") as caught:
        prepared(root, {"enrich": path})
    (problem,) = caught.value.problems
    assert (problem.node, problem.code) == ("enrich", "pin")
    assert problem.message.startswith("its pinned rows do not fit 'by_country': ")


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"nowhere": "x.parquet"}, "the pipeline has no node 'nowhere'"),
        ({"write": "x.parquet"}, "node 'write' has no single output to pin"),
        ({"enrich": "missing.parquet"}, "pin of node 'enrich': no file"),
    ],
    ids=["unknown-node", "output-node", "missing-file"],
)
def test_a_pin_that_cannot_apply_is_refused(root, pins, message):
    with pytest.raises(PinError, match=message):
        prepared(root, pins)


def test_a_run_leaving_out_a_broken_node_above_a_pin_still_runs_the_pinned_node(root):
    options = RunOptions(pins={"enrich": pinned_enrich(root)}, left_out=("users", "enrich"))
    result = run(seed_document(), root, options=options)
    assert {"enrich", "by_country", "write"} <= ran(result)


def test_the_nodes_a_pin_makes_moot_are_the_pinned_and_what_only_they_read():
    from runtime.document.spec import load_document
    from runtime.plan.pins import moot_under_pins

    document = seed_document()
    document["nodes"].append({"id": "raw", "operator": "csv_output", "params": {"path": "r.csv"}})
    document["edges"].append({"source": "users", "target": "raw"})
    spec = load_document(json.dumps(document))
    assert moot_under_pins(spec, {"enrich"}) == {"enrich", "adults"}
    assert moot_under_pins(spec, {"enrich", "raw"}) == {"enrich", "adults", "raw", "users"}
