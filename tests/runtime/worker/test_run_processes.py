"""Runs and jobs in processes of their own, from the runtime's side: the pre-started server,
what a run's or a job's process is given and loads, the commit gate, a job's one answer, and
no run process outliving its supervisor. Real processes throughout; the tests speak the wire
protocol themselves."""

from __future__ import annotations

import csv
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from runtime.budget import Budget
from runtime.checks.analysis import analyse
from runtime.checks.inference import infer_schemas, run_problems
from runtime.document.spec import load_document
from runtime.execution.preview import preview
from runtime.execution.statuses import RunStatus
from runtime.io.paths import FileArea
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.plan import build_plan
from runtime.plan.explain import explain_json
from runtime.plan.prepare import prepare
from runtime.worker.child import EXIT_ORPHANED
from runtime.worker.trail import Trail
from runtime.worker.wire import JobOrder, Link, RunOrder, named_connections
from runtime.worker.zygote import NICENESS, ForkServer, RunProcess, scrubbed_environment
from tests.plugin_sites import operator_site
from tests.test_layering import FORBIDDEN_IN_RUNTIME

SECRETS = {
    "PIPEWRIGHT_SECRET_KEY": "secret-key-7f3a",
    "DATABASE_URL": "postgresql://app:db-pass-91c2@db/pipewright",
    "PIPEWRIGHT_ENCRYPTION_KEY": "encryption-key-5d6e",
    "REDIS_URL": "redis://:redis-pass-0b4c@cache:6379/0",
    "DJANGO_SETTINGS_MODULE": "pipewright.settings",
}
PROBE = '''
"""An operator that reports what its process has loaded and been given."""
import os, sys
import pandas as pd
from runtime.operators.contract import Operator, Port
from runtime.tables.schema import Column, Schema

class Probe(Operator):
    name = "probe"
    kind = "input"
    title = "Probe"
    inputs = ()
    outputs = (Port("out"),)
    deterministic = False

    def output_schema(self, ctx, inputs):
        return {"out": Schema.of(Column("item", "string", False))}

    def run(self, ctx, inputs):
        items = [f"module:{name}" for name in sys.modules]
        items += [f"env:{name}={value}" for name, value in os.environ.items()]
        items += [f"connection:{name}" for name in ctx.connections]
        return {"out": pd.DataFrame({"item": items})}
'''


def pipeline(*nodes: dict, config: dict | None = None) -> dict:
    """A chain of `nodes`, each feeding the next."""
    edges = [{"source": a["id"], "target": b["id"]} for a, b in itertools.pairwise(nodes)]
    return {"format": "pipewright.pipeline", "version": 1, "name": "chain",
            "config": config or {}, "nodes": list(nodes), "edges": edges}  # fmt: skip


def order(document: dict, root: Path, *, run_id=1, extra_path=(), connections=None) -> dict:
    """The `start` message of a run of `document` in the folder `root`."""
    return RunOrder(
        run_id=run_id, document=document, parameters={}, area=FileArea(root),
        connections=connections or {}, budget=Budget(memory_bytes=2**30, threads=1),
        sys_path=[*map(str, extra_path), *sys.path],
    ).to_message()  # fmt: skip


def job(name: str, document: dict, root: Path, *, extra_path=(), connections=None, **options):
    """The `job` message of job `name` on `document` in the folder `root`."""
    return JobOrder(
        job=name, document=document, parameters={}, area=FileArea(root),
        connections=connections or {}, budget=Budget(memory_bytes=2**30, threads=1),
        sys_path=[*map(str, extra_path), *sys.path], options=options,
    ).to_message()  # fmt: skip


def converse(process: RunProcess, *, allow_commits: bool = True) -> list[dict]:
    """Every message of the run's process until it ends, its commits answered."""
    messages = []
    while True:
        try:
            message = process.link.receive(30)
        except EOFError:
            return messages
        assert message is not None, "the run's process said nothing for 30 s"
        messages.append(message)
        if message["kind"] == "may_commit":
            process.link.send("commit", id=message["id"], allowed=allow_commits)


def wait_for_status(process: RunProcess, node: str, status: str) -> None:
    """Read the run's messages until `node` is reported `status`."""
    while True:
        message = process.link.receive(30)
        assert message is not None, f"{node} was not {status} within 30 s"
        if any(e.get("node") == node and e.get("status") == status for e in events_of([message])):
            return


def events_of(messages: list[dict]) -> list[dict]:
    batches = [message["events"] for message in messages if message["kind"] == "events"]
    return [event for batch in batches for event in batch]


def gone(pid: int) -> bool:
    """Whether a process has ended (a zombie nobody reaped has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def server_with_secrets():
    """A fork server started from a process whose environment holds the web server's secrets."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in SECRETS.items():
            patch.setenv(name, value)
        server = ForkServer()
        server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def probe_site(tmp_path_factory) -> Path:
    """A folder holding the probe operator as an installed plugin."""
    return operator_site(tmp_path_factory.mktemp("probe-site"), "pipewright_probe", PROBE,
                         {"probe": "Probe"})  # fmt: skip


@pytest.fixture(scope="module")
def probed(server_with_secrets, probe_site, tmp_path_factory) -> dict:
    """What a run process's /proc environ holds, and what the probe saw inside it."""
    root = tmp_path_factory.mktemp("probe-data")
    document = pipeline(
        {"id": "probe", "operator": "probe"},
        {"id": "write", "operator": "csv_output", "params": {"path": "probe.csv"}},
    )
    given = {"warehouse": ConnectionSpec("sqlite:///warehouse.db", read_only=True)}
    process = server_with_secrets.fork()
    environ = Path(f"/proc/{process.pid}/environ").read_bytes()
    process.link.send("start", **order(document, root, extra_path=[probe_site], connections=given))
    messages = converse(process)
    process.close()
    assert messages[-1]["kind"] == "done", messages[-1]
    with (root / "probe.csv").open() as file:
        items = [row["item"] for row in csv.DictReader(file)]
    return {"environ": environ, "items": items}


@pytest.fixture(scope="module")
def probed_job(server_with_secrets, probe_site, tmp_path_factory) -> dict:
    """What a job process's /proc environ holds, and what the probe saw inside it (a preview
    of the probe's rows)."""
    document = pipeline({"id": "probe", "operator": "probe"})
    given = {"warehouse": ConnectionSpec("sqlite:///warehouse.db", read_only=True)}
    folder = tmp_path_factory.mktemp("probe-job")
    message = job("preview", document, folder, extra_path=[probe_site], connections=given,
                  node="probe", limit=10_000)  # fmt: skip
    process = server_with_secrets.fork()
    environ = Path(f"/proc/{process.pid}/environ").read_bytes()
    process.link.send("job", **message)
    [answer] = converse(process)
    process.close()
    assert answer["kind"] == "answer", answer
    return {"environ": environ, "items": [row[0] for row in answer["answer"]["rows"]]}


@pytest.mark.parametrize("probe", ["probed", "probed_job"])
def test_a_run_or_job_process_holds_none_of_the_web_servers_secrets(probe, request):
    probed = request.getfixturevalue(probe)
    for name, value in SECRETS.items():
        assert value.encode() not in probed["environ"], name  # /proc/<pid>/environ
        assert not [item for item in probed["items"] if item.startswith(f"env:{name}=")]
    assert f"PATH={os.environ['PATH']}".encode() in probed["environ"]


@pytest.mark.parametrize("probe", ["probed", "probed_job"])
def test_a_run_or_job_process_loads_no_django_nor_anything_of_the_web_side(probe, request):
    probed = request.getfixturevalue(probe)
    modules = {
        item.removeprefix("module:") for item in probed["items"] if item.startswith("module:")
    }
    assert "runtime.execution.executor" in modules  # the probe saw the modules of its process
    assert {name for name in modules if name.split(".")[0] in FORBIDDEN_IN_RUNTIME} == set()


@pytest.mark.parametrize("probe", ["probed", "probed_job"])
def test_a_run_or_job_process_has_the_connections_it_is_given_and_no_others(probe, request):
    probed = request.getfixturevalue(probe)
    given = [item for item in probed["items"] if item.startswith("connection:")]
    assert given == ["connection:warehouse"]


def test_a_run_process_is_given_only_the_connections_its_pipeline_names():
    read = {"connection": "${source}", "query": "select 1"}
    document = pipeline(
        {"id": "read", "operator": "sql_input", "params": read},
        config={"parameters": {"source": "warehouse"}},
    )
    workspace = {"warehouse": "sqlite:///w.db", "crm": ConnectionSpec("postgresql://crm/db")}
    plan = build_plan(load_document(document), {"source": "crm"})
    assert named_connections(plan, workspace) == {"crm": ConnectionSpec("postgresql://crm/db")}


def test_a_half_built_document_names_its_connections_through_its_analysis():
    """A job's document may not build a plan (here: an edge to nowhere), yet is given the
    connections its nodes name, parameters substituted."""
    read = {"connection": "${source}", "query": "select 1"}
    document = pipeline(
        {"id": "read", "operator": "sql_input", "params": read},
        config={"parameters": {"source": "warehouse"}},
    )
    document["edges"] = [{"source": "read", "target": "nowhere"}]
    workspace = {"warehouse": "sqlite:///w.db", "crm": ConnectionSpec("postgresql://crm/db")}
    analysis = analyse(load_document(document), {"source": "crm"})
    assert analysis.problems  # no plan builds from it
    assert named_connections(analysis, workspace) == {"crm": ConnectionSpec("postgresql://crm/db")}


def answer_of(server: ForkServer, message: dict) -> dict:
    """The one message a job's process sends for its `job` message; it then exits, with 0."""
    process = server.fork()
    process.link.send("job", **message)
    [answer] = converse(process)
    assert process.wait(10) and process.returncode == 0
    process.close()
    return answer


@pytest.fixture
def people(tmp_path) -> Path:
    (tmp_path / "people.csv").write_text("id,name,age\n1,Ada,36\n2,Linus,17\n")
    return tmp_path


ADULTS = pipeline(
    {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
    {"id": "adults", "operator": "filter", "params": {"condition": "age >= ${min_age}"}},
    config={"parameters": {"min_age": 18}},
)


IN_THE_SERVER = {
    "schemas": lambda document, area: infer_schemas(document, data_root=area).to_json(),
    "run_problems": lambda document, area: [
        problem.to_json() for problem in run_problems(document, data_root=area)
    ],
    "preview": lambda document, area: preview(document, "adults", 1, data_root=area).to_json(),
    "plan": lambda document, area: {
        "problems": [],
        "plan": explain_json(prepare(build_plan(document, data_root=area), data_root=area)),
    },
}
"""Each job's answer as the web server computed it before, in its own process."""


@pytest.mark.parametrize("name", IN_THE_SERVER)
def test_a_job_process_answers_what_the_job_answers_in_the_server(
    server_with_secrets, people, name
):
    options = {"node": "adults", "limit": 1} if name == "preview" else {}
    answer = answer_of(server_with_secrets, job(name, ADULTS, people, **options))
    expected = IN_THE_SERVER[name](load_document(ADULTS), FileArea(people))
    assert answer == {"kind": "answer", "answer": expected}


def test_a_spare_process_warms_up_on_its_own_says_so_then_serves_the_job_that_comes(
    server_with_secrets, people
):
    process = server_with_secrets.fork()
    process.link.send("standby")
    wait_until(lambda: Path(f"/proc/{process.pid}/comm").read_text().strip() == "pw-standby")
    assert process.link.receive(60) == {"kind": "ready"}  # its warm-up is its own
    process.link.send("job", **job("schemas", ADULTS, people))
    [answer] = converse(process)
    assert process.wait(10) and process.returncode == 0
    process.close()
    expected = infer_schemas(load_document(ADULTS), data_root=FileArea(people)).to_json()
    assert answer == {"kind": "answer", "answer": expected}


def test_a_job_process_sends_the_errors_its_job_raised(server_with_secrets, people):
    invalid = answer_of(server_with_secrets, job("preview", ADULTS, people, node="x", limit=1))
    assert invalid["kind"] == "invalid"
    assert invalid["problems"] == [
        {"code": "invalid", "node": None, "field": "node", "field_title": None,
         "message": "there is no node 'x'"},
    ]  # fmt: skip
    (people / "people.csv").unlink()
    failed = answer_of(server_with_secrets, job("preview", ADULTS, people, node="adults", limit=1))
    assert (failed["kind"], failed["node"]) == ("node_failed", "read")
    assert "people.csv" in failed["message"]


def test_the_environment_given_to_runs_keeps_what_they_need_and_drops_secrets():
    environ = {
        **SECRETS, "PATH": "/usr/bin", "HOME": "/home/pw", "PYTHONPATH": "/srv", "LANG": "C.UTF-8",
        "PIPEWRIGHT_RUN_MEMORY": "2GiB", "PIPEWRIGHT_DATA_ROOT": "/srv/data",
        "AWS_SECRET_ACCESS_KEY": "aws", "GITHUB_TOKEN": "gh", "PGPASSWORD": "pg",
    }  # fmt: skip
    assert scrubbed_environment(environ) == {
        "PATH": "/usr/bin", "HOME": "/home/pw", "PYTHONPATH": "/srv", "LANG": "C.UTF-8",
        "PIPEWRIGHT_RUN_MEMORY": "2GiB", "PIPEWRIGHT_DATA_ROOT": "/srv/data",
    }  # fmt: skip


def test_a_refused_commit_publishes_nothing_and_leaves_no_temporary_file(
    server_with_secrets, tmp_path
):
    (tmp_path / "people.csv").write_text("id,name\n1,Ada\n")
    document = pipeline(
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/people.csv"}},
    )
    process = server_with_secrets.fork()
    process.link.send("start", **order(document, tmp_path))
    messages = converse(process, allow_commits=False)
    process.close()
    asked = [message for message in messages if message["kind"] == "may_commit"]
    [write] = [e for e in events_of(messages) if e.get("node") == "write" and "metrics" in e]
    assert len(asked) == 1 and write["status"] == "failed"
    assert write["error"] == "node 'write' may not commit: the run is being stopped"
    assert not (tmp_path / "out").exists()  # nor the folder its write made


def test_a_run_process_is_niced_named_after_its_run_and_ends_when_its_socket_closes(
    server_with_secrets, plugin_site, tmp_path
):
    (tmp_path / "rows.csv").write_text("id\n1\n")
    document = pipeline(
        {"id": "read", "operator": "csv_input", "params": {"path": "rows.csv"}},
        {"id": "wait", "operator": "pause", "params": {"seconds": 60}},
    )
    process = server_with_secrets.fork()
    process.link.send("start", **order(document, tmp_path, run_id=42, extra_path=[plugin_site]))
    wait_for_status(process, "wait", "running")
    stat = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert Path(f"/proc/{process.pid}/comm").read_text().strip() == "pw-run-42"
    assert int(stat[16]) == os.nice(0) + NICENESS  # field 19 of stat: the nice value
    process.link.close()  # the supervisor goes away mid-run
    assert process.wait(10) and process.returncode == EXIT_ORPHANED
    process.close()


SUPERVISOR = """
import json, sys
from runtime.budget import Budget
from runtime.io.paths import FileArea
from runtime.worker.wire import RunOrder
from runtime.worker.zygote import ForkServer

document, root, site = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
server = ForkServer()
process = server.fork()
order = RunOrder(document, {}, FileArea(root), {}, Budget(2**30, 1), [site, *sys.path], run_id=7)
process.link.send("start", **order.to_message())
while True:
    for event in process.link.receive().get("events", []):
        if event.get("node") == "wait" and event.get("status") == "running":
            print(process.pid, flush=True)
"""


def test_a_run_process_and_its_server_end_when_the_supervisor_process_is_killed(
    plugin_site, tmp_path
):
    (tmp_path / "rows.csv").write_text("id\n1\n")
    document = pipeline(
        {"id": "read", "operator": "csv_input", "params": {"path": "rows.csv"}},
        {"id": "wait", "operator": "pause", "params": {"seconds": 60}},
    )
    supervisor = subprocess.Popen(
        [sys.executable, "-c", SUPERVISOR, json.dumps(document), str(tmp_path), str(plugin_site)],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[3],
    )  # fmt: skip
    run_pid = int(supervisor.stdout.readline())
    server_pid = int(Path(f"/proc/{run_pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    supervisor.send_signal(signal.SIGKILL)
    supervisor.wait()
    wait_until(lambda: gone(server_pid) and gone(run_pid))


def test_a_supervisor_ends_a_run_continuing_its_numbering_and_settling_every_node():
    trail = Trail(5, {"read": "input", "sort": "process", "write": "output"})
    seen = [
        {"type": "run_started", "nodes": ["read", "sort", "write"]},
        {"type": "node_status", "node": "read", "status": "running", "attempt": 1},
        {"type": "node_status", "node": "read", "status": "succeeded", "attempt": 1,
         "metrics": {"rows_in": {}, "rows_out": 12, "duration_s": 0.1}},
        {"type": "node_status", "node": "sort", "status": "running", "attempt": 1},
    ]  # fmt: skip
    for seq, event in enumerate(seen, 1):
        trail.saw({"run_id": 5, "seq": seq, "time": "t", **event})
    assert trail.running() == ["sort"]
    ending = trail.ending(RunStatus.FAILED, "the run's process was killed (SIGKILL) at node sort")
    assert [(e["seq"], e.get("node"), e["status"]) for e in ending] == [
        (5, "sort", "failed"), (6, "write", "cancelled"), (7, None, "failed"),
    ]  # fmt: skip
    assert ending[0]["error"] == ending[1]["reason"] == ending[2]["error"]
    assert ending[2]["totals"] == {
        "nodes": {"cancelled": 1, "failed": 1, "succeeded": 1}, "rows_read": 12, "rows_written": 0,
        "reused": [],
    }  # fmt: skip


def test_a_run_is_supervised_when_its_file_descriptors_are_past_1024(server_with_secrets, tmp_path):
    """A busy web server holds thousands of sockets: its new pipes get high numbers."""
    (tmp_path / "people.csv").write_text("id\n1\n")
    document = pipeline({"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}})
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        process = server_with_secrets.fork()
        process.link.send("start", **order(document, tmp_path))
        messages = converse(process)
        assert messages[-1]["kind"] == "done" and process.wait(10)
        assert process.returncode == 0
        process.close()
    finally:
        for fd in held:
            os.close(fd)


def test_any_text_crosses_the_wire_unchanged():
    """Messages carry what files held: accents, emoji, and undecodable bytes (lone surrogates)."""
    ours, theirs = socket.socketpair()
    sender, receiver = Link(ours.detach()), Link(theirs.detach())
    text = "ünïcode 😀 \udc80 \x00 " + "x" * 5_000_000  # more than a socket buffers
    sending = threading.Thread(target=sender.send, args=("events",), kwargs={"events": [text]})
    sending.start()
    assert receiver.receive(5) == {"kind": "events", "events": [text]}
    sending.join()
    sender.close()
    with pytest.raises(EOFError):
        receiver.receive(5)
