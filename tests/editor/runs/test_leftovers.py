"""What a run killed mid-write leaves is removed by whichever process ends or reaps the run:
its temporary output files and, on MariaDB, its staging tables (named after it). Before, a
`replace` left its staging table forever when the run's process was killed, and a killed
worker service's temporary files stayed until that service started again.

Real processes killed for real (a run's process, a `manage.py runworkers` service), real
MariaDB. Waits are bounds on how long a test waits, never assertions of durations.
"""

from __future__ import annotations

import os
import signal
import uuid

import pytest
import sqlalchemy as sa

from editor.models import Connection, Run
from editor.runs.stale_outputs import remove_stale_outputs
from editor.runs.watch import reap_and_remove_leftovers
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import wait_for_run
from tests.editor.runs import test_run_processes
from tests.editor.runs.helpers import chain, files_under, start, wait_for_node, wait_until
from tests.editor.runs.test_run_processes import process_of

MARIADB = "mysql+pymysql://root@127.0.0.1:3306"

pytestmark = pytest.mark.django_db(transaction=True)

big_csv = test_run_processes.big_csv  # a big CSV: writing or loading it takes seconds
big = test_run_processes.big


@pytest.fixture
def warehouse(owner, settings):
    """A MariaDB database of this test's own, the owner's writable connection `warehouse`
    to it (loopback allowed and the connection saved by staff, as an operator would), and an
    engine to look into it."""
    settings.PIPEWRIGHT_CONNECTION_ALLOW = ["127.0.0.0/8", "::1"]
    name = f"pw_h6_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(MARIADB)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE `{name}`")
    Connection.objects.create(
        workspace=personal_workspace(owner), name="warehouse", url=f"{MARIADB}/{name}",
        read_only=False, saved_by_staff=True,
    )  # fmt: skip
    engine = sa.create_engine(f"{MARIADB}/{name}")
    yield engine
    engine.dispose()
    with admin.begin() as connection:
        connection.exec_driver_sql(f"DROP DATABASE `{name}`")
    admin.dispose()


def tables(engine) -> list[str]:
    return sorted(sa.inspect(engine).get_table_names())


def replace_big_table() -> dict:
    return chain(
        ("read", "csv_input", {"path": "big.csv"}),
        ("load", "sql_output", {"connection": "warehouse", "table": "people", "mode": "replace"}),
    )


def wait_for_staging(run_id: int, engine) -> str:
    """The run's staging table, once its rows are going in."""
    wait_until(lambda: Run.objects.get(pk=run_id).status != "queued", timeout=60)
    wait_for_node(run_id, "load", "running")
    wait_until(lambda: any("__pw_" in name for name in tables(engine)), timeout=60)
    [staging] = tables(engine)
    assert staging.startswith(f"people__pw_{run_id}_")  # it carries the run's id
    return staging


def test_a_replace_whose_run_process_is_killed_leaves_no_staging_table(client, big, warehouse):
    run_id = start(client, replace_big_table())
    wait_for_staging(run_id, warehouse)
    os.kill(process_of(run_id), signal.SIGKILL)
    run = wait_for_run(run_id, timeout=60)
    assert run.status == "failed" and "killed (SIGKILL)" in run.error
    assert tables(warehouse) == []


@pytest.fixture
def worker_service(settings, start_workers, redis_layer, big):
    """A `manage.py runworkers` over the test database and `big`'s data root; this process
    executes nothing (its runs stay queued for the service)."""
    settings.PIPEWRIGHT_WORKERS = "service"
    return start_workers({**redis_layer, "PIPEWRIGHT_CONNECTION_ALLOW": "127.0.0.0/8"}, big.parent)


def test_a_killed_worker_services_staging_table_is_dropped_by_the_process_that_reaps_it(
    client, worker_service, warehouse
):
    run_id = start(client, replace_big_table())
    wait_for_staging(run_id, warehouse)
    worker_service.kill()  # the service and its run's process die with their staging table

    assert reap_and_remove_leftovers() == [run_id]  # another process's reaper, as a web server's
    assert Run.objects.get(pk=run_id).status == "interrupted"
    assert tables(warehouse) == []


def test_a_killed_worker_services_temporary_output_goes_when_another_process_reaps_its_run(
    client, worker_service, big
):
    run_id = start(client, chain(
        ("read", "csv_input", {"path": "big.csv"}),
        ("write", "csv_output", {"path": "out/copy.csv"}),
    ))  # fmt: skip
    wait_for_node(run_id, "write", "running")
    wait_until(lambda: (big / "out").exists() and files_under(big / "out"), timeout=60)
    worker_service.kill()
    wait_until(lambda: process_of(run_id) is None)  # its run's process ends with it
    assert [name.endswith(".tmp") for name in files_under(big / "out")] == [True]

    assert reap_and_remove_leftovers() == [run_id]
    assert files_under(big / "out") == []


def test_a_server_starting_after_its_worker_service_died_drops_the_staging_table_it_left(
    client, worker_service, warehouse
):
    """The runs a starting server reaps (`remove_stale_outputs`, run at every start) have
    their staging tables dropped too, not only those the periodic reaper finds."""
    run_id = start(client, replace_big_table())
    wait_for_staging(run_id, warehouse)
    worker_service.kill()

    remove_stale_outputs()
    assert Run.objects.get(pk=run_id).status == "interrupted"
    assert tables(warehouse) == []
