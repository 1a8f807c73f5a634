"""The seed ETL on small data, run in-process with the result store under the data root."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd

from bench.seed_etl import PIPELINE
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.results import RunResult
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions


def seed_document(**changes) -> dict:
    """The seed ETL with a `min_age` parameter in its filter."""
    document = copy.deepcopy(PIPELINE)
    document["config"] = {"parameters": {"min_age": 18}, **changes}
    document["nodes"][1]["params"]["condition"] = "age > ${min_age}"
    return document


def node_params(document: dict, node_id: str) -> dict:
    return next(node for node in document["nodes"] if node["id"] == node_id)["params"]


def write_data(root: Path, rows: int = 500, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {
            "id": range(rows),
            "name": rng.choice(["ada", "alan"], rows),
            "email": [f"u{i}@example.com" for i in range(rows)],
            "age": rng.integers(10, 90, rows),
            "country": rng.choice(["FR", "DE", "ES"], rows),
            "amount": rng.uniform(1, 100, rows).round(2),
            "signup": "2020-01-01",
        }
    ).to_csv(root / "users.csv", index=False)
    with (root / "countries.csv").open("w", newline="") as out:
        csv.writer(out).writerows(
            [("country", "country_name"), ("FR", "F"), ("DE", "D"), ("ES", "E")]
        )


def run(
    document: dict,
    root: Path,
    *,
    parameters: dict | None = None,
    backend: str | None = None,
    options: RunOptions | None = None,
    store: bool = True,
) -> RunResult:
    area = FileArea(root, cache=root / CACHE if store else None)
    plan = build_plan(load_document(json.dumps(document)), parameters, data_root=area)
    plan = prepare(plan, backend=backend, data_root=area, options=options or RunOptions())
    result = execute(plan, data_root=area, sinks=[ListSink()])
    assert result.ok, result.error
    return result


def ran(result: RunResult) -> set[str]:
    """The nodes that did their work in this run (not reused, not skipped)."""
    return {
        node_id
        for node_id, node in result.nodes.items()
        if node.status == "succeeded" and not node.extra.get("cached")
    }


def reused(result: RunResult) -> set[str]:
    return {node_id for node_id, node in result.nodes.items() if node.extra.get("cached")}


ALL = {"users", "adults", "enrich", "by_country", "countries", "named", "write"}
