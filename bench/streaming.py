"""Peak memory of pipelines whose operators stream by batches, at several input sizes.

    python bench/streaming.py [--rows 200000 2000000 10000000] [--backend auto pandas]

Two pipelines, each run as a fresh `python -m runtime run --no-cache` process measured by
bench/watch.py (max RSS of the run): a SQLite `sql_input` → `validate` (range, not_null) →
`csv_output` (valid rows; invalid ones to a second CSV), and a JSON Lines `json_input` →
`filter` → `parquet_output`. Rows have 5 columns (integer, text, float, ISO date, text). The
table shows peak MB and CPU seconds by rows and the ratio of each peak to the smallest run's:
a run whose memory is flat in its input's size stays near 1. The data is generated once
under bench/.data/streaming/.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / ".data" / "streaming"
CITIES = ("Lyon", "Nice", "Paris", "Lille", None)
CHUNK = 100_000


def row(index: int) -> tuple:
    """The `index`th row: id, city (a null in five), amount, day, note."""
    day = f"2024-{index % 12 + 1:02d}-{index % 28 + 1:02d}"
    return index, CITIES[index % 5], (index * 7919) % 1000 / 10, day, f"note {index % 997}"


def sqlite_file(rows: int) -> Path:
    """A SQLite database of `rows` sales (made once)."""
    path = DATA / f"sales_{rows}.db"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.unlink(missing_ok=True)
        with sqlite3.connect(partial) as database:
            database.execute(
                "CREATE TABLE sales (id INTEGER, city TEXT, amount REAL, day TEXT, note TEXT)"
            )
            for start in range(0, rows, CHUNK):
                chunk = (row(index) for index in range(start, min(rows, start + CHUNK)))
                database.executemany("INSERT INTO sales VALUES (?, ?, ?, ?, ?)", chunk)
        partial.rename(path)
    return path


def json_lines_file(rows: int) -> Path:
    """A JSON Lines file of `rows` sales (made once)."""
    path = DATA / f"sales_{rows}.jsonl"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        names = ("id", "city", "amount", "day", "note")
        with partial.open("w") as handle:
            for start in range(0, rows, CHUNK):
                handle.writelines(
                    json.dumps(dict(zip(names, row(index), strict=True))) + "\n"
                    for index in range(start, min(rows, start + CHUNK))
                )
        partial.rename(path)
    return path


def document(name: str, nodes: list[dict], edges: list[dict], backend: str) -> dict:
    return {"format": "pipewright.pipeline", "version": 1, "name": name, "nodes": nodes,
            "edges": edges, "config": {"backend": backend}}  # fmt: skip


def validated_query(rows: int, backend: str) -> dict:
    """sql_input → validate → csv_output (valid) and csv_output (invalid)."""
    rules = [
        {"rule": "not_null", "column": "city"},
        {"rule": "range", "column": "amount", "min": 5, "max": 95},
    ]
    nodes = [
        {"id": "read", "operator": "sql_input",
         "params": {"connection": "sales", "query": "SELECT * FROM sales"}},
        {"id": "check", "operator": "validate", "params": {"rules": rules}},
        {"id": "good", "operator": "csv_output", "params": {"path": f"out/valid_{rows}.csv"}},
        {"id": "bad", "operator": "csv_output", "params": {"path": f"out/invalid_{rows}.csv"}},
    ]  # fmt: skip
    edges = [
        {"source": "read", "target": "check"},
        {"source": "check", "source_port": "valid", "target": "good"},
        {"source": "check", "source_port": "invalid", "target": "bad"},
    ]
    return document("validated query", nodes, edges, backend)


def filtered_lines(rows: int, backend: str) -> dict:
    """json_input (JSON Lines) → filter → parquet_output."""
    nodes = [
        {"id": "read", "operator": "json_input",
         "params": {"path": f"sales_{rows}.jsonl", "lines": True}},
        {"id": "some", "operator": "filter", "params": {"condition": "amount > 20"}},
        {"id": "write", "operator": "parquet_output",
         "params": {"path": f"out/some_{rows}.parquet"}},
    ]  # fmt: skip
    edges = [{"source": "read", "target": "some"}, {"source": "some", "target": "write"}]
    return document("filtered lines", nodes, edges, backend)


PIPELINES = {
    "sql → validate → csv": validated_query,
    "json lines → filter → parquet": filtered_lines,
}


def measure(name: str, rows: int, backend: str) -> dict:
    """One run of the pipeline `name` over `rows` rows, measured by bench/watch.py."""
    sqlite_file(rows) if "sql" in name else json_lines_file(rows)
    path = DATA / f"pipeline_{rows}_{backend}.json"
    path.write_text(json.dumps(PIPELINES[name](rows, backend)))
    connections = DATA / "connections.json"
    connections.write_text(json.dumps({"sales": f"sqlite:///sales_{rows}.db"}))
    command = [sys.executable, "-m", "runtime", "run", str(path), "--no-cache",
               "--data-root", str(DATA), "--connections", str(connections)]  # fmt: skip
    watch = [sys.executable, str(ROOT / "bench" / "watch.py"), "0", "0", *command]
    done = subprocess.run(watch, cwd=ROOT, capture_output=True, text=True, check=True)
    measured = json.loads(done.stdout.splitlines()[-1])
    if measured["code"] != 0:
        raise SystemExit(f"{name} at {rows} rows failed:\n{done.stderr[-2000:]}")
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200_000, 2_000_000, 10_000_000])
    parser.add_argument("--backend", nargs="+", default=["auto", "pandas"])
    parser.add_argument("--pipeline", nargs="+", choices=list(PIPELINES), default=list(PIPELINES))
    args = parser.parse_args()
    print("| pipeline | backend | rows | peak MB | ratio to smallest | CPU s |")
    print("|---|---|---|---|---|---|")
    for name in args.pipeline:
        for backend in args.backend:
            first = None
            for rows in args.rows:
                measured = measure(name, rows, backend)
                first = first or measured["peak_mb"]
                print(
                    f"| {name} | {backend} | {rows:,} | {measured['peak_mb']:.0f} | "
                    f"{measured['peak_mb'] / first:.2f} | {measured['cpu_seconds']:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
