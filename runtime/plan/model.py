"""The plan: the IR between a pipeline document and the executor.

`build_plan` turns a validated document into a `Plan` of node tasks; optimisation passes
(`runtime.plan.passes`) rewrite plans, never documents. A pass may leave nodes out of the
run (`eliminated`), let one node stand for identical others (`merged`), or group chains of
nodes into `segments` that one backend runs in one go; each records why, for `explain` and
for the reasons the run reports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from runtime.document.spec import Config, Source
from runtime.operators.context import HeadProbe
from runtime.operators.contract import Operator, Ports
from runtime.relational import Relation


@dataclass(slots=True)
class PlannedNode:
    """One node ready to run: its operator, validated params and where its inputs come from."""

    id: str
    label: str
    operator: Operator
    params: BaseModel
    inputs: dict[str, list[Source]]
    retries: int
    timeout_s: float | None
    row_limit: int | None = None
    """For an input: read no more rows than this (a limit downstream was pushed down to it)."""
    position: Any = None
    """For an incremental input: the position this run starts from (`runtime.io.incremental`)."""
    head: Callable[[], HeadProbe] | None = None
    """For an input a preview reads only as far as it needs: makes each attempt's probe
    (runtime/execution/heads.py)."""
    checks: tuple = ()
    """The document's `expect` checks on its output ports (a run's plan only, not a
    preview's: runtime/execution/data_tests.py)."""
    cluster: str | None = None
    """For a loop over groups or chunks: the Dask scheduler its iterations are sent to, in
    batches of keys (runtime/plan/partitioning.py); None: they run in the run's process."""

    @property
    def ports(self) -> Ports:
        """Its ports, as its operator works them out from its params."""
        return self.operator.ports(self.params)


@dataclass(frozen=True, slots=True)
class Segment:
    """Nodes that one backend runs together, and why that backend was chosen."""

    id: str
    backend: str
    nodes: tuple[str, ...]
    """In a parents-first order."""
    reason: str
    relations: dict[str, dict[str, Relation]] = field(default_factory=dict, compare=False)
    """Each member's output ports as relational algebra over the segment's inputs."""
    where: str = ""
    """For a partitioned segment: the address of the Dask scheduler it runs on."""
    threads: int | None = None
    memory_bytes: int | None = None
    """For a DuckDB segment: at most these threads and this memory, tuned from past runs
    (None: the run's budget)."""


@dataclass(slots=True)
class Plan:
    """A validated pipeline as node tasks in topological order."""

    name: str
    config: Config
    parameters: dict[str, Any]
    nodes: dict[str, PlannedNode]
    order: list[str]
    predecessors: dict[str, set[str]]
    consumers: Counter = field(default_factory=Counter)
    """How many node inputs read each output `(node, port)`: when it falls to 0, drop it."""
    eliminated: dict[str, str] = field(default_factory=dict)
    """Nodes left out of the run, with the reason the run reports (their status: skipped)."""
    merged: dict[str, str] = field(default_factory=dict)
    """Nodes computed by another, identical node: alias → the node that runs."""
    segments: list[Segment] = field(default_factory=list)
    """Chains that run on one backend in one go (empty: every node runs on its own)."""
    notes: list[str] = field(default_factory=list)
    """What the passes did, in words, for `explain`."""
    fallbacks: dict[str, str] = field(default_factory=dict)
    """Nodes that fusion leaves to pandas under a backend that lowers, with why (a column of
    a type DuckDB cannot read as pandas does, an operator that runs on pandas only): `explain`
    and the run's reports say it."""
    reused: dict[str, dict[str, str]] = field(default_factory=dict)
    """Nodes left out because stored results stand for them (runtime/plan/reuse/reuse_pass.py): each
    with its stored results, `{port: key}` (empty for a node whose result was never stored
    but whose descendants' results were)."""
    stored: set[Source] = field(default_factory=set)
    """Output ports the run must store, even inside a segment: the restart point of an
    output's or a pipeline breaker's input (in its row-wise chain, after the last filter),
    the node a run goes up to."""
    reshaped: dict[str, str] = field(default_factory=dict)
    """Nodes whose rows in this plan are not those the document defines (a filter or a limit
    moved past them or away from its place, an input reads only a head), with why: their
    results serve the run, and later runs of the same plan, but never stand for the node."""
    whole: set[str] = field(default_factory=set)
    """Nodes whose every column is computed though nothing reads them (the node a run goes
    up to: its stored result serves any later reader)."""
    pinned: dict[str, str] = field(default_factory=dict)
    """Nodes whose output is pinned rows (runtime/plan/pins.py), with the pin file: they do not
    run, and `explain` says so."""
    cache: Any = None
    """The run's `runtime.plan.reuse.reuse_pass.CacheRun` (store, keys, why each node runs): None
    when the run uses no store."""
    profile: Path | None = None
    """Where a successful run adds its figures (runtime/tuning/profiles.py); None: nowhere."""
    shapes: dict[str, str] = field(default_factory=dict)
    """Each node's shape, under which the profile keeps its figures (runtime/plan/tuned.py)."""
    tuned: list[Any] = field(default_factory=list)
    """The choices read from past runs' figures (`runtime.tuning.choices.Choice`), for explain."""
    concurrency: int | None = None
    """`max_concurrency` as tuned from past runs, when the document sets none."""

    def labels(self) -> dict[str, str]:
        return {node_id: node.label for node_id, node in self.nodes.items()}

    def checked(self) -> set[str]:
        """The nodes with data tests."""
        return {node_id for node_id, node in self.nodes.items() if node.checks}

    def referenced(self) -> Counter:
        """The ports that nodes' `references` checks read, each with how many read it."""
        return Counter(
            (check.node, check.to_port)
            for node in self.nodes.values()
            for check in node.checks
            if check.check == "references"
        )


COPY_MARK = "#"
"""In the id of a node a pass made (a filter copied into each branch of a union): no id a
document may hold contains it."""


def is_copy(node_id: str) -> bool:
    """Whether a node is a pass's copy of a document's node, which the run does not report."""
    return COPY_MARK in node_id


def original_of(copy_id: str) -> str:
    """The document's node a pass's copy was made from."""
    return copy_id.split(COPY_MARK)[0]


def count_consumers(nodes: dict[str, PlannedNode]) -> Counter:
    """How many node inputs read each output port."""
    return Counter(
        source for node in nodes.values() for sources in node.inputs.values() for source in sources
    )


def predecessors_of(nodes: dict[str, PlannedNode]) -> dict[str, set[str]]:
    """Each node's parents, from its inputs."""
    return {
        node_id: {source for sources in node.inputs.values() for source, _ in sources}
        for node_id, node in nodes.items()
    }
