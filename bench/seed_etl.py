"""The seed's ETL shared by bench/etl.py and bench/scale.py: data, pipeline, contestants.

The data is generated once per size under bench/.data/ in chunks of a million rows, so that
a 5 GB file needs no more memory than a small one. Each contestant is a command line run as
a fresh process; every one writes the same small CSV (one row per country), which
`same_output` compares.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / ".data"
CHUNK_ROWS = 1_000_000
BYTES_PER_ROW = 66  # of users.csv: 2M rows are 122 MB; ids and emails grow with the size
COUNTRIES = ["FR", "DE", "ES", "IT", "NL", "BE", "PT", "PL", "SE", "DK", "FI", "IE"]
NAMES = ["ada", "grace", "alan", "linus", "edsger", "barbara", "ken", "margaret"]
BACKENDS = ("auto", "pandas")  # the Pipewright columns, in the table's order

PIPELINE = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Seed ETL",
    "nodes": [
        {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age > 18"}},
        {
            "id": "enrich",
            "operator": "transform",
            "params": {
                "mappings": [
                    {"target": "amount_eur", "expression": "amount * 0.92"},
                    {"target": "name", "expression": "upper(name)"},
                ]
            },
        },
        {
            "id": "by_country",
            "operator": "aggregate",
            "params": {
                "group_by": ["country"],
                "aggregations": [
                    {"column": "id", "function": "count", "name": "users"},
                    {"column": "amount_eur", "function": "sum", "name": "amount_eur"},
                    {"column": "age", "function": "mean", "name": "mean_age"},
                ],
            },
        },
        {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {
            "id": "named",
            "operator": "join",
            "params": {"how": "inner", "left_on": ["country"], "right_on": ["country"]},
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out/pipewright.csv"}},
    ],
    "edges": [
        {"source": "users", "target": "adults"},
        {"source": "adults", "target": "enrich"},
        {"source": "enrich", "target": "by_country"},
        {"source": "by_country", "target": "named", "target_port": "left"},
        {"source": "countries", "target": "named", "target_port": "right"},
        {"source": "named", "target": "write"},
    ],
}


def data_folder(rows: int) -> Path:
    return DATA / f"seed-{rows}"


def generate(rows: int) -> Path:
    """Deterministic users.csv and countries.csv for `rows` rows, written once per size."""
    folder = data_folder(rows)
    if (folder / "users.csv").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(42)
    partial = folder / "users.csv.tmp"
    with partial.open("wb") as out:
        for start in range(0, rows, CHUNK_ROWS):
            _write_csv(_users_chunk(rng, start, min(CHUNK_ROWS, rows - start)), out, start == 0)
    os.replace(partial, folder / "users.csv")
    countries = pa.table(
        {"country": COUNTRIES, "country_name": [f"Country {c}" for c in COUNTRIES]}
    )
    with (folder / "countries.csv").open("wb") as out:
        _write_csv(countries, out, header=True)
    return folder


def _write_csv(table: pa.Table, out: BinaryIO, header: bool) -> None:
    """Append `table` as CSV, unquoted as pandas writes it (Arrow quotes every header name)."""
    if header:
        out.write((",".join(table.column_names) + "\n").encode())
    options = pa_csv.WriteOptions(include_header=False, quoting_style="none")
    pa_csv.write_csv(table, out, write_options=options)


def _users_chunk(rng: np.random.Generator, start: int, rows: int) -> pa.Table:
    """Rows `start` to `start + rows` of users.csv (the CSV writer takes whole tables)."""
    ids = pa.array(np.arange(start + 1, start + rows + 1))
    return pa.table(
        {
            "id": ids,
            "name": pc.take(pa.array(NAMES), rng.integers(0, len(NAMES), rows)),
            "email": pc.binary_join_element_wise(
                "user", pc.cast(pc.subtract(ids, 1), pa.string()), "@example.com", ""
            ),
            "age": rng.integers(10, 90, rows),
            "country": pc.take(pa.array(COUNTRIES), rng.integers(0, len(COUNTRIES), rows)),
            "amount": np.round(rng.uniform(1, 1000, rows), 2),
            "signup": pa.array(rng.integers(18262, 18262 + 2000, rows).astype("int32")).cast(
                pa.date32()
            ),  # days from 2020-01-01
        }
    )


@functools.cache
def has_result_store() -> bool:
    """Whether this tree's `run` reuses stored results (and so takes `--no-cache`)."""
    python = [sys.executable, "-m", "runtime"]
    shown = subprocess.run([*python, "run", "--help"], cwd=ROOT, capture_output=True, text=True)
    return "--no-cache" in shown.stdout


def backend_support() -> str | None:
    """How this tree's runtime is told its backend: "option" (`run --backend`), "config" (the
    document's `config.backend`), or None when it has no backends (it is pandas only)."""
    python = [sys.executable, "-m", "runtime"]
    shown = subprocess.run([*python, "run", "--help"], cwd=ROOT, capture_output=True, text=True)
    if "--backend" in shown.stdout:
        return "option"
    probe = DATA / "backend-probe.json"
    DATA.mkdir(parents=True, exist_ok=True)
    probe.write_text(json.dumps({**PIPELINE, "config": {"backend": "pandas"}}))
    checked = subprocess.run([*python, "validate", str(probe)], cwd=ROOT, capture_output=True)
    return "config" if checked.returncode == 0 else None


@dataclass(frozen=True)
class Contestant:
    """A command that runs the ETL on one folder's data and writes `output`; no `command` when
    this tree cannot run it (then its figures read n/a)."""

    label: str
    command: list[str] | None
    output: Path
    env: dict[str, str] | None = None
    served_by: int | None = None
    """The command server that runs it, if any (bench/processes.py `Entrant`)."""


def pipewright(
    folder: Path,
    backend: str,
    support: str | None,
    store: bool = False,
    server: tuple[dict[str, str], int] | None = None,
) -> Contestant:
    """`python -m runtime run` on `backend`. A runtime without backends is the pandas engine:
    it runs as `pandas` and cannot run `auto`. Without `store` the run neither reads nor writes
    the result store (`--no-cache`); with it, each run is a cold run as a user's first one is:
    it stores what a later edit reuses but reuses nothing (`--fresh`). With `server` (its
    environment and pid: processes.command_server) the command runs through it."""
    name = f"{backend}-store" if store else backend
    name += "-server" if server else ""
    label = f"pipewright {backend}" + (", store on" if store else "")
    label += ", server" if server else ""
    output = _output(folder, f"pipewright-{name}")
    if support is None and backend != "pandas":
        return Contestant(label, None, output)
    document = {**PIPELINE, "nodes": [dict(node) for node in PIPELINE["nodes"]]}
    document["nodes"][-1]["params"] = {"path": str(output.relative_to(folder))}
    if support == "config":
        document["config"] = {"backend": backend}
    path = folder / f"pipeline-{name}.json"
    path.write_text(json.dumps(document))
    command = [sys.executable, "-m", "runtime", "run", str(path), "--data-root", str(folder)]
    if has_result_store():
        command.append("--fresh" if store else "--no-cache")  # each timed run does the whole work
    if support == "option":
        command += ["--backend", backend]
    env, served_by = server or (None, None)
    return Contestant(label, command, output, env, served_by)


def script(folder: Path, name: str, label: str, *extra: str) -> Contestant:
    """bench/<name>_etl.py on the folder's data (`extra`: its optional arguments)."""
    inputs = [str(folder / "users.csv"), str(folder / "countries.csv")]
    output = _output(folder, name)
    command = [sys.executable, str(ROOT / "bench" / f"{name}_etl.py"), *inputs, str(output)]
    return Contestant(label, [*command, *extra], output)


def _output(folder: Path, name: str) -> Path:
    (folder / "out").mkdir(exist_ok=True)
    return folder / "out" / f"{name}.csv"


def same_output(path: Path, reference: Path) -> None:
    """Raise AssertionError unless both outputs hold the same rows (any order; floats within a
    relative 1e-9; integer and float columns of the same values are equal)."""
    import pandas as pd

    ours, theirs = (
        pd.read_csv(p).sort_values("country", ignore_index=True) for p in (path, reference)
    )
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, check_exact=False, rtol=1e-9)
