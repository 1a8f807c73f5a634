"""Previews, schema inference, run checks and plans in processes of their own, from the web
app's side: the same answers as when the web server computed them, at most PIPEWRIGHT_MAX_PREVIEWS
at once, stopped past their time or memory with a 4xx that says so, and a 4xx when their
process dies. Real processes and signals; tests assert answers and order, never durations (a
timeout only bounds how long a test waits)."""

from __future__ import annotations

import itertools
import os
import signal
import threading

import pytest

from editor.runs import jobs, local
from editor.workspaces.membership import engine_access, personal_workspace
from runtime.checks.inference import infer_schemas, run_problems
from runtime.document.spec import load_document
from runtime.errors import NodeExecutionError, PipelineValidationError
from runtime.execution.preview import preview
from runtime.operators.csv_files import CsvInput
from tests.editor.conftest import SEED, client_for, post_json
from tests.editor.runs.test_run_processes import processes_named, wait_until

SLOW_INPUTS = "an input may be too large or too slow to read (a big file, a busy database)"
ADVICE = f"preview a node nearer the inputs, or run the pipeline instead; {SLOW_INPUTS}"

pytestmark = pytest.mark.django_db


def chain(*nodes: tuple[str, str, dict]) -> dict:
    """A pipeline of `(id, operator, params)` nodes, each feeding the next."""
    return {
        "format": "pipewright.pipeline", "version": 1, "name": "chain",
        "nodes": [{"id": id_, "operator": op, "params": params} for id_, op, params in nodes],
        "edges": [{"source": a[0], "target": b[0]} for a, b in itertools.pairwise(nodes)],
    }  # fmt: skip


WAITING = chain(("read", "csv_input", {"path": "people.csv"}), ("wait", "pause", {"seconds": 60}))


def created(client, document: dict) -> int:
    answer = post_json(client, "/api/pipelines", document)
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


def preview_of(client, pipeline_id: int, node: str):
    return post_json(client, f"/api/pipelines/{pipeline_id}/preview", {"node": node})


def job_processes(name: str = "pw-preview") -> list[int]:
    """The live processes named `name` forked by this test process's fork server."""
    return processes_named(name)


def refusal(answer) -> tuple[int, str, str | None, str]:
    """An error answer's status, code, node and message."""
    body = answer.json()
    assert set(body) == {"code", "message", "node", "field"}, body
    return answer.status_code, body["code"], body["node"], body["message"]


def in_background(request) -> tuple[threading.Thread, list]:
    """`request()` on a thread of its own, started; its answer in the list once it ends."""
    answers: list = []
    thread = threading.Thread(target=lambda: answers.append(request()))
    thread.start()
    return thread, answers


@pytest.fixture
def access(owner, data_root) -> dict:
    return engine_access(personal_workspace(owner), owner)


def test_previews_schemas_and_run_checks_answer_as_the_server_computed_them(access):
    document = load_document(SEED)
    assert jobs.preview(document, "adults", 1, parameters={"min_age": 40}, **access) == (
        preview(document, "adults", 1, parameters={"min_age": 40}, **access).to_json()
    )
    assert jobs.infer_schemas(document, {}, **access) == (
        infer_schemas(document, {}, **access).to_json()
    )
    unfit = {"min_age": "old"}  # a parameter that does not fit the column it meets
    assert jobs.run_problems(document, unfit, **access) == (run_problems(document, unfit, **access))
    assert jobs.run_problems(document, unfit, **access) != []


def test_a_jobs_errors_are_raised_here_as_the_runtime_raises_them(access, data_root):
    document = load_document(SEED)
    with pytest.raises(PipelineValidationError) as pooled:
        jobs.preview(document, "nobody", **access)
    with pytest.raises(PipelineValidationError) as here:
        preview(document, "nobody", **access)
    assert pooled.value.problems == here.value.problems
    (data_root / "people.csv").unlink()
    with pytest.raises(NodeExecutionError, match=r"^node 'read' failed: .*people\.csv") as failed:
        jobs.preview(document, "adults", **access)
    assert failed.value.node_id == "read"


def test_the_web_process_reads_no_data_for_previews_schemas_run_checks_and_plans(
    client, pipeline_id, data_root, monkeypatch
):
    """Reading a CSV fails in this process: the answers come from processes that can."""

    def no_reading_here(*args, **kwargs):
        raise AssertionError("the web server read a data file")

    plan = f"/api/pipelines/{pipeline_id}/plan?backend=duckdb"  # its filter lowers: columns known
    planned = client.get(plan).json()
    monkeypatch.setattr(CsvInput, "read_file", no_reading_here)
    assert client.get(plan).json() == planned
    assert planned["segments"][0]["nodes"] == ["read", "adults", "write"]
    shown = preview_of(client, pipeline_id, "adults")
    assert shown.status_code == 200 and shown.json()["rows"] == [[1, "Ada", 36], [3, "Grace", 85]]
    schemas = client.get(f"/api/pipelines/{pipeline_id}/schemas").json()
    assert schemas["problems"] == []
    assert [column["name"] for column in schemas["nodes"]["read"]["outputs"]["out"]] == [
        "id", "name", "age",
    ]  # fmt: skip
    assert post_json(client, f"/api/pipelines/{pipeline_id}/validate", {}).json()["valid"]
    unfit = post_json(
        client, f"/api/pipelines/{pipeline_id}/runs", {"parameters": {"min_age": "x"}}
    )
    assert (unfit.status_code, unfit.json()["code"]) == (422, "invalid_pipeline")


def test_a_preview_past_its_time_limit_is_stopped_with_a_422_and_its_process_is_gone(
    client, data_root, pause_operator, settings
):
    settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S = 0.5
    answer = preview_of(client, created(client, WAITING), "wait")
    assert refusal(answer) == (422, "preview_timeout", "wait", (
        "the preview of node 'wait' took longer than the 0.5 s PIPEWRIGHT_PREVIEW_TIMEOUT allows "
        f"and was stopped; {ADVICE}"
    ))  # fmt: skip
    assert job_processes() == []


def test_a_schema_inference_past_its_time_limit_is_a_422_saying_what_was_stopped(
    client, pipeline_id, settings
):
    settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S = 0  # stopped before it could answer
    answer = client.get(f"/api/pipelines/{pipeline_id}/schemas")
    assert answer.status_code == 422
    assert answer.json()["code"] == "preview_timeout"
    assert answer.json()["message"].startswith("working out the pipeline's columns took longer")
    assert job_processes("pw-schemas") == []


def test_a_preview_past_its_memory_is_stopped_with_a_422(client, data_root, monkeypatch):
    monkeypatch.setenv("PIPEWRIGHT_RUN_MEMORY", "200MiB")
    (data_root / "same.csv").write_text("k,v\n" + "".join(f"1,{i}\n" for i in range(5000)))
    document = chain(
        ("left", "csv_input", {"path": "same.csv"}),
        ("join", "join", {"how": "inner", "left_on": ["k"], "right_on": ["k"]}),
    )  # 5000 x 5000 rows of one key: 25 million rows, some gigabytes
    document["nodes"].append(
        {"id": "right", "operator": "csv_input", "params": {"path": "same.csv"}}
    )
    document["edges"] = [
        {"source": "left", "target": "join", "target_port": "left"},
        {"source": "right", "target": "join", "target_port": "right"},
    ]
    answer = preview_of(client, created(client, document), "join")
    assert refusal(answer) == (422, "preview_out_of_memory", "join", (
        "the preview of node 'join' was stopped: it grew by more than the 200 MiB that "
        f"PIPEWRIGHT_RUN_MEMORY allows a run, and 128 MiB for the engine; {ADVICE}"
    ))  # fmt: skip
    assert job_processes() == []


@pytest.mark.django_db(transaction=True)
def test_a_job_process_killed_mid_preview_answers_a_422_saying_so(
    client, owner, data_root, pause_operator
):
    waiting = created(client, WAITING)
    thread, answers = in_background(lambda: preview_of(client_for(owner), waiting, "wait"))
    wait_until(lambda: len(job_processes()) == 1)
    os.kill(job_processes()[0], signal.SIGKILL)
    thread.join(20)
    [answer] = answers
    assert refusal(answer) == (422, "preview_process_died", "wait", (
        "the preview of node 'wait' failed: its process was killed (SIGKILL); try again"
    ))  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_previews_past_the_pool_wait_for_a_free_process(
    client, owner, pipeline_id, data_root, pause_operator, settings
):
    settings.PIPEWRIGHT_MAX_PREVIEWS = 2
    waiting = created(client, WAITING)
    slow = [in_background(lambda: preview_of(client_for(owner), waiting, "wait")) for _ in range(2)]
    wait_until(lambda: len(job_processes()) == 2)
    busy = job_processes()
    queued, shown = in_background(lambda: preview_of(client_for(owner), pipeline_id, "adults"))
    wait_until(lambda: jobs.place_in_line(owner) == 1)
    assert queued.is_alive() and sorted(job_processes()) == sorted(busy)  # it waits
    os.kill(busy[0], signal.SIGKILL)  # a process is free: the waiting preview gets it
    queued.join(20)
    assert shown[0].status_code == 200
    assert shown[0].json()["rows"] == [[1, "Ada", 36], [3, "Grace", 85]]
    os.kill(busy[1], signal.SIGKILL)
    for thread, answers in slow:
        thread.join(20)
        assert answers[0].json()["code"] == "preview_process_died"


@pytest.mark.django_db(transaction=True)
def test_a_job_is_served_by_the_spare_process_warmed_up_after_the_last_one(
    client, owner, pipeline_id, data_root, pause_operator
):
    assert client.get(f"/api/pipelines/{pipeline_id}/schemas").status_code == 200
    wait_until(local.spare.is_ready)
    [spare] = job_processes("pw-standby")
    waiting = created(client, WAITING)
    thread, answers = in_background(lambda: preview_of(client_for(owner), waiting, "wait"))
    wait_until(lambda: job_processes() == [spare])
    os.kill(spare, signal.SIGKILL)
    thread.join(20)
    assert answers[0].json()["code"] == "preview_process_died"
