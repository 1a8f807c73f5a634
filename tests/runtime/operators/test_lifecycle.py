"""Operators' open and close around a node's attempts, with the example plugin's `journal`
operator (tests/plugin_demo), which notes each call in a file of the data root."""

from __future__ import annotations

import importlib.util
import threading
import time
from pathlib import Path

import pytest

from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.operators.lifecycle import Lifecycles
from runtime.plan import build_plan
from tests.runtime.engine_operators import Source, engine_registry


def _demo_plugin():
    """The demo plugin's module, loaded from its file: on `sys.path`, its folder's metadata
    would add its operators to every registry this process builds later."""
    path = Path(__file__).resolve().parents[2] / "plugin_demo" / "pipewright_plugin_demo.py"
    spec = importlib.util.spec_from_file_location("pipewright_plugin_demo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pipewright_plugin_demo = _demo_plugin()


def registry():
    found = engine_registry()
    found.register(pipewright_plugin_demo.Journal)
    return found


def journal_run(tmp_path, params=None, *, retries=0, timeout_s=None, cancel=None, **config):
    node = {"id": "j", "operator": "journal", "params": params or {}, "retries": retries}
    if timeout_s is not None:
        node["timeout_s"] = timeout_s
    document = load_document({
        "name": "lifecycle",
        "config": {"retry_delay_s": 0, **config},
        "nodes": [{"id": "s", "operator": Source.name, "params": {}}, node],
        "edges": [{"source": "s", "source_port": "out", "target": "j", "target_port": "in"}],
    })  # fmt: skip
    sink = ListSink()
    plan = build_plan(document, registry=registry(), data_root=tmp_path)
    result = execute(plan, sinks=[sink], data_root=tmp_path, cancel_event=cancel)
    return result, (tmp_path / "journal.txt").read_text().splitlines(), sink


def test_close_follows_a_successful_attempt(tmp_path):
    result, journal, _ = journal_run(tmp_path)
    assert result.nodes["j"].status == "succeeded"
    assert journal == ["j open", "j run 1", "j ran 1", "j close"]


def test_one_open_serves_every_retry_and_close_follows_the_last(tmp_path):
    result, journal, _ = journal_run(tmp_path, {"fail_times": 2}, retries=2)
    assert result.nodes["j"].status == "succeeded"
    assert result.nodes["j"].attempts == 3
    assert journal == [
        "j open", "j run 1", "j ran 1", "j run 2", "j ran 2", "j run 3", "j ran 3", "j close",
    ]  # fmt: skip


def test_close_follows_a_failure_and_the_exhaustion_of_retries(tmp_path):
    result, journal, _ = journal_run(tmp_path, {"fail_times": 5}, retries=1)
    assert result.nodes["j"].status == "failed"
    assert journal == ["j open", "j run 1", "j ran 1", "j run 2", "j ran 2", "j close"]


def test_after_a_timeout_close_waits_for_the_attempts_thread_to_return(tmp_path):
    """The attempt ignores the stop and sleeps on: the node times out at 0.2 s, but close
    comes only after the thread's work has ended (`ran 1`), and the run waits for it."""
    params = {"sleep_s": 1.0, "heed_stop": False}
    started = time.monotonic()
    result, journal, _ = journal_run(tmp_path, params, timeout_s=0.2)
    assert result.nodes["j"].status == "timed_out"
    assert journal == ["j open", "j run 1", "j ran 1", "j close"]
    assert time.monotonic() - started >= 1.0


def test_a_cancelled_node_closes_once_its_attempt_stops(tmp_path):
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    result, journal, _ = journal_run(tmp_path, {"sleep_s": 30}, cancel=cancel)
    assert result.nodes["j"].status == "cancelled"
    assert journal == ["j open", "j run 1", "j close"]  # stopped in its sleep: no `ran`


def test_a_node_cancelled_while_waiting_to_retry_closes_too(tmp_path):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result, journal, _ = journal_run(
        tmp_path, {"fail_times": 1}, retries=3, cancel=cancel, retry_delay_s=30
    )
    assert result.nodes["j"].status == "cancelled"
    assert journal == ["j open", "j run 1", "j ran 1", "j close"]


def test_an_error_in_close_is_a_warning_not_a_failure():
    warnings = []
    lifecycles = Lifecycles(lambda node, message: warnings.append((node, message)))

    class Fragile(pipewright_plugin_demo.Journal):
        def open(self, ctx):
            pass

        def close(self, ctx):
            raise OSError("disk gone")

    class Ctx:
        node_id = "f"

    lifecycles.open(Fragile(), Ctx())
    lifecycles.close("f")
    assert warnings == [("f", "close failed: OSError: disk gone")]
    assert lifecycles.wait(0) == []


def test_a_stuck_attempt_keeps_its_node_open_no_longer_than_the_bound():
    lifecycles = Lifecycles(lambda *_: None)

    class Ctx:
        node_id = "stuck"

    lifecycles.open(pipewright_plugin_demo.Pause(), Ctx())  # no lifecycle: nothing opened
    assert lifecycles.wait(0) == []

    class Opens(pipewright_plugin_demo.Journal):
        def open(self, ctx):
            pass

    lifecycles.open(Opens(), Ctx())
    started = time.monotonic()
    assert lifecycles.wait(0.2) == ["stuck"]
    assert time.monotonic() - started == pytest.approx(0.2, abs=0.15)
