"""A plan ready to run: optimised by the passes, then split into segments per backend."""

from __future__ import annotations

from collections.abc import Iterable

from runtime.paths import FileArea
from runtime.plan.fusion import fuse
from runtime.plan.model import Plan
from runtime.plan.partitioning import partition
from runtime.plan.passes import optimize
from runtime.plan.schemas import output_schemas


def prepare(
    plan: Plan,
    *,
    backend: str | None = None,
    data_root: FileArea,
    connections=None,
    keep: Iterable[str] = (),
    cluster: str | None = None,
) -> Plan:
    """`plan` optimised for a run; `backend` overrides the document's `config.backend`,
    `keep` names nodes whose whole output the caller reads (a preview's node), and `cluster`
    is the address of the Dask scheduler the run may send partitions to."""
    backend = backend or plan.config.backend
    keep = set(keep)
    schemas = output_schemas(plan, data_root, connections)
    wiring = {node_id: node.inputs for node_id, node in plan.nodes.items()}
    plan = optimize(plan, keep=keep, schemas={node: found or {} for node, found in schemas.items()})
    if any(node.inputs != wiring.get(node_id) for node_id, node in plan.nodes.items()):
        schemas = None  # a node reads another (a filter moved): fusion finds the columns anew
    if cluster:
        plan = partition(plan, cluster, data_root, keep)
    return fuse(
        plan, backend, data_root=data_root, connections=connections, keep=keep, schemas=schemas
    )
