"""What starting a backfill of ten years of daily intervals costs: time, SQL statements, peak
Python memory, and the cost of one advance (claiming the next intervals).

    python bench/backfills.py [--database postgres://postgres@127.0.0.1:5432/bench_backfills]

Without `--database`, a fresh SQLite file; a PostgreSQL database named is created if missing
and migrated (its tables are left for the next run). Prints the median of `--repeat`
creates, and the peak memory of one more (traced apart: tracing slows Python several times).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import print_table  # noqa: E402

DOCUMENT = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Daily",
    "config": {"parameters": {"day": "2024-01-01", "until": "2024-01-02"}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/${day}.csv"}},
    ],
    "edges": [{"source": "read", "target": "write"}],
}


def prepare(database: str) -> None:
    """Point Django at `database`, created (PostgreSQL) and migrated."""
    if database.startswith("postgres"):
        import psycopg

        base, _, name = database.rpartition("/")
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            if not admin.execute("select 1 from pg_database where datname = %s", [name]).fetchone():
                admin.execute(f'create database "{name}"')
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
    os.environ["PIPEWRIGHT_WORKERS"] = "service"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def measure(repeat: int) -> list[list]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from editor.backfills import actions, advance
    from editor.pipelines.actions import import_pipeline
    from editor.schedules import actions as schedules
    from editor.workspaces.membership import personal_workspace
    from runtime import load_document

    user, _ = get_user_model().objects.get_or_create(username="bench-backfills")
    import json

    pipeline = import_pipeline(
        user, load_document(json.dumps(DOCUMENT)), personal_workspace(user), "bench"
    )
    fields = schedules.ScheduleIn(cron="0 0 * * *", enabled=False)
    schedule = schedules.create_schedule(pipeline, user, fields)
    body = actions.BackfillIn(
        start="2014-01-01", end="2024-01-01", start_parameter="day", end_parameter="until",
        value_format="date", concurrency=4,
    )  # fmt: skip
    seconds, statements, peaks, intervals = [], [], [], 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            backfill = actions.create_backfill(schedule, user, body)
            seconds.append(time.perf_counter() - started)
        statements.append(len(queries.captured_queries))
        intervals = actions.progress(backfill)["total"]
    tracemalloc.start()  # apart: tracing slows Python several times
    actions.create_backfill(schedule, user, body)
    peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        advance.claim(backfill.pk, backfill.created_at)
        claim_s = time.perf_counter() - started
    return [
        [connection.vendor, intervals, statistics.median(seconds), statistics.median(statements),
         f"{statistics.median(peaks):.1f}", claim_s, len(queries.captured_queries)],
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        prepare(options.database or f"sqlite:///{Path(folder) / 'bench.sqlite3'}")
        rows = measure(options.repeat)
    print_table(
        ["database", "intervals", "create s", "statements", "peak MiB", "claim s", "claim stmts"],
        rows,
    )


if __name__ == "__main__":
    main()
