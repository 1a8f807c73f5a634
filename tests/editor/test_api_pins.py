"""The pins API and what pins do to runs: editors pin a node's output from a run, from rows or
from an uploaded file, viewers list pins, strangers get 404; a pin over the size limit stores
nothing; a run started from the editor uses the pins and records them, a scheduled run only
when its schedule says `use_pins`; a queued run keeps the pin it was started with; deleting a
pipeline deletes its pin files."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from editor.models import Pin, Pipeline, Role, Run
from editor.pipelines.pins import PINS
from editor.runs import launcher
from editor.schedules import scheduler
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json, wait_for_run
from tests.editor.schedules.helpers import make_schedule

ROWS = [{"id": 9, "name": "Pinned", "age": 40}]


def pins_url(pipeline_id: int, node: str | None = None) -> str:
    return f"/api/pipelines/{pipeline_id}/pins" + (f"/{node}" if node else "")


def pin_files(settings) -> list:
    folder = settings.PIPEWRIGHT_DATA_ROOT / PINS
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


@pytest.mark.django_db
def test_an_editor_pins_rows_and_everyone_who_may_see_the_pipeline_lists_them(client, pipeline_id):
    response = post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["node"], body["rows"], body["columns"]) == ("adults", 1, ["id", "name", "age"])
    assert body["source"] == "rows edited by hand" and body["created_by"] == "owner"
    [listed] = client.get(pins_url(pipeline_id)).json()["items"]
    assert listed["node"] == "adults"
    assert client.get(pins_url(pipeline_id, "adults")).json()["rows"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_run_started_from_the_editor_uses_the_pins_and_records_them(
    client, pipeline_id, data_root
):
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert started.status_code == 202, started.content
    run = wait_for_run(started.json()["id"])
    assert run.status == "succeeded", run.error
    assert run.pins and list(run.pins) == ["adults"]
    assert pd.read_csv(data_root / "out" / "adults.csv").to_dict("records") == ROWS
    body = client.get(f"/api/runs/{run.pk}").json()
    assert body["pins"] == ["adults"] and body["nodes"]["read"]["status"] == "skipped"

    without = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"pins": False})
    run = wait_for_run(without.json()["id"])
    assert run.pins == {} and len(pd.read_csv(data_root / "out" / "adults.csv")) == 2


@pytest.mark.django_db(transaction=True)
def test_a_node_is_pinned_from_what_a_run_stored_of_it(client, pipeline_id):
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"up_to": "adults"})
    run = wait_for_run(started.json()["id"])
    response = post_json(client, pins_url(pipeline_id), {"node": "adults", "run": run.pk})
    assert response.status_code == 201, response.content
    assert response.json()["rows"] == 2 and response.json()["source"] == f"run #{run.number}"


@pytest.mark.django_db
def test_a_node_is_pinned_from_an_uploaded_csv_or_parquet_file(client, pipeline_id):
    csv = SimpleUploadedFile("sample.csv", b"id,name,age\n1,A,20\n2,B,30\n")
    response = client.post(pins_url(pipeline_id), {"node": "read", "file": csv})
    assert response.status_code == 201, response.content
    assert (response.json()["rows"], response.json()["source"]) == (2, "file sample.csv")
    data = io.BytesIO()
    pd.DataFrame(ROWS).to_parquet(data)
    parquet = SimpleUploadedFile("sample.parquet", data.getvalue())
    response = client.post(pins_url(pipeline_id), {"node": "read", "file": parquet})
    assert response.status_code == 201 and response.json()["rows"] == 1
    assert Pin.objects.count() == 1  # the second replaced the first


@pytest.mark.django_db
def test_a_pin_over_the_size_limit_is_refused_and_nothing_is_stored(client, pipeline_id, settings):
    settings.PIPEWRIGHT_MAX_PIN_BYTES = 1_000
    rows = [{"id": n, "name": f"name {n}" * 5} for n in range(500)]
    response = post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": rows})
    assert response.status_code == 413
    assert response.json()["code"] == "pin_too_large"
    assert not Pin.objects.exists() and pin_files(settings) == []


@pytest.mark.django_db
def test_unpinning_removes_the_pin_and_its_file(
    client, pipeline_id, settings, django_capture_on_commit_callbacks
):
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    assert len(pin_files(settings)) == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert client.delete(pins_url(pipeline_id, "adults")).status_code == 204
    assert pin_files(settings) == []
    assert client.delete(pins_url(pipeline_id, "adults")).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_deleting_the_pipeline_deletes_its_pin_files(client, pipeline_id, settings):
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    assert client.delete(f"/api/pipelines/{pipeline_id}").status_code == 204
    assert pin_files(settings) == []
    assert not (settings.PIPEWRIGHT_DATA_ROOT / PINS / str(pipeline_id)).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"node": "nowhere", "rows": ROWS}, 400),
        ({"node": "write", "rows": ROWS}, 400),
        ({"node": "adults"}, 400),
        ({"node": "adults", "rows": ROWS, "run": 1}, 400),
    ],
    ids=["unknown-node", "output-node", "neither", "both"],
)
def test_a_pin_the_pipeline_cannot_take_is_a_400(client, pipeline_id, body, code):
    response = post_json(client, pins_url(pipeline_id), body)
    assert response.status_code == code, response.content
    assert not Pin.objects.exists()


@pytest.fixture
def team(owner, data_root, settings):
    """A shared workspace with the owner as admin and a viewer, and a pipeline."""
    workspace = create_workspace("Team", admin=owner)
    (settings.PIPEWRIGHT_DATA_ROOT / workspace.slug / "people.csv").write_text("id,age\n1,30\n")
    viewer = make_user("vi")
    set_member(workspace, viewer, Role.VIEWER)
    body = {**SEED, "workspace": workspace.slug}
    pipeline_id = post_json(client_for(owner), "/api/pipelines", body).json()["id"]
    post_json(client_for(owner), pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    return {"viewer": viewer, "pipeline": pipeline_id}


@pytest.mark.django_db
def test_a_viewer_lists_pins_but_may_not_change_them(team):
    viewer = client_for(team["viewer"])
    assert viewer.get(pins_url(team["pipeline"])).status_code == 200
    response = post_json(viewer, pins_url(team["pipeline"]), {"node": "adults", "rows": ROWS})
    assert response.status_code == 403
    assert viewer.delete(pins_url(team["pipeline"], "adults")).status_code == 403
    assert Pin.objects.get().source == "rows edited by hand"


@pytest.mark.django_db
def test_a_stranger_gets_404_for_pins_of_a_pipeline_they_cannot_see(team, other):
    stranger = client_for(other)
    assert stranger.get(pins_url(team["pipeline"])).status_code == 404
    response = post_json(stranger, pins_url(team["pipeline"]), {"node": "adults", "rows": ROWS})
    assert response.status_code == 404
    assert stranger.delete(pins_url(team["pipeline"], "adults")).status_code == 404


@pytest.mark.django_db
def test_a_run_of_another_pipeline_cannot_be_pinned_from(client, pipeline_id, team):
    [run_id] = [
        Run.objects.create(pipeline_id=team["pipeline"], document=SEED, status="succeeded").pk
    ]
    response = post_json(client, pins_url(pipeline_id), {"node": "adults", "run": run_id})
    assert response.status_code == 400


@pytest.mark.django_db
def test_scheduled_runs_ignore_pins_unless_their_schedule_uses_them(client, pipeline_id, settings):
    settings.PIPEWRIGHT_WORKERS = "service"  # the runs stay queued: only what they record counts
    pipeline = Pipeline.objects.get(pk=pipeline_id)
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    make_schedule(pipeline, pipeline.owner, start, cron="0 9 * * *")
    [ignoring] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))
    assert Run.objects.get(pk=ignoring).pins == {}
    Run.objects.filter(pk=ignoring).update(status="succeeded")
    pipeline.schedules.update(use_pins=True)
    [using] = scheduler.tick(datetime(2026, 5, 2, 9, tzinfo=UTC))
    assert list(Run.objects.get(pk=using).pins) == ["adults"]


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_pin_lacks_a_column_read_below_fails_naming_the_pinned_node(
    client, pipeline_id
):
    post_json(client, pins_url(pipeline_id), {"node": "read", "rows": [{"id": 1, "name": "A"}]})
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    run = wait_for_run(started.json()["id"])
    assert run.status == "failed"
    assert "read: its pinned rows do not fit 'adults': " in run.error
    assert "unknown column 'age'" in run.error


@pytest.mark.django_db(transaction=True)
def test_a_pinned_input_whose_file_is_gone_still_runs(client, pipeline_id, data_root):
    post_json(client, pins_url(pipeline_id), {"node": "read", "rows": ROWS})
    (data_root / "people.csv").unlink()
    refused = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"pins": False})
    assert refused.status_code == 422
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert started.status_code == 202, started.content
    run = wait_for_run(started.json()["id"])
    assert run.status == "succeeded", run.error
    assert pd.read_csv(data_root / "out" / "adults.csv").to_dict("records") == ROWS


@pytest.mark.django_db
def test_the_plan_view_says_which_nodes_are_pinned(client, pipeline_id):
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    plan = client.get(f"/api/pipelines/{pipeline_id}/plan").json()
    assert plan["pinned"] == ["adults"]
    assert "pinned: adults" in plan["text"] and "not run: read" in plan["text"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["big.csv", "big.parquet"])
def test_an_upload_over_the_size_limit_is_refused_before_it_is_read(
    client, pipeline_id, settings, name
):
    settings.PIPEWRIGHT_MAX_PIN_BYTES = 100
    upload = SimpleUploadedFile(name, b"id\n" + b"1\n" * 200)
    response = client.post(pins_url(pipeline_id), {"node": "read", "file": upload})
    assert response.status_code == 413 and response.json()["code"] == "pin_too_large"
    assert not Pin.objects.exists() and pin_files(settings) == []


@pytest.mark.django_db
def test_a_file_that_is_not_what_its_name_says_is_a_400(client, pipeline_id, settings):
    upload = SimpleUploadedFile("sample.parquet", b"id,name\n1,A\n")
    response = client.post(pins_url(pipeline_id), {"node": "read", "file": upload})
    assert response.status_code == 400 and response.json()["code"] == "invalid_file"
    assert not Pin.objects.exists() and pin_files(settings) == []


@pytest.mark.django_db(transaction=True)
def test_a_queued_run_reads_the_pin_it_was_started_with_though_the_pin_is_replaced_meanwhile(
    client, pipeline_id, data_root, settings
):
    settings.PIPEWRIGHT_WORKERS = "service"  # the run waits in the queue
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": ROWS})
    queued = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    replaced = [{**ROWS[0], "name": "Replaced"}]
    post_json(client, pins_url(pipeline_id), {"node": "adults", "rows": replaced})
    assert len(pin_files(settings)) == 2  # the queued run's pin stays

    launcher.run_now(queued)

    run = Run.objects.get(pk=queued)
    assert run.status == "succeeded", run.error
    assert pd.read_csv(data_root / "out" / "adults.csv").to_dict("records") == ROWS
    assert client.delete(pins_url(pipeline_id, "adults")).status_code == 204
    assert pin_files(settings) == []  # no pin holds either file, no run reads them
