"""Runs are numbered 1, 2, 3 … per pipeline, even when two are made at the same moment, and
remember the revision they started from; the runs list shows both.

Two runs made at once wait for each other on the pipeline's row lock (PostgreSQL) or on the
write lock every IMMEDIATE transaction takes (SQLite). Run with `DATABASE_URL=postgres://...`
to check the PostgreSQL side.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from editor.models import Pipeline, Run
from tests.editor.conftest import SEED, client_for, post_json, put_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_runs_are_numbered_per_pipeline_in_the_order_they_were_made(client, pipeline_id):
    other_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    made = [Run.objects.create(pipeline_id=pid, document={}) for pid in (pipeline_id, other_id)]
    made += [Run.objects.create(pipeline_id=pipeline_id, document={}) for _ in range(2)]
    assert [(run.pipeline_id, run.number) for run in made] == [
        (pipeline_id, 1), (other_id, 1), (pipeline_id, 2), (pipeline_id, 3),
    ]  # fmt: skip
    assert str(made[-1]) == "run #3 of Adults"


def test_runs_made_at_the_same_moment_get_distinct_numbers(pipeline_id):
    count = 8
    barrier = threading.Barrier(count)
    numbers: list[int] = []
    errors: list[BaseException] = []

    def make_run():
        try:
            barrier.wait(10)
            numbers.append(Run.objects.create(pipeline_id=pipeline_id, document={}).number)
        except BaseException as error:  # reported below: a thread's failure must fail the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=make_run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(numbers) == list(range(1, count + 1))


def test_a_run_keeps_its_number_and_the_revision_it_started_from(client, pipeline_id, data_root):
    url = f"/api/pipelines/{pipeline_id}"
    first = wait_for_run(post_json(client, f"{url}/runs", {}).json()["id"])
    body = client.get(url).json()
    assert put_json(client, url, {**body, "name": "Renamed"}).status_code == 200
    started = post_json(client, f"{url}/runs", {}).json()
    assert (started["number"], started["revision"]) == (2, 2)
    wait_for_run(started["id"])
    assert (first.number, first.revision) == (1, 1)
    assert Pipeline.objects.get(pk=pipeline_id).revision == 2


def test_the_runs_list_gives_number_status_who_timings_and_revision(client, pipeline_id, data_root):
    run = wait_for_run(post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"])
    [item] = client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"]
    assert {key: item[key] for key in ("id", "number", "status", "started_by", "revision")} == {
        "id": run.pk, "number": 1, "status": "succeeded", "started_by": "owner", "revision": 1,
    }  # fmt: skip
    assert item["created_at"] <= item["started_at"] <= item["finished_at"]
    assert item["duration_s"] == run.duration_s > 0
    assert "nodes" not in item and "document" not in item


def test_another_users_runs_are_not_found(client, pipeline_id, data_root, other):
    run = wait_for_run(post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"])
    stranger = client_for(other)
    assert stranger.get(f"/api/pipelines/{pipeline_id}/runs").status_code == 404
    assert stranger.get(f"/api/runs/{run.pk}").status_code == 404
    assert stranger.get("/api/runs/999999").status_code == 404
