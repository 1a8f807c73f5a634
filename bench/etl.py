"""The seed's ETL pipeline through the runtime CLI, against a hand-written pandas script.

    python bench/etl.py [--rows 2000000] [--repeat 3]

users.csv → filter age > 18 → transform (amount_eur = amount * 0.92, name upper-cased) →
aggregate by country (count, sum amount_eur, mean age) → join countries.csv → csv_output.
Both run as fresh processes on the same generated data (deterministic, cached under
bench/.data/); the table shows the best wall time, peak memory (max RSS) and the ratio, and
the two outputs are checked to be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.processes import best, compile_bytecode
from bench.table import print_table

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / ".data"
COUNTRIES = ["FR", "DE", "ES", "IT", "NL", "BE", "PT", "PL", "SE", "DK", "FI", "IE"]

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


FIXED_COST = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Start-up and fixed costs",
    "nodes": [
        {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/countries.csv"}},
    ],
    "edges": [{"source": "countries", "target": "write"}],
}


def generate(rows: int) -> Path:
    """Deterministic sample data, written once per size."""
    folder = DATA / f"etl-{rows}"
    if (folder / "users.csv").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(42)
    first = np.array(["ada", "grace", "alan", "linus", "edsger", "barbara", "ken", "margaret"])
    users = pd.DataFrame(
        {
            "id": np.arange(1, rows + 1),
            "name": first[rng.integers(0, len(first), rows)],
            "email": [f"user{i}@example.com" for i in range(rows)],
            "age": rng.integers(10, 90, rows),
            "country": np.array(COUNTRIES)[rng.integers(0, len(COUNTRIES), rows)],
            "amount": np.round(rng.uniform(1, 1000, rows), 2),
            "signup": pd.Timestamp("2020-01-01")
            + pd.to_timedelta(rng.integers(0, 2000, rows), unit="D"),
        }
    )
    users.to_csv(folder / "users.csv.tmp", index=False)
    os.replace(folder / "users.csv.tmp", folder / "users.csv")
    pd.DataFrame(
        {"country": COUNTRIES, "country_name": [f"Country {code}" for code in COUNTRIES]}
    ).to_csv(folder / "countries.csv", index=False)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = generate(args.rows)
    compile_bytecode()
    pipeline = folder / "pipeline.json"
    pipeline.write_text(json.dumps(PIPELINE))
    fixed_cost = folder / "fixed-cost.json"
    fixed_cost.write_text(json.dumps(FIXED_COST))
    (folder / "out").mkdir(exist_ok=True)
    python = sys.executable
    runtime_cmd = [python, "-m", "runtime", "run", str(pipeline), "--data-root", str(folder)]
    naive_cmd = [
        python, str(ROOT / "bench" / "naive_etl.py"), str(folder / "users.csv"),
        str(folder / "countries.csv"), str(folder / "out" / "naive.csv"),
    ]  # fmt: skip
    fixed_cmd = [python, "-m", "runtime", "run", str(fixed_cost), "--data-root", str(folder)]
    naive = best(args.repeat, naive_cmd)
    runtime = best(args.repeat, runtime_cmd)
    fixed = best(args.repeat, fixed_cmd)
    pandas_import = best(args.repeat, [python, "-c", "import pandas"])
    ours = pd.read_csv(folder / "out" / "pipewright.csv").sort_values("country", ignore_index=True)
    theirs = pd.read_csv(folder / "out" / "naive.csv").sort_values("country", ignore_index=True)
    pd.testing.assert_frame_equal(ours, theirs, check_dtype=False, check_exact=False, rtol=1e-9)

    print(f"seed ETL, {args.rows:,} rows, best of {args.repeat}; outputs equal\n")
    print_table(
        ["", "wall s", "peak MB", "ratio"],
        [
            ["hand-written pandas", naive[0], round(naive[1]), "1.00x"],
            ["pipewright CLI", runtime[0], round(runtime[1]), f"{runtime[0] / naive[0]:.2f}x"],
        ],
    )
    print(
        f"\nfixed costs: a 12-row pipeline through the CLI {fixed[0]:.3f} s;"
        f" `import pandas` alone {pandas_import[0]:.3f} s"
    )
    print("target: ratio ≤ 1.0")


if __name__ == "__main__":
    main()
