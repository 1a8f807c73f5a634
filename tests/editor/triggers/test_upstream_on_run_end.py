"""Where a run ends, its success starts the pipelines it feeds at once: a real run executed by
this process's embedded workers, not the scheduler's tick."""

from __future__ import annotations

import time

import pytest

from editor.models import Run
from editor.triggers import watch
from tests.editor.conftest import post_json, wait_for_run
from tests.editor.triggers.helpers import make_pipeline, make_trigger


@pytest.mark.django_db(transaction=True)
def test_an_upstream_runs_success_starts_the_downstream_run_where_it_ends(client, data_root, owner):
    upstream = make_pipeline(client, "extract")
    downstream = make_pipeline(client, "report", upstream_run=0)
    make_trigger(
        downstream, owner, kind="upstream", upstream=upstream.pk,
        parameters={"upstream_run": "run_id"},
    )  # fmt: skip
    watch.tick()  # the trigger's first look: nothing succeeded yet

    started = post_json(client, f"/api/pipelines/{upstream.pk}/runs", {}).json()
    assert wait_for_run(started["id"]).status == "succeeded"
    deadline = time.monotonic() + 20
    while not Run.objects.filter(pipeline=downstream).exists():
        assert time.monotonic() < deadline, "the downstream run did not start"
        time.sleep(0.05)

    run = wait_for_run(Run.objects.get(pipeline=downstream).pk)
    assert (run.status, run.parameters) == ("succeeded", {"upstream_run": started["id"]})
    listed = client.get(f"/api/pipelines/{downstream.pk}/runs").json()["items"]
    assert listed[0]["trigger"] == "trigger"
    assert listed[0]["triggered_by"].endswith("run #1 of 'extract' succeeded")
