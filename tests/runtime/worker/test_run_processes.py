"""Runs and jobs in processes of their own, from the runtime's side: the pre-started server,
a job's one answer, the commit gate, and no run process outliving its supervisor. Real
processes throughout; the tests speak the wire protocol themselves. What such a process is
given and loads: test_process_isolation.py."""

from __future__ import annotations

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

from runtime.checks.inference import infer_schemas, run_problems
from runtime.document.spec import load_document
from runtime.execution.preview import preview
from runtime.execution.statuses import RunStatus
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain_json
from runtime.plan.prepare import prepare
from runtime.worker.child import EXIT_ORPHANED
from runtime.worker.trail import Trail
from runtime.worker.wire import Link
from runtime.worker.zygote import NICENESS, ForkServer, RunProcess
from tests.runtime.worker.conversations import converse, events_of, job, order, pipeline


def wait_for_status(process: RunProcess, node: str, status: str) -> None:
    """Read the run's messages until `node` is reported `status`."""
    while True:
        message = process.link.receive(30)
        assert message is not None, f"{node} was not {status} within 30 s"
        if any(e.get("node") == node and e.get("status") == status for e in events_of([message])):
            return


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
        "reused": [], "fallbacks": {},
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
