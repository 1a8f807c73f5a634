"""Runs on a Dask cluster, from the runtime's side: the link over the scheduler's queues, and the
task that serves a run on a worker. A real cluster whose worker is a thread of this process (so
that a test may shorten how long a run waits for its supervisor); the tests speak the protocol
themselves, as `editor.runs.dask` does."""

from __future__ import annotations

import json
import sys
import time
import types
import uuid

import pytest
from distributed import Client, LocalCluster, Queue

from runtime.budget import Budget
from runtime.io.paths import FileArea
from runtime.worker import dask_task, queue_link
from runtime.worker.queue_link import QueueLink
from runtime.worker.wire import RunOrder

ALWAYS = lambda _silent_s: True  # noqa: E731 - a peer that never goes away


@pytest.fixture(scope="module")
def client():
    """A client of a cluster whose one worker is threads of this process."""
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


def link_pair(client, *, peer_alive=ALWAYS) -> tuple[QueueLink, QueueLink]:
    """Both ends of a link: the first's `peer_alive` is given, the second's peer never goes."""
    name = uuid.uuid4().hex
    near = QueueLink(client, inbox=f"{name}-a", outbox=f"{name}-b", peer_alive=peer_alive)
    far = QueueLink(client, inbox=f"{name}-b", outbox=f"{name}-a", peer_alive=ALWAYS)
    return near, far


def submit(client, channel: str):
    """The task of a run, and the attempt that said hello: its id and its worker."""
    lobby = Queue(dask_task.lobby_of(channel), client=client)
    future = client.submit(dask_task.run_on_worker, channel, key=channel, pure=False)
    hello = json.loads(lobby.get(timeout=30))
    lobby.close()
    return future, hello


def supervisor_end(client, channel: str, attempt: str, **options) -> QueueLink:
    to_run, from_run = dask_task.queues_of(channel, attempt)
    return QueueLink(client, inbox=from_run, outbox=to_run, peer_alive=ALWAYS, **options)


def order(document: dict, root) -> dict:
    return RunOrder(
        run_id="on-a-worker", document=document, parameters={}, area=FileArea(root),
        connections={}, budget=Budget(2**30, 1), sys_path=list(sys.path),
    ).to_message()  # fmt: skip


def wait_done(future, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not future.done():
        assert time.monotonic() < deadline, "the task did not end"
        time.sleep(0.02)


def test_any_text_crosses_the_cluster_unchanged_and_a_closed_end_reads_as_the_end(client):
    near, far = link_pair(client)
    text = "ünïcode 😀 \udc80 \x00 " + "x" * 1_000_000
    far.send("events", events=[text])
    assert near.receive(10) == {"kind": "events", "events": [text]}
    far.close()
    with pytest.raises(EOFError):
        near.receive(10)
    with pytest.raises(OSError, match="closed"):
        far.send("events", events=[])
    near.close()


def test_an_end_whose_peer_is_gone_reads_what_it_sent_then_the_end(client):
    alive = True
    near, far = link_pair(client, peer_alive=lambda _silent_s: alive)
    for number in range(3):
        far.send("events", events=[number])
    alive = False  # the worker went away: what it sent before is still read, then the end
    assert [near.receive(10)["events"] for _ in range(3)] == [[0], [1], [2]]
    with pytest.raises(EOFError):
        near.receive(10)
    near.close()
    far.close()


def test_frames_a_slow_scheduler_delivers_after_their_sender_ended_are_read(client, monkeypatch):
    """A finished run's last frames reach its supervisor after its task is done when the
    scheduler answers slowly (a loaded machine): they are read, not taken for a lost worker."""
    name = uuid.uuid4().hex
    sender = QueueLink(client, inbox=f"{name}-a", outbox=f"{name}-b", peer_alive=ALWAYS)
    for number in range(3):
        sender.send("events", events=[number])
    sender.close()
    answer = Queue.get

    def slow_get(queue, *args, **kwargs):
        time.sleep(2 * queue_link.WAIT_S)
        return answer(queue, *args, **kwargs)

    monkeypatch.setattr(Queue, "get", slow_get)
    gone = lambda _silent_s: False  # noqa: E731 - its task is done
    receiver = QueueLink(client, inbox=f"{name}-b", outbox=f"{name}-a", peer_alive=gone)
    assert [receiver.receive(10)["events"] for _ in range(3)] == [[0], [1], [2]]
    with pytest.raises(EOFError):
        receiver.receive(10)
    receiver.close()


def test_an_attempt_the_supervisor_refuses_returns_having_run_nothing(client, tmp_path):
    channel = f"refused-{uuid.uuid4().hex}"
    future, hello = submit(client, channel)
    supervisor = supervisor_end(client, channel, hello["attempt"])
    supervisor.close(take_back=True)  # no order: the end of its link
    wait_done(future)
    assert future.status == "finished"
    with pytest.raises(EOFError):  # it said nothing but the end of its own link
        supervisor.receive(10)


def test_a_run_on_a_worker_stops_when_its_supervisor_goes_silent(
    client, tmp_path, monkeypatch, pause_operator
):
    monkeypatch.setattr(dask_task, "SILENCE_S", 1.0)
    (tmp_path / "rows.csv").write_text("id\n1\n")
    document = {
        "format": "pipewright.pipeline", "version": 1, "name": "silent", "config": {},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "rows.csv"}},
            {"id": "wait", "operator": "pause", "params": {"seconds": 60}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "wait"}, {"source": "wait", "target": "write"}],
    }  # fmt: skip
    channel = f"silent-{uuid.uuid4().hex}"
    future, hello = submit(client, channel)
    supervisor = supervisor_end(client, channel, hello["attempt"])  # it never beats
    supervisor.send("start", **order(document, tmp_path))
    messages = []
    while not messages or messages[-1]["kind"] == "events":
        messages.append(supervisor.receive(30))
    wait_done(future)
    supervisor.close(take_back=True)
    events = [event for message in messages[:-1] for event in message["events"]]
    assert messages[-1]["kind"] == "done", messages[-1]
    assert (events[-1]["type"], events[-1]["status"]) == ("run_finished", "cancelled")
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    ("limit", "threads", "share"),
    [(8 * 2**30, 4, Budget(2**30, 1)), (None, 2, Budget(2**30, 1)), (2**30, 2, Budget(2**29, 1))],
    ids=["the-settings-ask-less", "no-memory-limit", "the-worker-has-less"],
)
def test_a_run_on_a_worker_gets_at_most_one_threads_share_of_the_worker(limit, threads, share):
    worker = types.SimpleNamespace(
        state=types.SimpleNamespace(nthreads=threads),
        memory_manager=types.SimpleNamespace(memory_limit=limit),
    )
    assert dask_task.worker_share(Budget(2**30, 1), worker) == share
