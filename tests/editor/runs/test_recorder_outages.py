"""A run's record survives a database that is away for a while: the recorder keeps what the
database did not take (in memory, then on disk), tries again until it does, and never writes
an event twice. The PostgreSQL cuts through a TCP proxy are in `test_database_cuts.py`."""

from __future__ import annotations

import sqlite3
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from editor.models import NodeRun, Run, RunLog
from editor.pipelines import actions
from editor.runs import unwritten_events, watch
from editor.runs.recorder import RunRecorder
from editor.runs.stale_outputs import remove_stale_outputs
from runtime.document.spec import load_document
from runtime.execution.events import Emitter
from runtime.io.paths import SYSTEM
from tests.editor.conftest import SEED
from tests.editor.runs.helpers import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
NODES = ["read", "adults", "write"]


@pytest.fixture
def run(owner, data_root) -> Run:
    """A run that nothing executes: the tests play its events into recorders."""
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    run = Run.objects.create(pipeline=pipeline, document=SEED, status="running")
    NodeRun.objects.bulk_create(NodeRun(run=run, node_id=node) for node in NODES)
    return run


def a_whole_run(emitter: Emitter, lines: int = 20) -> None:
    emitter.emit("run_started", name="Adults", nodes=NODES)
    for node in NODES:
        emitter.emit("node_status", node=node, status="running", attempt=1)
        for index in range(lines):
            emitter.emit("node_log", node=node, level="info", message=f"{node} {index}")
        emitter.emit("node_status", node=node, status="succeeded", attempt=1, metrics={"rows": 3})
    emitter.emit("run_finished", status="succeeded", duration_s=0.5, totals={})


def assert_recorded_whole(run: Run, lines: int = 20) -> None:
    run.refresh_from_db()
    assert run.status == "succeeded"
    rows = NodeRun.objects.filter(run=run)
    assert {row.node_id: (row.status, len(row.attempt_spans)) for row in rows} == dict.fromkeys(
        NODES, ("succeeded", 1)
    )
    messages = list(
        RunLog.objects.filter(run=run).order_by("seq").values_list("message", flat=True)
    )
    expected = [f"{node} {index}" for node in NODES for index in range(lines)]
    assert messages == ["run started: 3 nodes", *expected, "run succeeded after 0.50 s"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="a lock of SQLite's own")
def test_events_recorded_while_sqlite_is_locked_are_all_written_once_it_is_free(
    run, data_root, monkeypatch
):
    """Another connection holds SQLite's write lock for a few seconds, longer than the
    recorder's connections wait for it (0.5 s here, 20 s as deployed): every batch it refused
    is kept (the newer ones on disk, past a small memory bound) and written afterwards, in
    order, and the file is gone."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.5)
    monkeypatch.setattr(unwritten_events, "IN_MEMORY", 10)
    spill = data_root.parent / SYSTEM / "unrecorded" / f"run-{run.pk}.jsonl"
    holder = sqlite3.connect(connection.settings_dict["NAME"])
    holder.execute("BEGIN IMMEDIATE")
    recorder = RunRecorder(run.pk)
    try:
        a_whole_run(Emitter([recorder], run_id=run.pk))
        deadline = time.monotonic() + 10
        while not spill.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        spilled = spill.exists()
        time.sleep(1.5)
    finally:
        holder.rollback()
        holder.close()
    recorder.close()
    assert spilled, "the events past the memory bound waited on disk"
    assert not spill.exists()
    assert_recorded_whole(run)


def test_a_batch_written_again_changes_nothing_written_before(run):
    """A commit whose answer was lost looks failed to its writer, which writes the batch
    again: the events up to the run's `last_seq` are skipped, so no log line is doubled and
    no node row goes back to `running`."""
    first = RunRecorder(run.pk)
    played: list = []
    a_whole_run(Emitter([first, played.append], run_id=run.pk))
    first.close()
    again = RunRecorder(run.pk)
    for event in played:
        again(event)
    again.close()
    assert_recorded_whole(run)
    assert Run.objects.get(pk=run.pk).last_seq == played[-1]["seq"]


def test_the_runs_end_is_written_only_after_all_its_events(run):
    """`close(status)` settles a run that never sent `run_finished`, after its events."""
    recorder = RunRecorder(run.pk)
    seen: list = []

    def note_status(after_seq, events):
        seen.append(Run.objects.get(pk=run.pk).status)

    recorder.after_write = note_status
    emitter = Emitter([recorder], run_id=run.pk)
    emitter.emit("node_status", node="read", status="running", attempt=1)
    emitter.emit("node_log", node="read", level="info", message="reading")
    recorder.close("failed", "the process ended")
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", "the process ended")
    assert seen and set(seen) == {"running"}
    assert RunLog.objects.filter(run=run).count() == 1


@pytest.mark.skipif(connection.vendor != "sqlite", reason="a lock of SQLite's own")
def test_a_stale_heartbeat_reaps_nothing_until_the_database_was_back_long_enough(run, monkeypatch):
    """While the database is away nobody's heartbeat gets through: a run of another host whose
    heartbeat went stale then is reaped only once the database has been back for the whole
    staleness window (its process would have beaten again by then), never at once."""
    monkeypatch.setattr(watch, "_database_away", False)
    monkeypatch.setattr(watch, "_database_back_at", None)
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.2)
    long_ago = timezone.now() - timedelta(seconds=watch.stale_after_s() * 2)
    Run.objects.filter(pk=run.pk).update(host="elsewhere", pid=4242, heartbeat_at=long_ago)
    pipeline = run.pipeline
    mine = Run.objects.create(pipeline=pipeline, document=SEED, status="running")
    watch.hold(mine.pk)
    try:
        holder = sqlite3.connect(connection.settings_dict["NAME"])
        holder.execute("BEGIN IMMEDIATE")
        try:
            watch._guarded(watch.beat)  # fails: the database is locked
        finally:
            holder.rollback()
            holder.close()
        watch._guarded(watch.reap_interrupted_runs)
        watch._guarded(watch.reap_interrupted_runs)
        assert Run.objects.get(pk=run.pk).status == "running"
        back_long_enough = time.monotonic() - watch.stale_after_s() - 1
        monkeypatch.setattr(watch, "_database_back_at", back_long_enough)
        assert watch.reap_interrupted_runs() == [run.pk]
    finally:
        watch.release(mine.pk)


def test_events_a_killed_process_left_on_disk_are_removed_once_their_run_ended(run, data_root):
    """A worker killed during an outage leaves its unwritten events on disk; the next server
    start deletes them once the run is no longer active (it was reaped), never before."""
    folder = data_root.parent / SYSTEM / "unrecorded"
    folder.mkdir(parents=True)
    active, ended = folder / f"run-{run.pk}.jsonl", folder / f"run-{run.pk + 1}.jsonl"
    for path in (active, ended):
        path.write_text('{"seq": 1}\n')
    assert remove_stale_outputs() == [ended]
    assert active.exists()


def test_a_batch_that_can_never_be_written_shows_watchers_a_gap(run):
    """A batch that fails for a reason other than an outage (here a metric JSON cannot hold)
    would fail the same way forever: it is dropped, and the next frame says it follows that
    batch's last `seq`, so a watcher sees the gap and asks for a snapshot."""
    frames: list[tuple[int, list[dict]]] = []
    recorder = RunRecorder(run.pk, lambda after, events: frames.append((after, events)))
    emitter = Emitter([recorder], run_id=run.pk)
    emitter.emit("node_status", node="read", status="running", attempt=1)
    wait_until(lambda: frames)
    emitter.emit("node_status", node="read", status="succeeded", attempt=1, metrics={1j})
    time.sleep(0.2)  # its own batch (one flush interval is 20 ms)
    emitter.emit("node_log", node="adults", level="info", message="after the bad batch")
    recorder.close()
    assert [(after, [event["seq"] for event in events]) for after, events in frames] == [
        (0, [1]),
        (2, [3]),
    ]
