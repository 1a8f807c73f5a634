"""What a run's or a job's process is given and loads, from the runtime's side: none of the
web server's secrets (in its environment or /proc), no Django nor anything of the web side, and
only the connections its pipeline names. Real processes, started by a fork server whose own
environment holds the secrets; a probe operator reports what it sees inside."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from runtime.checks.analysis import analyse
from runtime.document.spec import load_document
from runtime.io.sql.connection_specs import ConnectionSpec
from runtime.plan import build_plan
from runtime.worker.wire import named_connections
from runtime.worker.zygote import scrubbed_environment
from tests.plugin_sites import operator_site
from tests.runtime.worker.conftest import SECRETS
from tests.runtime.worker.conversations import converse, job, order, pipeline
from tests.test_layering import FORBIDDEN_IN_RUNTIME

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
