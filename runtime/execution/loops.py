"""Loops over groups or chunks, run: the loop's body once per group (or chunk) of its input's
rows, the key as the body's parameter, the outputs stacked in key order.

The body (`ForEachParams.body`, inlined and checked when the outer pipeline was planned) is
planned with `build_plan` and run with `execute` for each iteration, on pandas, its input node
handing on the iteration's rows: the engine's own planner and executor, not a second engine.
The bound is checked before the first iteration: more groups or chunks than `max_iterations`
fails the node naming both, never a silent cut. Each iteration reports progress (`share` done
and `iterations` done of the total); the node's metrics keep how many ran.

Belongs here: splitting the rows, running the iterations, stacking their outputs. Does not
belong here: what the loop's params mean (runtime/operators/subpipelines.py), its columns
before running (runtime/checks/loops.py).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass

from runtime.checks.loops import output_source
from runtime.document.spec import Pipeline
from runtime.errors import OperatorError
from runtime.io.paths import FileArea
from runtime.lazy import pd
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator, Port
from runtime.operators.subpipelines import ForEach, ForEachParams, runs_per_iteration
from runtime.plan.build import build_plan
from runtime.plan.for_each import key_parameters
from runtime.plan.model import PlannedNode
from runtime.tables.schema import schema_of
from runtime.tables.spilled import as_frame

Key = tuple
"""An iteration's key: a group's values (one per group column), or a chunk's number."""


def as_loop_task(node: PlannedNode) -> PlannedNode:
    """`node` as the executor runs it: a loop over groups or chunks runs its iterations (on the
    Dask cluster its plan names, if any)."""
    params = node.params
    if isinstance(params, ForEachParams) and runs_per_iteration(params):
        return dataclasses.replace(node, operator=LoopRunner(node.cluster))
    return node


class LoopRunner(ForEach):
    """A `for_each` over groups or chunks, as the executor runs it: in the run's process, or as
    tasks on the Dask cluster at `cluster`, a batch of keys each."""

    def __init__(self, cluster: str | None = None):
        self.cluster = cluster

    def run(self, ctx, inputs):
        params: ForEachParams = ctx.params
        rows = as_frame(inputs[params.inputs[0]])
        keys = iteration_keys(rows, params)
        work = Iterations(
            ctx.node_id, params, Pipeline.model_validate(params.body), ctx.files, ctx.run_id,
            ctx.connections,
        )  # fmt: skip
        ctx.metrics["over"] = params.over
        if not keys:  # the body once over no rows: the result has its columns
            outputs = [work.run(ctx, None, rows, 1)]
        elif self.cluster:
            from runtime.backends.dask.loops import run_on_cluster  # only with a cluster

            outputs, ctx.metrics["tasks"] = run_on_cluster(work, keys, self.cluster, ctx)
        else:
            outputs = []
            for done, (key, part) in enumerate(keys, start=1):
                ctx.check_cancelled()
                outputs.append(work.run(ctx, key, part, done))
                ctx.progress(share=done / len(keys), iterations=(done, len(keys)))
        ctx.metrics["iterations"] = len(keys)
        return {
            port: pd.concat([found[port] for found in outputs], ignore_index=True)
            if len(outputs) > 1
            else outputs[0][port]
            for port in params.outputs
        }


@dataclass(frozen=True)
class Iterations:
    """What running one iteration needs (and what a Dask worker is sent): the loop node, its
    params, its body, the run's files, id and connections."""

    node_id: str
    params: ForEachParams
    body: Pipeline
    area: FileArea
    run_id: str
    connections: dict

    def context(self) -> NodeContext:
        """The loop node's context where there is none (on a Dask worker)."""
        return NodeContext(
            self.node_id, self.params, data_root=self.area, connections=self.connections,
            run_id=self.run_id,
        )  # fmt: skip

    def run(self, ctx, key: Key | None, rows, number: int) -> dict:
        """The body's outputs (by port) for the iteration of `key` (None: the one over no rows),
        with the key column."""
        names = key_parameters(self.params, self.body.config.parameters)
        values = {name: value for name, value in zip(names, key or (), strict=False) if name}
        outputs = run_body(ctx, self.body, rows, values, number)
        if self.params.key_column:
            column = {self.params.key_column: key_value(key)}
            outputs = {port: frame.assign(**column) for port, frame in outputs.items()}
        return outputs

    def run_batch(self, batch: list[tuple[int, Key, object]]) -> list[dict]:
        """A batch of iterations on a Dask worker, each `(number, key, rows)`, in order."""
        ctx = self.context()
        return [self.run(ctx, key, rows, number) for number, key, rows in batch]


def iteration_keys(rows, params: ForEachParams) -> list[tuple[Key, object]]:
    """Each iteration's key and rows, in key order (groups with a missing value last); more
    than `max_iterations` of them is an `OperatorError` naming the count and the bound."""
    if params.over == "chunks":
        size = params.chunk_rows
        count, what = math.ceil(len(rows) / size), f"chunks of {size:,} rows"
    else:
        missing = [column for column in params.group_by if column not in rows.columns]
        if missing:
            raise OperatorError(f"group_by: the input has no column '{missing[0]}'")
        groups = rows.groupby(params.group_by, sort=True, dropna=False)
        count, what = groups.ngroups, f"groups of {', '.join(params.group_by)}"
    if count > params.max_iterations:
        raise OperatorError(
            f"the input makes {count:,} {what}, more than the "
            f"{params.max_iterations:,} iterations this loop allows (max_iterations); raise it "
            "(at most 1,000) or make fewer"
        )
    if params.over == "chunks":
        return [
            ((number,), rows.iloc[start : start + size].reset_index(drop=True))
            for number, start in enumerate(range(0, len(rows), size))
        ]
    return [
        (tuple(_plain(value) for value in key), part.reset_index(drop=True)) for key, part in groups
    ]


def run_body(ctx, body: Pipeline, rows, values: dict, iteration: int) -> dict:
    """The body's outputs (by port) for one iteration: planned with its key's `values` and run,
    its input handing on `rows`; a failure inside is the loop node's, naming the iteration."""
    try:
        plan = build_plan(body, values)
    except Exception as error:  # a key value the body's params refuse
        raise OperatorError(f"iteration {iteration} ({_shown(values)}): {error}") from error
    (entry,) = [node for node in plan.nodes.values() if node.operator.name == "pipeline_input"]
    plan.nodes[entry.id] = dataclasses.replace(entry, operator=Rows(rows))
    sources = {port: output_source(body, port) for port in ctx.params.outputs}
    stop = threading.Event()
    ctx.on_stop(stop.set)
    from runtime.execution.executor import execute  # which runs this loop as one of its tasks

    result = execute(
        plan, run_id=f"{ctx.run_id}-{ctx.node_id}-{iteration}", cancel_event=stop,
        data_root=ctx.files, connections=ctx.connections,
        retain={source[0] for source in sources.values()}, may_commit=ctx.may_commit,
    )  # fmt: skip
    if not result.ok:
        raise OperatorError(f"iteration {iteration} ({_shown(values)}) {result.status}: "
                            f"{result.error}")  # fmt: skip
    return {port: result.outputs[source] for port, source in sources.items()}


class Rows(Operator):
    """An iteration's rows, where the body's `pipeline_input` stood."""

    name = "pipeline_input"
    kind = "input"
    title = "Iteration rows"
    inputs = ()
    outputs = (Port("out"),)

    def __init__(self, rows):
        self.rows = rows

    def output_schema(self, ctx, inputs):
        return {"out": schema_of(self.rows)}

    def run(self, ctx, inputs):
        return {"out": self.rows}


def key_value(key: Key | None):
    """What the key column holds: the one value, or several joined (`FR / 2026`); None for the
    one run over no rows."""
    if key is None:
        return None
    return key[0] if len(key) == 1 else " / ".join(str(value) for value in key)


def _plain(value):
    """A group's value as a parameter holds it: a Python number or text, None when missing."""
    if value is None or (not isinstance(value, str) and bool(pd.isna(value))):
        return None
    if hasattr(value, "isoformat"):  # a date or a time: as the text a parameter holds
        return value.isoformat()
    return value.item() if hasattr(value, "item") else value


def _shown(values: dict) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in values.items()) or "no key parameter"
