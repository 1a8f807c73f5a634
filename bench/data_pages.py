"""Paging a large stored result, as the Data tab does: through the runtime and the HTTP API.

    python bench/data_pages.py [--rows 10000000] [--repeat 5]

A Parquet file of the seed ETL's users (bench/seed_etl.py's columns, generated once under
bench/.data/pages/) stands for a node's stored result. Each request is timed `--repeat` times
(median and best, in ms): a page of 100 rows unsorted (first, middle, last), the first page
sorted by a float and by text, a filtered page, and the column statistics; once by calling
`runtime.results.pages` in this process, once by `GET /api/runs/{id}/nodes/{node}/data` of a
daphne server (over a fresh SQLite database, the file in its workspace's result store, the
run's node recording its key as a run with the store does). Targets (issue 15): an unsorted
page at most 200 ms, the first sorted page at most 1.5 s.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
NODE = "enrich"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.table import print_table
    from runtime.results import pages

    path = stored_result(args.rows)
    middle = args.rows // 2
    requests = [
        ("unsorted page, first", {"offset": 0, "limit": 100}),
        ("unsorted page, middle", {"offset": middle, "limit": 100}),
        ("unsorted page, last", {"offset": args.rows - 100, "limit": 100}),
        ("first page sorted by -amount", {"offset": 0, "limit": 100, "sort": "-amount"}),
        ("first page sorted by email", {"offset": 0, "limit": 100, "sort": "email"}),
        ("filtered page (country, age)", {
            "offset": 0, "limit": 100, "filter": "country = 'FR' and age > 50"
        }),
    ]  # fmt: skip
    local = [
        _timed(lambda query=query: pages.page(path, **query), args.repeat) for _, query in requests
    ]
    local.append(_timed(lambda: pages.stats(path), max(1, args.repeat // 2)))
    server, token, run_id = serve(path)
    try:
        base = f"/api/runs/{run_id}/nodes/{NODE}"
        remote = [
            _timed(lambda query=query: _get(server, f"{base}/data", query, token), args.repeat)
            for _, query in requests
        ]
        remote.append(
            _timed(lambda: _get(server, f"{base}/stats", {}, token), max(1, args.repeat // 2))
        )
    finally:
        server.stop()
    names = [name for name, _ in requests] + ["column statistics"]
    print(f"\nA stored result of {args.rows:,} rows ({path.stat().st_size / 1e6:.0f} MB Parquet)")
    print_table(
        ["request", "runtime median ms", "runtime best ms", "HTTP median ms", "HTTP best ms"],
        [[name, *mine, *theirs] for name, mine, theirs in zip(names, local, remote, strict=True)],
    )


def stored_result(rows: int) -> Path:
    """bench/.data/pages/users-<rows>.parquet, generated once in chunks of a million rows."""
    from bench.seed_etl import CHUNK_ROWS, DATA, _users_chunk

    path = DATA / "pages" / f"users-{rows}.parquet"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    rng = np.random.default_rng(42)
    writer = None
    for start in range(0, rows, CHUNK_ROWS):
        table = _users_chunk(rng, start, min(CHUNK_ROWS, rows - start))
        writer = writer or pq.ParquetWriter(partial, table.schema)
        writer.write_table(table)
    writer.close()
    partial.rename(path)
    return path


def serve(path: Path):
    """A daphne server whose user `bench` has a run of the seed ETL that stored `path` as the
    result of its node `enrich`: `(server, token, run id)`."""
    from bench.live import setup_database
    from bench.run_processes import fernet_key
    from tests.servers import DaphneServer

    folder = Path(tempfile.mkdtemp(prefix="pw-data-pages-"))
    data = folder / "data"
    os.environ.update(PIPEWRIGHT_DATA_ROOT=str(data))
    for name in ("PIPEWRIGHT_SECRET_KEY", "PIPEWRIGHT_ENCRYPTION_KEY"):
        os.environ.setdefault(name, fernet_key())
    database, token, _ = setup_database(folder)
    run_id = _recorded_run(path)
    server = DaphneServer(database=database, data_root=data, log_path=folder / "daphne.log")
    server.start().wait_until_ready()
    return server, token, run_id


def _recorded_run(path: Path) -> int:
    """A finished run of the seed ETL by `bench` whose `enrich` node stored `path`."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bench.seed_etl import PIPELINE
    from editor.models import NodeRun, Pipeline, Run
    from editor.workspaces.membership import cache_folder, personal_workspace
    from runtime.cache.store import ResultStore

    user = get_user_model().objects.get(username="bench")
    workspace = personal_workspace(user)
    pipeline = Pipeline.objects.create(workspace=workspace, owner=user, name="Seed ETL")
    now = timezone.now()
    run = Run.objects.create(
        pipeline=pipeline, document=PIPELINE, status="succeeded", started_by=user,
        started_at=now, finished_at=now,
    )  # fmt: skip
    key = hashlib.sha256(str(path).encode()).hexdigest()
    ResultStore(cache_folder(workspace), max_bytes=1 << 40).put_with(
        key, lambda target: shutil.copyfile(path, target)
    )
    NodeRun.objects.create(
        run=run, node_id=NODE, status="succeeded", metrics={"results": {"out": key}}
    )
    return run.pk


def _get(server, path: str, query: dict, token: str) -> None:
    url = f"{path}?{urllib.parse.urlencode(query)}" if query else path
    status, body = server.request("GET", url, None, token)
    assert status == 200, f"{url}: {status} {body}"


def _timed(call, repeat: int) -> list[float]:
    """Median and best of `repeat` calls, in ms (one call first, untimed, to warm up)."""
    call()
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return [round(statistics.median(seconds) * 1000, 1), round(min(seconds) * 1000, 1)]


if __name__ == "__main__":
    main()
