"""What inputs from outside the pipeline do to reuse: a query is read again on every run
unless it sets `cache_for_s`, and a connection pointed elsewhere is never mistaken for the
old one; the store stays within PIPEWRIGHT_CACHE_SIZE while runs go on."""

from __future__ import annotations

import json
import time

import sqlalchemy as sa

from runtime.cache.store import ResultStore
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.paths import CACHE, FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.plan import build_plan
from runtime.plan.explain import reuse_reasons
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from tests.runtime.cache.runs import ran, run, seed_document, write_data


def sql_document(**reading) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 2,
        "name": "shop",
        "nodes": [
            {
                "id": "read",
                "operator": "sql_input",
                "params": {"connection": "shop", "query": "SELECT id, name FROM people", **reading},
            },
            {"id": "keep", "operator": "filter", "params": {"condition": "id > 1"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/people.csv"}},
        ],
        "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}],
    }


def shop(root, rows) -> None:
    engine = sa.create_engine(f"sqlite:///{root / 'shop.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE IF EXISTS people")
        connection.exec_driver_sql("CREATE TABLE people (id INTEGER, name TEXT)")
        for row in rows:
            connection.exec_driver_sql("INSERT INTO people VALUES (?, ?)", row)
    engine.dispose()


def run_sql(document, root, changed=""):
    area = FileArea(root, cache=root / CACHE)
    connections = {"shop": ConnectionSpec("sqlite:///shop.db", changed=changed)}
    plan = build_plan(load_document(json.dumps(document)), data_root=area)
    plan = prepare(plan, data_root=area, connections=connections, options=RunOptions())
    result = execute(plan, data_root=area, connections=connections, sinks=[ListSink()])
    assert result.ok, result.error
    return result, plan


def test_a_query_is_read_again_on_every_run_by_default(tmp_path):
    shop(tmp_path, [(1, "ada"), (2, "alan")])
    run_sql(sql_document(), tmp_path)
    shop(tmp_path, [(1, "ada"), (2, "alan"), (3, "grace")])
    result, plan = run_sql(sql_document(), tmp_path)
    assert ran(result) == {"read", "keep", "write"}
    assert (tmp_path / "out" / "people.csv").read_text().count("\n") == 3
    assert "reads its database on every run" in reuse_reasons(plan)["read"]


def test_a_query_with_a_freshness_is_reused_within_it_and_read_again_after(tmp_path):
    shop(tmp_path, [(1, "ada"), (2, "alan")])
    run_sql(sql_document(cache_for_s=3600), tmp_path)
    shop(tmp_path, [(1, "ada"), (2, "alan"), (3, "grace")])
    assert ran(run_sql(sql_document(cache_for_s=3600), tmp_path)[0]) == set()
    time.sleep(1.1)
    result, plan = run_sql(sql_document(cache_for_s=1), tmp_path)  # the same key, older
    assert "read" in ran(result)
    assert reuse_reasons(plan)["read"] == "its stored rows are older than 1 s"
    assert (tmp_path / "out" / "people.csv").read_text().count("\n") == 3


def test_a_connection_changed_since_is_read_again(tmp_path):
    shop(tmp_path, [(1, "ada"), (2, "alan")])
    run_sql(sql_document(cache_for_s=3600), tmp_path, changed="2026-01-01T00:00:00")
    result, _ = run_sql(sql_document(cache_for_s=3600), tmp_path, changed="2026-02-01T00:00:00")
    assert "read" in ran(result)


def test_no_key_holds_a_password(tmp_path):
    shop(tmp_path, [(1, "ada")])
    _, plan = run_sql(sql_document(cache_for_s=60), tmp_path)
    keys = plan.cache.keys
    assert all(len(key) == 64 for key in keys.nodes.values())


def test_the_store_stays_within_its_size_while_runs_go_on(tmp_path, monkeypatch):
    write_data(tmp_path, rows=3000)
    monkeypatch.setenv("PIPEWRIGHT_CACHE_SIZE", "40KB")
    document = seed_document()
    for min_age in (20, 30, 40, 50):
        run(document, tmp_path, parameters={"min_age": min_age}, backend="pandas")
    store = ResultStore(tmp_path / CACHE)
    assert store.size() <= 40_000 + max(
        path.stat().st_size for path in (tmp_path / CACHE).rglob("*.parquet")
    )
    assert ran(run(document, tmp_path, parameters={"min_age": 50}, backend="pandas")) <= {
        "users",
        "countries",
        "adults",
        "enrich",
        "by_country",
        "named",
        "write",
    }


def test_a_plugin_input_that_cannot_say_what_it_reads_is_never_reused(tmp_path):
    from tests.runtime.engine_operators import document, engine_registry

    area = FileArea(tmp_path, cache=tmp_path / CACHE)
    pipeline = document({"source": "test_source", "step": "test_step"}, ["source->step"])

    def once():
        plan = build_plan(pipeline, registry=engine_registry(), data_root=area)
        plan = prepare(plan, data_root=area, options=RunOptions())
        result = execute(plan, data_root=area, sinks=[ListSink()])
        assert result.ok, result.error
        return result, plan

    once()
    result, plan = once()
    assert ran(result) == {"source", "step"}
    assert "results" not in result.nodes["step"].extra  # never reused, so never stored
    assert reuse_reasons(plan)["step"] == "never reused: it reads source, which is never reused"
