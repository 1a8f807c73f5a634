"""Upstream triggers: a run of another pipeline succeeding starts this one (from the tick, or
at once where the run ends), once per run; a chain that would start its own pipeline again is
refused naming it; an upstream pipeline the saver may not read is refused."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from editor.errors import ActionError
from editor.models import Run, Trigger, Workspace
from editor.triggers import watch
from runtime.execution.statuses import RunStatus
from tests.editor.conftest import client_for, post_json
from tests.editor.triggers.helpers import make_pipeline, make_trigger


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    settings.PIPEWRIGHT_WORKERS = "service"


def succeed(pipeline, owner) -> Run:
    """A finished, succeeded run of `pipeline`."""
    return Run.objects.create(
        pipeline=pipeline, document={}, started_by=owner, status=RunStatus.SUCCEEDED
    )


@pytest.mark.django_db(transaction=True)
def test_an_upstream_success_starts_the_run_once_with_the_upstream_run_id(client, data_root, owner):
    upstream = make_pipeline(client, "extract")
    downstream = make_pipeline(client, "report", upstream_run=0)
    succeed(upstream, owner)  # before the trigger: fires nothing
    trigger = make_trigger(
        downstream, owner, kind="upstream", upstream=upstream.pk,
        parameters={"upstream_run": "run_id"},
    )  # fmt: skip
    assert watch.tick() == []
    upstream_run = succeed(upstream, owner)

    [run_id] = watch.upstream_succeeded(upstream_run.pk)  # where the run ends
    assert watch.tick() == []

    run = Run.objects.get(pk=run_id)
    assert run.pipeline == downstream
    assert run.parameters == {"upstream_run": upstream_run.pk}
    assert run.triggered_by == (
        f"trigger {trigger.pk} (upstream): run #{upstream_run.number} of 'extract' succeeded"
    )


@pytest.mark.django_db
def test_a_trigger_on_its_own_pipeline_is_refused(client, data_root):
    pipeline = make_pipeline(client, "self")
    answer = post_json(
        client, f"/api/pipelines/{pipeline.pk}/triggers",
        {"kind": "upstream", "upstream": pipeline.pk},
    )  # fmt: skip
    assert answer.status_code == 400
    assert answer.json() == {
        "code": "trigger_loop",
        "message": "this trigger would start its own pipeline again: 'self' → 'self'",
        "node": None,
        "field": "upstream",
    }


@pytest.mark.django_db
def test_a_chain_closing_a_loop_is_refused_naming_the_chain(client, data_root, owner):
    a, b, c = (make_pipeline(client, name) for name in "ABC")
    make_trigger(b, owner, kind="upstream", upstream=a.pk)  # A → B
    make_trigger(c, owner, kind="upstream", upstream=b.pk)  # B → C

    answer = post_json(
        client, f"/api/pipelines/{a.pk}/triggers", {"kind": "upstream", "upstream": c.pk}
    )

    assert answer.status_code == 400
    assert answer.json()["message"] == (
        "this trigger would start its own pipeline again: 'C' → 'A' → 'B' → 'C'"
    )


@pytest.mark.django_db
def test_an_upstream_pipeline_of_another_workspace_is_refused_as_if_it_did_not_exist(
    client, data_root, other
):
    theirs = Workspace.objects.get(slug="other")
    hidden = make_pipeline(client_for(other), "theirs")
    assert hidden.workspace == theirs
    mine = make_pipeline(client, "mine")

    answer = post_json(
        client, f"/api/pipelines/{mine.pk}/triggers", {"kind": "upstream", "upstream": hidden.pk}
    )

    assert answer.status_code == 400
    assert answer.json()["field"] == "upstream"


@pytest.mark.django_db
def test_a_mapping_to_an_undeclared_parameter_or_a_wrong_type_names_the_field(client, data_root):
    pipeline = make_pipeline(client)
    url = f"/api/pipelines/{pipeline.pk}/triggers"

    unknown = post_json(
        client, url, {"kind": "file", "pattern": "*.csv", "parameters": {"nope": "path"}}
    )
    wrong = post_json(
        client, url, {"kind": "file", "pattern": "*.csv", "parameters": {"min_age": "path"}}
    )

    assert (unknown.status_code, unknown.json()["field"]) == (400, "parameters.nope")
    assert (wrong.status_code, wrong.json()["field"]) == (400, "parameters.min_age")
    assert "declared an integer; the event's 'path' is a string" in wrong.json()["message"]


@pytest.mark.django_db(transaction=True)
def test_two_saves_that_only_together_close_a_loop_take_turns_and_the_second_is_refused(
    client, data_root, owner
):
    """The first save holds its transaction open a while after checking and adding its
    trigger; the second, begun meanwhile, waits for it and then sees the loop. Without the
    locks the second checks against the triggers committed before the first and both land."""
    first, second = make_pipeline(client, "first"), make_pipeline(client, "second")
    checked = threading.Event()
    errors: list[Exception] = []

    def save_first() -> None:
        try:
            with transaction.atomic():
                make_trigger(second, owner, kind="upstream", upstream=first.pk)
                checked.set()
                time.sleep(1.0)
        finally:
            connection.close()

    thread = threading.Thread(target=save_first)
    thread.start()
    assert checked.wait(10)
    try:
        make_trigger(first, owner, kind="upstream", upstream=second.pk)
    except ActionError as error:
        errors.append(error)
    thread.join()

    [error] = errors
    assert error.code == "trigger_loop"
    assert Trigger.objects.filter(kind="upstream").count() == 1
