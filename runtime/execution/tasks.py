"""What the executor schedules: one task per node on pandas, one per segment on DuckDB or on
a Dask cluster (partitioned).

A segment's task reads the frames that enter it from outside, runs its members in one query,
and hands back the outputs read outside it, keyed by the member's (node, port); the executor
then settles every member as if it had run on its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from runtime.document.spec import Source
from runtime.errors import NotLowerable
from runtime.execution.loops import as_loop_task
from runtime.execution.results import check_outputs
from runtime.operators.contract import Operator, OperatorParams, Port
from runtime.plan.model import Plan, PlannedNode, Segment
from runtime.plan.passes.projection import needed_columns
from runtime.tables.spilled import as_frame


@dataclass(slots=True)
class Tasks:
    nodes: dict[str, PlannedNode]
    """Each task as something the executor runs (a segment's operator runs all its nodes)."""
    order: list[str]
    predecessors: dict[str, set[str]]
    members: dict[str, tuple[str, ...]]
    """The nodes each task settles: itself, or a segment's nodes."""


class SegmentOperator(Operator):
    """Runs a segment's nodes on their backend, in one go; on pandas, node by node, when the
    backend finds before starting that it cannot give the same result (a frame's dtypes, a
    file that changed since planning): the log warns and `metrics["fallback"]` says why."""

    name = "segment"
    kind = "process"
    title = "Segment"

    def __init__(self, segment: Segment, nodes: list[PlannedNode], sources, exits, budget, copies):
        self.budget = budget
        self.copies: Copies = copies
        """Members' ports stored in the result store from inside the segment."""
        """The run's share of the machine (None: as the settings give it)."""
        self.segment = segment
        self.nodes = nodes
        self.sources = sources
        self.exits = exits
        self.inputs = tuple(Port(str(index)) for index in range(len(sources)))
        self.outputs = ()

    def run(self, ctx, inputs):
        from runtime.backends.duckdb import run_segment
        from runtime.budget import Budget

        frames = {source: inputs[str(index)] for index, source in enumerate(self.sources)}
        spill = ctx.files.scratch_folder / ctx.run_id / self.segment.id.replace(":", "-")
        staged = self.copies.staged()
        budget = (self.budget or Budget.from_environment()).within(
            self.segment.threads, self.segment.memory_bytes
        )  # tuned from past runs (runtime/plan/tuned.py)
        try:
            done = run_segment(
                self.segment.relations, self.exits, frames, files=ctx.files, spill_dir=spill,
                budget=budget, on_stop=ctx.on_stop,
                on_progress=self._reporter(ctx), run_id=ctx.run_id, commit=ctx.commit,
                copies=staged,
            )  # fmt: skip
        except NotLowerable as why:
            ctx.logger.warning(f"{self.segment.id} runs on pandas instead: {why}")
            ctx.metrics["fallback"] = str(why)
            return self._on_pandas(ctx, frames)
        finally:
            self.copies.adopt(staged)
        figures = self._figures(frames, done.rows)
        for node in self.nodes:
            if node.id in done.written:
                figures[node.id].update(self._wrote(ctx, node, done.written[node.id]))
        ctx.metrics["members"] = figures
        return done.frames

    @staticmethod
    def _wrote(ctx, node: PlannedNode, written) -> dict:
        """An output member's figures and log line, as its operator's `run` gives them: it
        read every row it wrote."""
        ctx.for_node(node.id, node.params).logger.info(
            f"wrote {written.rows} rows to {written.path}"
        )
        metrics = {"path": written.path, "rows_written": written.rows}
        rows_in = {port: written.rows for port in node.inputs}
        return {"bytes_out": written.bytes, "metrics": metrics, "rows_in": rows_in}

    def _reporter(self, ctx):
        """The segment's progress as every member's own: one query runs them all."""
        members = [ctx.for_node(node.id, node.params) for node in self.nodes]

        def report(share: float) -> None:
            for member in members:
                member.progress(share=share)

        return report

    def _figures(self, frames: dict, rows_out: dict[str, int | None]) -> dict:
        """Rows in and out of each member, where they are known (frames that entered the
        segment, outputs that left it); never a guess."""
        figures = {}
        ports = {node.id: len(node.ports.outputs) for node in self.nodes}
        for node in self.nodes:
            rows_in = {}
            for port, sources in node.inputs.items():
                counts = [
                    len(frames[source])
                    if source in frames
                    # a node's rows out are one port's only when it has one (not a route's)
                    else rows_out.get(source[0])
                    if ports.get(source[0]) == 1
                    else None
                    for source in sources
                ]
                if None not in counts:
                    rows_in[port] = sum(counts)
            figures[node.id] = {"rows_in": rows_in, "rows_out": rows_out.get(node.id)}
        return figures

    def _on_pandas(self, ctx, frames: dict[Source, object]) -> dict:
        """Run the members one after another on pandas, as the executor would have."""
        outputs = {source: as_frame(rows) for source, rows in frames.items()}
        figures = {}
        for node in self.nodes:
            ctx.check_cancelled()
            found = {
                port: [outputs[source] for source in sources]
                for port, sources in node.inputs.items()
            }
            rows_in = {port: sum(len(frame) for frame in frames) for port, frames in found.items()}
            member = ctx.for_node(node.id, node.params)
            produced = node.operator.run(member, node.operator.arranged(node.params, found))
            check_outputs(node, produced)
            outputs.update({(node.id, port): frame for port, frame in produced.items()})
            rows_out = sum(len(frame) for frame in produced.values())
            figures[node.id] = {"rows_in": rows_in, "rows_out": rows_out}
            if "bytes_out" in member.metrics:  # an output's file
                figures[node.id]["bytes_out"] = member.metrics.pop("bytes_out")
            if member.metrics:
                figures[node.id]["metrics"] = member.metrics
        ctx.metrics["members"] = figures
        return {source: outputs[source] for source in self.exits}


@dataclass(frozen=True)
class Copies:
    """Ports of a segment's members that go to the result store straight from DuckDB (read by
    no other task): each with its key."""

    store: object
    keys: dict[Source, str]
    columns: dict[Source, set[str] | None]
    """The columns of each port that anything reads (None: all): the only ones stored."""
    schemas: dict[Source, list[str]] = field(default_factory=dict)
    """Each port's columns where known (its record keeps them: the Data tab names those the
    file lacks)."""

    def staged(self) -> dict[Source, tuple]:
        """A temporary file of the store for each port not stored yet, and its columns."""
        if self.store is None:
            return {}
        return {
            port: (self.store.temporary(key), self.columns[port])
            for port, key in self.keys.items()
            if not self.store.has(key)
        }

    def adopt(self, staged: dict) -> None:
        """Store the files the segment wrote (a file left by a failure is removed)."""
        for port, (temporary, _) in staged.items():
            if temporary.exists():
                if self.store is not None and _complete(temporary):
                    about = {"columns": self.schemas[port]} if port in self.schemas else {}
                    self.store.adopt(self.keys[port], temporary, **about)
                temporary.unlink(missing_ok=True)


def _complete(path) -> bool:
    """Whether a Parquet file was written to its end: its magic at both ends, and a footer
    length that fits (read by hand: pyarrow.parquet would cost a DuckDB run its import,
    some 20 MiB)."""
    try:
        with open(path, "rb") as file:
            head = file.read(4)
            size = file.seek(0, os.SEEK_END)
            if size < 12:
                return False
            file.seek(-8, os.SEEK_END)
            tail = file.read(8)
    except OSError:
        return False
    footer = int.from_bytes(tail[:4], "little")
    return head == tail[4:] == b"PAR1" and footer <= size - 12


class PartitionedOperator(Operator):
    """Runs a partitioned segment (an input naming several files, a row-wise chain, an
    aggregate) on the Dask cluster at `segment.where`, a partition per file."""

    name = "partitioned"
    kind = "process"
    title = "Partitioned segment"
    inputs = ()
    outputs = ()

    def __init__(self, segment: Segment, nodes: list[PlannedNode], exits, columns):
        self.segment = segment
        self.nodes = nodes
        self.exits = exits
        self.columns = columns
        """Of the input's columns, those the chain reads (None: all)."""

    def run(self, ctx, inputs):
        from runtime.backends.dask.partitions import Partitioned, run_partitioned
        from runtime.plan.partitioning import file_names

        reader, aggregate = self.nodes[0], self.nodes[-1]
        files = tuple(file_names(reader, ctx.files))
        work = Partitioned(tuple(self.nodes), files, ctx.files, ctx.run_id, self.columns)
        frame, ctx.metrics["members"] = run_partitioned(work, self.segment.where, ctx)
        return {exit: frame for exit in self.exits if exit == (aggregate.id, "out")}


def tasks_of(plan: Plan, retain: set[str], budget=None) -> Tasks:
    """The plan's tasks: its segments (run within `budget`), and every node outside them."""
    task_of = {node_id: node_id for node_id in plan.order}
    for segment in plan.segments:
        task_of.update(dict.fromkeys(segment.nodes, segment.id))
    nodes = {
        node_id: as_loop_task(plan.nodes[node_id])
        for node_id in plan.order
        if task_of[node_id] == node_id
    }
    members = {node_id: (node_id,) for node_id in nodes}
    for segment in plan.segments:
        nodes[segment.id] = _segment_task(plan, segment, retain, budget)
        members[segment.id] = segment.nodes
    order = list(dict.fromkeys(task_of[node_id] for node_id in plan.order))
    references = {  # a data test reads the port it refers to once that port's task ran
        node_id: {check.node for check in plan.nodes[node_id].checks if check.check == "references"}
        for node_id in plan.order
    }
    predecessors = {
        task: {
            task_of[parent]
            for member in members[task]
            for parent in plan.predecessors[member] | references[member]
            if parent in task_of
        }
        - {task}
        for task in order
    }
    return Tasks(nodes, order, predecessors, members)


def _segment_task(plan: Plan, segment: Segment, retain: set[str], budget) -> PlannedNode:
    inside = set(segment.nodes)
    sources = sorted(
        {
            source
            for member in segment.nodes
            for port_sources in plan.nodes[member].inputs.values()
            for source in port_sources
            if source[0] not in inside
        }
    )
    read_outside = {
        source
        for node_id, node in plan.nodes.items()
        if node_id not in inside
        for port_sources in node.inputs.values()
        for source in port_sources
    }
    # The ports data tests read leave the segment: the checks run on their frames.
    tested = plan.referenced().keys() | {
        (member, port.name)
        for member in plan.checked()
        for port in plan.nodes[member].ports.outputs
    }
    exits = [
        (member, port.name)
        for member in segment.nodes
        for port in plan.nodes[member].ports.outputs
        if (member, port.name) in read_outside or member in retain or (member, port.name) in tested
    ]
    copies, columns, schemas = {}, {}, {}
    if plan.cache is not None:
        needed = needed_columns(plan, keep_all=retain)
        for member in segment.nodes:  # parents first: each copy reads its parents' files
            for port in sorted(port for port in plan.stored if port[0] == member):
                if port not in exits:
                    copies[port] = plan.cache.keys.ports[port]
                    columns[port] = needed[member] if port[1] == "out" else None
                    if port in plan.cache.columns:
                        schemas[port] = plan.cache.columns[port]
    timeouts = [plan.nodes[member].timeout_s for member in segment.nodes]
    members = [plan.nodes[member] for member in segment.nodes]
    if segment.backend == "dask":
        columns = needed_columns(plan, keep_all=retain)[segment.nodes[0]]
        operator = PartitionedOperator(segment, members, exits, columns)
    else:
        store = plan.cache.store if plan.cache is not None else None
        copied = Copies(store, copies, columns, schemas)
        operator = SegmentOperator(segment, members, sources, exits, budget, copied)
    return PlannedNode(
        id=segment.id,
        label=f"{segment.backend}: {', '.join(segment.nodes)}",
        operator=operator,
        params=OperatorParams(),
        inputs={str(index): [source] for index, source in enumerate(sources)},
        retries=max(plan.nodes[member].retries for member in segment.nodes),
        timeout_s=None if None in timeouts else sum(timeouts),
    )
