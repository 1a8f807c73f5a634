"""Data tests in runs: a failed `fail` check fails its node (and what reads it does not run),
a `warn` check warns, results ride on the node's events, on pandas and DuckDB alike, and a
node whose result the store holds is still checked."""

from __future__ import annotations

import pytest

from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions


def pipeline(expect: list[dict]) -> dict:
    return {
        "name": "orders",
        "nodes": [
            {"id": "customers", "operator": "csv_input", "params": {"path": "customers.csv"}},
            {"id": "orders", "operator": "csv_input", "params": {"path": "orders.csv"}},
            {"id": "paid", "operator": "filter", "params": {"condition": "amount > 0"},
             "expect": expect},
            {"id": "write", "operator": "csv_output", "params": {"path": "paid.csv"}},
        ],
        "edges": [{"source": "orders", "target": "paid"}, {"source": "paid", "target": "write"}],
    }  # fmt: skip


@pytest.fixture
def root(tmp_path):
    (tmp_path / "orders.csv").write_text("id,customer,amount\n1,10,5\n2,11,7\n2,99,3\n3,10,-1\n")
    (tmp_path / "customers.csv").write_text("id,name\n10,a\n11,b\n")
    return tmp_path


def run(root, expect, backend="pandas", cache=True):
    area = FileArea(root, cache=root / CACHE if cache else None)
    plan = build_plan(load_document(pipeline(expect)), data_root=area)
    plan = prepare(plan, backend=backend, data_root=area, options=RunOptions())
    sink = ListSink()
    return execute(plan, sinks=[sink], data_root=area), sink


UNIQUE = {"check": "unique", "columns": ["id"]}
KNOWN = {"check": "references", "column": "customer", "node": "customers", "to_column": "id"}


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_failed_check_fails_its_node_and_nothing_below_it_writes(root, backend):
    result, sink = run(root, [UNIQUE], backend)
    assert result.status == "failed"
    paid = result.nodes["paid"]
    assert paid.status == "failed"
    assert paid.error == (
        "node 'paid': unique on id failed: 2 of 3 rows share their values with another row, "
        'e.g. [{"id": 2}, {"id": 2}]'
    )
    assert result.nodes["write"].status in ("cancelled", "skipped")
    assert not (root / "paid.csv").exists()
    final = [e for e in sink.of_type("node_status") if e["node"] == "paid"][-1]
    assert final["metrics"]["checks"][0]["failing"] == 2


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_warn_check_logs_a_warning_and_the_node_succeeds(root, backend):
    warned = [{**UNIQUE, "severity": "warn"}, {**KNOWN, "severity": "warn"}]
    result, sink = run(root, warned, backend)
    assert result.ok
    assert (root / "paid.csv").exists()
    checks = result.nodes["paid"].extra["checks"]
    assert [(c["check"], c["status"], c["failing"]) for c in checks] == [
        ("unique", "warned", 2),
        ("references", "warned", 1),
    ]
    warnings = [e["message"] for e in sink.of_type("node_log") if e["level"] == "warning"]
    assert "node 'paid': references on customer failed: 1 of 3 rows are not found in " \
        "customers.id" in warnings  # fmt: skip
    final = [e for e in sink.of_type("node_status") if e["node"] == "paid"][-1]
    assert final["status"] == "succeeded"
    assert final["metrics"]["checks"] == checks


def test_a_node_reused_from_the_store_is_checked_on_its_stored_result(root):
    first, _ = run(root, [{**UNIQUE, "severity": "warn"}])
    assert first.ok
    again, _ = run(root, [{**UNIQUE, "severity": "warn"}])
    assert again.nodes["paid"].extra.get("cached") is True
    assert again.nodes["paid"].extra["checks"][0]["failing"] == 2
    failing, _ = run(root, [UNIQUE])  # the same node, the stored result fails it now
    assert failing.nodes["paid"].status == "failed"


def test_a_preview_does_not_run_checks(root):
    from runtime.execution.preview import preview

    doc = load_document(pipeline([UNIQUE]))
    shown = preview(doc, "paid", data_root=root)
    assert len(shown.rows) == 3
