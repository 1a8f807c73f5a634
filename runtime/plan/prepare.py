"""A plan ready to run: optimised by the passes, then split into segments per backend."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from runtime.budget import Budget
from runtime.cache.store import ResultStore
from runtime.errors import PipewrightError
from runtime.io.incremental import is_incremental
from runtime.io.paths import FileArea
from runtime.plan.fusion import Probe, fuse
from runtime.plan.model import Plan
from runtime.plan.passes import optimize
from runtime.plan.pins import check_fit, pin
from runtime.plan.reuse.reuse_pass import leave_out, plan_reuse, up_to
from runtime.plan.run_options import RunOptions
from runtime.plan.schemas import output_schemas
from runtime.plan.tuned import past_figures, tune


def prepare(
    plan: Plan,
    *,
    backend: str | None = None,
    data_root: FileArea,
    connections=None,
    keep: Iterable[str] = (),
    cluster: str | None = None,
    options: RunOptions | None = None,
    positions: Mapping[str, Any] | None = None,
    probe: Probe | None = None,
    budget: Budget | None = None,
) -> Plan:
    """`plan` optimised for a run; `backend` overrides the document's `config.backend`,
    `keep` names nodes whose whole output the caller reads (a preview's node), and `cluster`
    is the address of the Dask scheduler the run may send partitions to. `options` make it a
    run's plan (runtime/plan/run_options.py): it then reuses and stores results in
    `data_root.cache` when there is one and `config.cache` is on. `positions` are where the
    incremental inputs start, by node id (runtime/io/incremental.py). `probe` checks the files
    lowered nodes read (runtime/plan/fusion.py). A run's plan is tuned from its past runs'
    figures (runtime/plan/tuned.py) within `budget` (None: what the settings give a run)."""
    backend = backend or plan.config.backend
    plan, measured = past_figures(
        plan, _store_folder(plan, data_root, options), tuning=options is not None and options.tuning
    )
    plan = with_positions(plan, positions or {})
    keep = set(keep)
    plan = without_checks(plan) if options is None else plan
    # Nodes whose rows data tests read: the passes leave them as written (no filter moves
    # past them, none is left out), with every column; fusion still lowers them.
    tested = plan.checked() | {node_id for node_id, _ in plan.referenced()}
    plan = dataclasses.replace(plan, whole=plan.whole | tested)
    if options is not None and options.pins:
        plan = pin(plan, options.pins)
    if options is not None and options.left_out:  # a pinned node and what only it read: moot
        moot = plan.eliminated.keys() | plan.pinned.keys()
        left_out = [node for node in options.left_out if node not in moot]
        plan = leave_out(plan, [named_node(plan, node, "left out") for node in left_out])
    if options is not None and options.up_to is not None:
        plan = up_to(plan, named_node(plan, options.up_to, "--up-to"))
    if options is not None and options.from_node is not None:
        named_node(plan, options.from_node, "--from")
    schemas = output_schemas(plan, data_root, connections)
    if plan.pinned:
        check_fit(plan, schemas, data_root, connections)
    wiring = {node_id: node.inputs for node_id, node in plan.nodes.items()}
    known = {node: found or {} for node, found in schemas.items()}
    plan = optimize(plan, keep=keep | tested, schemas=known)
    store = _store(plan, data_root, options)
    if store is not None:
        plan = plan_reuse(
            plan, store, options, files=data_root, connections=connections, schemas=schemas,
            measured=measured,
        )  # fmt: skip
    if any(node.inputs != wiring.get(node_id) for node_id, node in plan.nodes.items()) or (
        plan.reused or (plan.cache is not None and plan.cache.reading)
    ):
        schemas = None  # a node reads another (a filter moved): fusion finds the columns anew
    if cluster:
        from runtime.plan.partitioning import partition  # and the Dask side: only with a cluster

        plan = partition(plan, cluster, data_root, keep | tested, measured)
    plan = fuse(
        plan, backend, data_root=data_root, connections=connections, keep=keep, schemas=schemas,
        probe=probe, measured=measured,
    )  # fmt: skip
    return tune(plan, measured, budget, backend)


def without_checks(plan: Plan) -> Plan:
    """`plan` without data tests: a preview's, which reads only some rows."""
    if not plan.checked():
        return plan
    nodes = {node_id: dataclasses.replace(node, checks=()) for node_id, node in plan.nodes.items()}
    return dataclasses.replace(plan, nodes=nodes)


def with_positions(plan: Plan, positions: Mapping[str, Any]) -> Plan:
    """`plan` with each incremental input starting from its position (others ignore theirs)."""
    nodes = {
        node_id: dataclasses.replace(node, position=positions[node_id])
        if node_id in positions and is_incremental(node.params)
        else node
        for node_id, node in plan.nodes.items()
    }
    return dataclasses.replace(plan, nodes=nodes)


class UnknownNode(PipewrightError):
    """A run option names a node the pipeline does not have."""

    retryable = False


def named_node(plan: Plan, node_id: str, option: str) -> str:
    """`node_id` when the plan has it; else a clear error naming the option."""
    if node_id not in plan.nodes:
        raise UnknownNode(f"{option}: the pipeline has no node '{node_id}'")
    return node_id


def _store_folder(plan: Plan, area: FileArea, options: RunOptions | None):
    """The store's folder when `options` make the plan a run's (profiles live there too): a
    document with the store off keeps no figures either, so nothing is written there."""
    return area.cache if options is not None and plan.config.cache else None


def _store(plan: Plan, area: FileArea, options: RunOptions | None) -> ResultStore | None:
    if options is None or area.cache is None or not plan.config.cache:
        return None
    return ResultStore(area.cache)
