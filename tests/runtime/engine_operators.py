"""Small operators that exercise the engine: sources, pass-through, merge, failures, sleeps.

They are real operators (the same base class, registry and executor as the built-ins), with
knobs that make a node fail, sleep or record how many nodes ran at once.
"""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import Annotated, Literal

import pandas as pd
from pydantic import Field

from runtime.document.spec import Pipeline, load_document
from runtime.errors import OperatorError, ParamsError
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.operators.registry import Registry
from runtime.tables.schema import Column, Schema


class Tracker:
    """Records, across threads, when nodes start and end and how many overlap."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.current = 0
        self.peak = 0
        self.log: list[tuple[str, str]] = []
        """("start" | "end", node id) in the order they happened."""

    def enter(self, node_id: str) -> None:
        with self.lock:
            self.current += 1
            self.peak = max(self.peak, self.current)
            self.log.append(("start", node_id))

    def leave(self, node_id: str) -> None:
        with self.lock:
            self.current -= 1
            self.log.append(("end", node_id))


TRACKER = Tracker()
ATTEMPTS: dict[str, int] = {}
ATTEMPTS_LOCK = threading.Lock()
ERRORS = {"operator": OperatorError, "params": partial(ParamsError, "rows"), "os": OSError}
"""What a failing attempt raises, by its `error` param."""


class StepParams(OperatorParams):
    rows: Annotated[int, Field(ge=0)] = 3
    sleep_s: Annotated[float, Field(ge=0)] = 0.0
    fail_times: Annotated[int, Field(ge=0)] = 0
    """Fail this many attempts, then succeed."""
    always_fail: bool = False
    error: Literal["operator", "params", "os"] = "operator"
    """What a failing attempt raises: an `OperatorError`, a `ParamsError` or an `OSError`."""
    cooperative: bool = True
    """Check cancellation while sleeping (a well-behaved operator does)."""
    token: str = ""
    """Makes attempt counting per test: attempts are counted per (token, node)."""


def _step(ctx, frames: list[pd.DataFrame]) -> pd.DataFrame:
    params: StepParams = ctx.params
    TRACKER.enter(ctx.node_id)
    try:
        with ATTEMPTS_LOCK:
            key = f"{params.token}:{ctx.node_id}"
            ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
            attempt = ATTEMPTS[key]
        deadline = time.monotonic() + params.sleep_s
        while time.monotonic() < deadline:
            if params.cooperative:
                ctx.check_cancelled()
            time.sleep(0.005)
        if params.always_fail or attempt <= params.fail_times:
            raise ERRORS[params.error](f"{ctx.node_id} failed on attempt {attempt}")
        if frames:
            return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        return pd.DataFrame({"value": range(params.rows)})
    finally:
        TRACKER.leave(ctx.node_id)


class Source(Operator):
    name = "test_source"
    kind = "input"
    title = "Test source"
    inputs = ()
    Params = StepParams

    def output_schema(self, ctx, inputs):
        return {"out": Schema.of(Column("value", "integer", False))}

    def run(self, ctx, inputs):
        return {"out": _step(ctx, [])}


class Step(Operator):
    name = "test_step"
    kind = "process"
    title = "Test step"
    inputs = (Port("in", many=True),)
    Params = StepParams

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"][0]}

    def run(self, ctx, inputs):
        return {"out": _step(ctx, inputs["in"])}


class Sink(Operator):
    name = "test_sink"
    kind = "output"
    title = "Test sink"
    outputs = ()
    Params = StepParams

    def output_schema(self, ctx, inputs):
        return {}

    def run(self, ctx, inputs):
        _step(ctx, [inputs["in"]])
        return {}


class Pair(Operator):
    name = "test_pair"
    kind = "process"
    title = "Test pair"
    inputs = (Port("left"), Port("right"), Port("extra", required=False))
    outputs = (Port("out"), Port("rest"))
    Params = StepParams

    def output_schema(self, ctx, inputs):
        return {"out": inputs["left"], "rest": inputs["right"]}

    def run(self, ctx, inputs):
        return {"out": inputs["left"], "rest": inputs["right"]}


def engine_registry() -> Registry:
    """A registry holding only the engine's test operators."""
    return Registry([Source, Step, Sink, Pair])


def document(nodes: dict, edges: list[str] = (), **config) -> Pipeline:
    """A pipeline from a compact description.

    `nodes` maps ids to an operator name or `(operator, params)`; edges read `a->b` or
    `a.port->b.port`.
    """
    node_list = []
    for node_id, spec in nodes.items():
        operator, params = (spec, {}) if isinstance(spec, str) else spec
        node_list.append({"id": node_id, "operator": operator, "params": params})
    edge_list = []
    for text in edges:
        source, target = text.split("->")
        source_id, _, source_port = source.partition(".")
        target_id, _, target_port = target.partition(".")
        edge_list.append(
            {
                "source": source_id,
                "source_port": source_port or "out",
                "target": target_id,
                "target_port": target_port or "in",
            }
        )
    return load_document({"name": "test", "config": config, "nodes": node_list, "edges": edge_list})
