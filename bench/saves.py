"""What one autosave costs the server for a 1,000-node pipeline: requests, SQL queries, time.

    python bench/saves.py [--chains 10] [--length 100] [--saves 20]

Over a fresh SQLite database and Django's test client (no network), a CSV input feeds
`chains` chains of `length` filters. Each save is what the editor sends after a drag: the
whole document with one node moved. When the save's answer carries no `schemas` (older
servers), the editor then asked for `validate` and `schemas`, and so does this benchmark, so
that the figures compare one editor round trip. Prints the median per save.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live import setup_database  # noqa: E402
from bench.table import print_table  # noqa: E402


def chains_pipeline(chains: int, length: int) -> dict:
    """A CSV input feeding `chains` chains of `length` filters."""
    nodes = [{"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}}]
    edges = []
    for chain in range(chains):
        for step in range(length):
            node_id = f"c{chain}_{step}"
            nodes.append({"id": node_id, "operator": "filter", "params": {"condition": "age > 1"},
                          "position": {"x": step * 240, "y": chain * 130}})  # fmt: skip
            edges.append({"source": f"c{chain}_{step - 1}" if step else "read", "target": node_id})
    return {"format": "pipewright.pipeline", "version": 1, "name": "1,000 filters",
            "nodes": nodes, "edges": edges}  # fmt: skip


def editor_save(client, url: str, body: dict) -> tuple[dict, int]:
    """One editor round trip after a change: the saved answer and the requests it took."""
    response = client.put(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content[:500]
    saved = response.json()
    if "schemas" in saved:
        return saved, 1
    assert client.post(f"{url}/validate").status_code == 200
    assert client.get(f"{url}/schemas").status_code == 200
    return saved, 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=10)
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--saves", type=int, default=20)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        setup_database(Path(folder))
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext, setup_test_environment

        setup_test_environment()  # the test client's host is allowed
        settings.PIPEWRIGHT_DATA_ROOT = Path(folder)
        (Path(folder) / "bench").mkdir()
        (Path(folder) / "bench" / "people.csv").write_text("id,name,age\n1,Ada,36\n")
        client = Client()
        client.force_login(get_user_model().objects.get(username="bench"))
        document = chains_pipeline(options.chains, options.length)
        created = client.post("/api/pipelines", json.dumps(document), "application/json")
        assert created.status_code == 201, created.content[:300]
        url = f"/api/pipelines/{created.json()['id']}"
        body = client.get(url).json()
        timings, queries, requests = [], [], 0
        for index in range(options.saves):
            body["nodes"][1 + index % 50]["position"] = {"x": index * 10.0, "y": 5.0}
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                saved, requests = editor_save(client, url, body)
                timings.append((time.perf_counter() - started) * 1000)
            queries.append(len(captured))
            body["revision"] = saved["revision"]
    nodes = 1 + options.chains * options.length
    print_table(
        ["one save after a drag", "nodes", "requests", "SQL queries", "ms (median)"],
        [["editor round trip", nodes, requests, statistics.median(queries),
          f"{statistics.median(timings):.0f}"]],
    )  # fmt: skip


if __name__ == "__main__":
    main()
