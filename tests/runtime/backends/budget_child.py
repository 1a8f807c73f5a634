"""Run in a child process by test_duckdb_budget: one operator over a Parquet file several times
the memory budget, in one DuckDB segment that writes its result to a Parquet file; prints one
JSON line: the peak resident memory, the most the spill folder held, and whether it is gone."""

from __future__ import annotations

import json
import resource
import sys
import threading
import time
from pathlib import Path

from runtime.backends.duckdb import run_segment
from runtime.budget import Budget
from runtime.operators.context import NodeContext
from runtime.operators.registry import default_registry
from tests.runtime.backends.both import Step
from tests.runtime.backends.spill_child import spilled_bytes

CASES = {
    "sort": [Step("sorted", "sort", {"by": [{"column": "name"}]}, {"in": "read"})],
    "join": [
        Step(
            "totals",
            "aggregate",
            {"group_by": ["k"], "aggregations": [{"column": "v", "function": "sum"}]},
            {"in": "read"},
        ),
        Step(
            "joined",
            "join",
            {"how": "inner", "left_on": "k", "right_on": "k"},
            {"left": "read", "right": "totals"},
        ),
    ],
    "aggregate": [
        Step(
            "groups",
            "aggregate",
            {
                "group_by": ["name"],
                "aggregations": [{"function": "size"}, {"column": "v", "function": "sum"}],
            },
            {"in": "read"},
        )
    ],
}
"""The operators of each case, after `read` (parquet_input of `big.parquet`)."""


def steps(case: str) -> list[Step]:
    """The case's pipeline: read `big.parquet`, the case's operators, write `out.parquet`."""
    read = Step("read", "parquet_input", {"path": "big.parquet"})
    last = CASES[case][-1].id
    write = Step("write", "parquet_output", {"path": "out.parquet"}, {"in": last})
    return [read, *CASES[case], write]


def members(pipeline: list[Step], root: Path) -> dict:
    """Each step lowered over its parents, its input schemas from `output_schema` alone."""
    relations, schemas, lowered = {}, {}, {}
    for step in pipeline:
        operator = default_registry().get(step.operator)
        params = operator.Params.model_validate(step.params)
        inputs = {port: relations[source] for port, source in step.inputs.items()}
        known = {port: schemas[source] for port, source in step.inputs.items()}
        lowered[step.id] = operator.lower(params, inputs, known)
        context = NodeContext(step.id, params, data_root=root)
        schemas[step.id] = operator.output_schema(context, known).get("out")
        relations[step.id] = lowered[step.id].get("out")
    return lowered


def main(root: Path, spill: Path, memory_mib: int, case: str) -> None:
    most = [0]

    def watch() -> None:
        while True:
            most[0] = max(most[0], spilled_bytes(spill))
            time.sleep(0.01)

    segment = members(steps(case), root)
    threading.Thread(target=watch, daemon=True).start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    run_segment(segment, [], {}, files=root, spill_dir=spill, budget=Budget(memory_mib << 20, 2))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        json.dumps(
            {"before": before, "peak": peak, "spilled": most[0], "spill_left": spill.exists()}
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
