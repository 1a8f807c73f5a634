"""Nodes on pandas that read a spilled input a batch at a time (runtime/execution/streams.py).

A row-wise operator (`Operator.partitionable`: filter, transform, select, ...) gives over a
table the concatenation of what it gives over each part of it, so when it is handed rows
spilled to a file (runtime/tables/spilled.py) it runs over one batch at a time: its outputs
are written batch by batch to spill files of their own when the node has one
(`ctx.spill_path`: everything that reads them takes batches too), else concatenated into the
frames it would have given (a sort or an aggregate on pandas reads those). `validate` checks
its batches the same way.

Belongs here: the loop over batches and where its outputs go. Does not belong here: which
nodes get a spill file (the executor) or the file itself (runtime/tables/spilled.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from runtime.lazy import pd
from runtime.tables.spilled import SpilledRows, spill_outputs

if TYPE_CHECKING:
    from runtime.operators.context import NodeContext
    from runtime.operators.contract import InputFrames, Operator

Outputs = dict[str, "pd.DataFrame | SpilledRows"]


def run_node(operator: Operator, ctx: NodeContext, inputs: InputFrames) -> Outputs:
    """`operator.run` over `inputs`, batch by batch where a row-wise operator's one input was
    spilled. The executor hands spilled rows only to tasks that take them
    (runtime/execution/streams.py): these, DuckDB segments and nodes that read them itself."""
    spilled = [port for port, rows in inputs.items() if isinstance(rows, SpilledRows)]
    given = [port for port, rows in inputs.items() if rows is not None]
    if operator.partitionable and spilled == given and len(given) == 1:
        port = spilled[0]
        return in_batches(ctx, inputs[port], lambda frame: operator.run(ctx, {port: frame}))
    return operator.run(ctx, inputs)


def in_batches(
    ctx: NodeContext, rows: SpilledRows, step: Callable[[pd.DataFrame], dict[str, pd.DataFrame]]
) -> Outputs:
    """`step` over each batch of `rows`: its outputs spilled when the node has a spill file,
    else concatenated."""
    outputs = _each_batch(ctx, rows, step)
    if ctx.spill_path is not None:
        return spill_outputs(ctx.spill_path, outputs)
    found: dict[str, list[pd.DataFrame]] = {}
    for batch in outputs:
        for port, frame in batch.items():
            found.setdefault(port, []).append(frame)
    return {port: joined(frames) for port, frames in found.items()}


def joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The outputs over the batches as one frame, indexed as the output over every row is: the
    batches' own indexes (rows keep where they stood in the input), or 0 to n again where the
    operator numbers its rows afresh (unpivot)."""
    if len(frames) == 1:
        return frames[0]
    afresh = all(isinstance(f.index, pd.RangeIndex) and f.index.start == 0 for f in frames)
    return pd.concat(frames, ignore_index=afresh)


def _each_batch(ctx: NodeContext, rows: SpilledRows, step) -> Iterator[dict[str, pd.DataFrame]]:
    done = 0
    for frame in rows.frames():
        ctx.check_cancelled()
        yield step(frame)
        done += len(frame)
        ctx.progress(done)
