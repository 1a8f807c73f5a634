"""The Dask scheduler's log stays quiet while runs on the cluster wait: for a worker, or for
each other's frames. Real Dask: the `LocalCluster`s of conftest.py, whose scheduler runs
in this process."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from editor.models import Run
from tests.editor.conftest import SEED, wait_for_run
from tests.editor.runs.helpers import WAITING, start, wait_for_node, wait_until, waiting_note

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.server]  # Dask processes


@pytest.fixture
def scheduler_errors() -> Iterator[list[logging.LogRecord]]:
    """What the in-process scheduler (and the rest of Dask here) logs at ERROR meanwhile (its
    loggers do not propagate to the root's, which `caplog` listens to)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = records.append
    logger = logging.getLogger("distributed")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


@pytest.mark.usefixtures("no_worker")
def test_the_scheduler_logs_no_error_while_a_run_waits_for_a_worker(
    client, data_root, settings, scheduler_errors
):
    """The supervisor waits for its task's hello at the scheduler with no deadline: a timed
    wait that ended empty logged "Exception while handling op queue_get" with a traceback
    there, four times a second (2.8 MB an hour)."""
    run_id = start(client, SEED)
    note = waiting_note(SimpleNamespace(scheduler_address=settings.PIPEWRIGHT_DASK_SCHEDULER))
    wait_until(lambda: Run.objects.get(pk=run_id).error == note)
    time.sleep(2)
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    assert wait_for_run(run_id).status == "cancelled"
    assert [record.getMessage() for record in scheduler_errors] == []


@pytest.mark.usefixtures("on_the_cluster")
def test_the_scheduler_logs_no_error_while_a_run_and_its_supervisor_wait_for_frames(
    client, data_root, scheduler_errors
):
    """A node that runs for a while: the run and its supervisor each wait for the other's
    next frame, as the supervisor waited for its task's hello."""
    run_id = start(client, WAITING)
    wait_for_node(run_id, "wait", "running")
    time.sleep(2)
    assert client.post(f"/api/runs/{run_id}/cancel").status_code == 200
    assert wait_for_run(run_id).status == "cancelled"
    assert [record.getMessage() for record in scheduler_errors] == []
