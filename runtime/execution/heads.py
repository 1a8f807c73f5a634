"""Previews below a filter: the input reads batches until the nodes below have the rows shown.

A preview of row-wise maps pushes its row limit into the inputs (runtime/execution/preview.py),
but the first 50 rows of a filter may lie anywhere in its input. Operators that work row by row
(`Operator.partitionable`: filter, transform, select, cast, fill_nulls, drop_nulls) give, over
a table, the concatenation of what they give over each part of it. So when a preview's plan is
one input followed by a chain of them, the input reads its file batch by batch, each batch
goes through the chain (a probe that only counts the rows coming out), and the input stops
once the chain has the rows the preview shows. The run then goes on as any other, over the
rows read: the same first rows as a run over the whole file.

A batch that fails to go through the chain (a batch as the file's reader gives it, before the
input names a headerless file's columns, say) makes the probe give up: the input reads on to
the end. A later block of a CSV file that does not read as the first did (a column of numbers
with a text further down) fails the read: the preview then reads the whole file, as a run
does, and shows what it gives. As in a preview of
the input itself, a CSV file's column types are otherwise those of the rows read. Files up to
`STREAM_ABOVE_BYTES` are read whole, as before: it costs little, and the preview then knows
its node's total rows.
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from runtime.io.incremental import is_incremental
from runtime.io.paths import FileArea
from runtime.operators.context import HeadProbe, NodeContext
from runtime.operators.file_checks import input_bytes
from runtime.operators.file_common import FileInput
from runtime.plan.model import Plan, PlannedNode

STREAM_ABOVE_BYTES = 4 * 2**20
"""Inputs whose files hold more are read batch by batch below a filter (a CSV batch is
1 MiB of text, a Parquet batch 131,072 rows)."""


def streamed_head(
    plan: Plan, source: str, limit: int, files: FileArea, connections
) -> tuple[Plan, list[ChainProbe]] | None:
    """`plan` with its input reading only until `source` has `limit` rows, when the plan is a
    file input followed by a chain of row-wise nodes ending at `source` (else None), and the
    probes its input's attempts get (the last one tells whether it stopped early)."""
    chain = _chain(plan, source, files)
    if chain is None:
        return None
    reader, steps = chain[0], chain[1:]
    probes: list[ChainProbe] = []

    def head() -> ChainProbe:
        probes.append(ChainProbe(reader, steps, limit, files, connections))
        return probes[-1]

    nodes = {**plan.nodes, reader.id: dataclasses.replace(reader, head=head)}
    return dataclasses.replace(plan, nodes=nodes), probes


def _chain(plan: Plan, source: str, files: FileArea) -> list[PlannedNode] | None:
    """The plan's nodes from its input to `source`, when they form such a chain over files
    worth streaming."""
    chain = [plan.nodes[source]]
    while chain[-1].inputs:
        node = chain[-1]
        edges = [edge for sources in node.inputs.values() for edge in sources]
        row_wise = node.operator.kind == "process" and node.operator.partitionable
        if len(edges) != 1 or not row_wise or len(node.ports.outputs) != 1:
            return None
        chain.append(plan.nodes[edges[0][0]])
    reader = chain[-1]
    streams = isinstance(reader.operator, FileInput) and not is_incremental(reader.params)
    named = getattr(reader.params, "file_name_column", None) is not None  # added per file
    if not streams or named or len(chain) != len(plan.nodes) or len(chain) == 1:
        return None
    if input_bytes(reader.operator, reader.params, files) <= STREAM_ABOVE_BYTES:
        return None
    return chain[::-1]


class ChainProbe(HeadProbe):
    """Runs each batch an input reads through the chain below it, counting the rows out."""

    def __init__(self, reader: PlannedNode, steps: list[PlannedNode], limit: int, files, links):
        self.reader = reader
        self.steps = steps
        self.limit = limit
        self.files = files
        self.connections = links
        self.rows = 0
        """Rows the chain gave over the batches taken."""

        self.gave_up = False
        """Whether a batch failed to go through the chain: the input then reads on."""

    def take(self, batch: pa.RecordBatch) -> None:
        if self.enough or self.gave_up:
            return
        try:
            self.rows += len(self._through(batch))
        except Exception:  # the run over every row says what is wrong, if anything is
            self.gave_up = True
            return
        self.enough = self.rows >= self.limit

    def _through(self, batch: pa.RecordBatch):
        table = pa.Table.from_batches([batch])
        frame = self.reader.operator.frame(self._context(self.reader), table)
        for step in self.steps:
            port = next(port for port, sources in step.inputs.items() if sources)
            (output,) = step.ports.outputs
            frame = step.operator.run(self._context(step), {port: frame})[output.name]
        return frame

    def _context(self, node: PlannedNode) -> NodeContext:
        return NodeContext(node.id, node.params, data_root=self.files, connections=self.connections)
