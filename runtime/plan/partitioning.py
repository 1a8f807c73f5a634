"""Partitioning: chains that a Dask cluster runs partition-parallel, one partition per file.

A chain qualifies when it starts at a CSV or Parquet input whose path names several files (a
folder or a pattern), goes through operators that work row by row (`Operator.partitionable`),
each read by the next only, and ends at an aggregate whose functions split into a partial and
a combining step (count, size, sum, min, max, mean). Such a chain becomes a segment on `dask`,
which runtime/backends/dask/partitions.py runs; fusion then plans the rest. Planned only for a
run that executes against a cluster (`cluster`: its scheduler's address). Past runs' figures
(`measured`, runtime/tuning/) keep a chain whose input read few rows in the run's process.
A loop over groups or chunks sends its iterations to the same cluster, in batches of keys
(runtime/backends/dask/loops.py).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping

from runtime.errors import OperatorError
from runtime.io.incremental import is_incremental
from runtime.io.paths import FileArea
from runtime.operators.file_checks import named_files
from runtime.operators.lifecycle import has_lifecycle
from runtime.operators.subpipelines import ForEachParams, runs_per_iteration
from runtime.plan.decompose import undecomposable
from runtime.plan.model import Plan, Segment
from runtime.plan.passes.projection import needed_columns
from runtime.tuning.choices import Choice, worth_partitioning
from runtime.tuning.figures import NodeFigures

PARTITIONED_INPUTS = ("csv_input", "parquet_input")


def partition(
    plan: Plan,
    cluster: str,
    data_root: FileArea,
    keep: Iterable[str] = (),
    measured: Mapping[str, NodeFigures] | None = None,
) -> Plan:
    """`plan` with a `dask` segment for every chain that qualifies, and a note for each;
    `measured` (past runs' figures by node) may judge a chain too small to send out."""
    keep = set(keep)
    tuned = list(plan.tuned)
    readers = defaultdict(list)
    for node_id, node in plan.nodes.items():
        for sources in node.inputs.values():
            for source in sources:
                readers[source].append(node_id)
    segments, notes = [], []
    for node_id in plan.order:
        node = plan.nodes[node_id]
        if node.operator.name not in PARTITIONED_INPUTS or node.row_limit is not None:
            continue
        if is_incremental(node.params):  # its position is the whole read's
            continue
        files = file_names(node, data_root)
        if len(files) < 2:
            continue
        chain = _chain(plan, node_id, readers, keep)
        if isinstance(chain, str):
            notes.append(f"{node_id} reads {len(files)} files, but runs as a whole: {chain}")
            continue
        judged = worth_partitioning(node_id, measured) if measured is not None else None
        if judged is not None:
            worth, why = judged
            what = "a partition per file" if worth else "not partitioned"
            tuned.append(Choice(f"{node_id}'s {len(files)} files: {what}", why))
            if not worth:
                continue
        number = len(segments) + 1
        reason = f"{len(files)} files, a partition each, on the Dask cluster at {cluster}"
        segments.append(Segment(f"partitioned:{number}", "dask", chain, reason, where=cluster))
    nodes = _pruned(plan, segments, keep)
    for node_id, node in nodes.items():
        if isinstance(node.params, ForEachParams) and runs_per_iteration(node.params):
            nodes[node_id] = dataclasses.replace(node, cluster=cluster)
            notes.append(f"{node_id}'s iterations over its {node.params.over} run on the Dask "
                         f"cluster at {cluster}, partitioned by their key in batches")  # fmt: skip
    return dataclasses.replace(
        plan,
        nodes=nodes,
        segments=[*plan.segments, *segments],
        notes=[*plan.notes, *notes],
        tuned=tuned,
    )


def _pruned(plan: Plan, segments: list[Segment], keep: set[str]) -> dict:
    """The plan's nodes, those of `segments` less the work nothing downstream reads: every
    worker then reads only the columns the chain needs."""
    needed = needed_columns(plan, keep_all=keep)
    nodes = dict(plan.nodes)
    for node_id in (node_id for segment in segments for node_id in segment.nodes):
        node = nodes[node_id]
        params = node.operator.pruned(node.params, needed[node_id])
        nodes[node_id] = dataclasses.replace(node, params=params)
    return nodes


def file_names(node, data_root: FileArea) -> list[str]:
    """The files an input node reads, as the document names them (none when it cannot say)."""
    field = type(node.params).model_fields["path"]
    try:
        return [file.name for file in named_files(field, node.params.path, data_root)]
    except OperatorError:
        return []


def _chain(plan: Plan, start: str, readers: dict, keep: set[str]) -> tuple[str, ...] | str:
    """The chain from input `start` to its aggregate, or why there is none."""
    chain = [start]
    while True:
        current = chain[-1]
        after = readers.get((current, "out"), [])
        if current in keep or len(after) != 1:
            return f"{current}'s rows are read by {len(after)} nodes, not by one chain"
        node = plan.nodes[after[0]]
        if node.operator.name == "aggregate":
            why = undecomposable(node.params)
            return why or (*chain, node.id)
        if has_lifecycle(node.operator):
            return f"{node.id} ({node.operator.title}) opens and closes in the run's process"
        if not node.operator.partitionable or len(node.inputs) != 1:
            return f"{node.id} ({node.operator.title}) does not work row by row"
        chain.append(node.id)
