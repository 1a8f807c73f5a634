"""Where an interval's run ends, its backfill moves on at once: real runs executed by this
process's embedded workers, and no scheduler tick between them."""

from __future__ import annotations

import time

import pytest

from editor.backfills import advance
from editor.models import Backfill, Pipeline
from editor.schedules import actions as schedule_actions
from tests.editor.backfills.test_backfills import BODY, DAILY, url
from tests.editor.conftest import post_json


@pytest.mark.django_db(transaction=True)
def test_each_intervals_run_ending_starts_the_next_without_waiting_for_a_tick(
    client, data_root, owner
):
    pipeline = Pipeline.objects.get(pk=post_json(client, "/api/pipelines", DAILY).json()["id"])
    fields = schedule_actions.ScheduleIn(cron="0 0 * * *", timezone="UTC", enabled=False)
    schedule = schedule_actions.create_schedule(pipeline, owner, fields)
    body = {**BODY, "end": "2024-01-05", "concurrency": 1}
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), body).json()["id"])

    assert len(advance.advance(backfill.pk)) == 1  # the first interval; its run's end does the rest
    deadline = time.monotonic() + 60
    while backfill.status == Backfill.Status.RUNNING:
        assert time.monotonic() < deadline, "the backfill did not move on as its runs ended"
        time.sleep(0.1)
        backfill.refresh_from_db()

    assert backfill.status == Backfill.Status.FINISHED
    assert sorted(path.name for path in (data_root / "out").iterdir()) == [
        "2024-01-01.csv", "2024-01-02.csv", "2024-01-03.csv", "2024-01-04.csv",
    ]  # fmt: skip
