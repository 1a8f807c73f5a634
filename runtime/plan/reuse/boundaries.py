"""Recomputing a port a run did not store, from the nearest results it did.

The Data tab shows a port the run did not keep (inside a fused segment, or evicted since) by
a preview of the run's document. Rather than read the pipeline's inputs again, the preview
starts from the run's stored results above the port that the store still holds: each such
node becomes a read of its Parquet files (the reuse pass's `read_instead`), and only the nodes
between those results and the port run. The rows are then the run's own, whatever happened
to the input files since.

A stored result stands for its node only when it holds every column the port needs of it (a
run keeps only the columns something downstream reads); and results are looked up only in
the store given, the workspace's: a key that another workspace's run recorded is simply not
found there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from runtime.cache.store import KEY, ResultStore
from runtime.plan.model import Plan
from runtime.plan.passes.editing import copied, rederived
from runtime.plan.passes.projection import Columns, needed_columns
from runtime.plan.reuse.reuse_pass import ancestors, read_instead

Results = Mapping[str, Mapping[str, str]]
"""The keys of the results a run stored, by node and port (its nodes' `metrics.results`)."""


@dataclass(frozen=True)
class Boundaries:
    """A plan that starts from stored results where it can."""

    plan: Plan
    read: list[str]
    """The nodes read from the store instead of computed, parents first."""


def from_stored(plan: Plan, store: ResultStore, results: Results, target: str) -> Boundaries:
    """`plan` (a preview's, of `target` and its ancestors) with each nearest ancestor of
    `target` whose results `store` still holds read from them, and what only they needed left
    out; unchanged when none is held."""
    needed = needed_columns(plan, keep_all=[target])
    read: dict[str, set[str]] = {}  # the ports of each node that the plan reads
    for node_id, port in plan.consumers:
        read.setdefault(node_id, set()).add(port)
    found: dict[str, dict[str, Path]] = {}
    seen: set[str] = set()
    stack = list(plan.predecessors[target])
    while stack:
        node_id = stack.pop()
        if node_id in seen:
            continue
        seen.add(node_id)
        keys = results.get(node_id)
        keys = keys if isinstance(keys, Mapping) else {}
        locations = _held(read.get(node_id, set()), store, keys, needed[node_id])
        if locations is None:
            stack.extend(plan.predecessors[node_id])
        else:
            found[node_id] = locations
    if not found:
        return Boundaries(plan, [])
    result = copied(plan)
    for node_id, locations in found.items():
        result.nodes[node_id] = read_instead(plan.nodes[node_id], locations)
    result = rederived(result)
    used = ancestors(result, target) | {target}
    for node_id in plan.order:
        if node_id not in used:
            del result.nodes[node_id]
    started = [node_id for node_id in plan.order if node_id in found and node_id in used]
    return Boundaries(rederived(result), started)


def _held(ports: set[str], store: ResultStore, keys, needed: Columns):
    """The stored file of each of a node's `ports` (those the plan reads), when the store
    holds every one of them with the columns needed; else None."""
    locations = {}
    for port in sorted(ports):
        location = _file(store, keys.get(port), needed if port == "out" else None)
        if location is None:
            return None
        locations[port] = location
    return locations or None


def _file(store: ResultStore, key, needed: Columns) -> Path | None:
    """The stored file of `key` if it holds the `needed` columns (None: all the port's, as its
    record names them; a file whose record does not name them is not known to hold them)."""
    if not isinstance(key, str) or not KEY.match(key) or not store.has(key):
        return None
    held = store.columns(key)
    wanted = store.record(key).get("columns") if needed is None else needed
    if held is None or wanted is None or not set(wanted) <= set(held):
        return None
    return store.path_of(key)
