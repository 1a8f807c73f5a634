"""Editing a plan without touching the original: copies, rewiring, and the derived fields.

Passes are pure: each starts from `copied(plan)`, edits the copy's nodes and inputs through a
`Wiring` (which knows who reads what), and ends with `rederived`, which recomputes what
follows from the wiring (parents, consumer counts, a parents-first order that keeps the old
order wherever the wiring allows). The copy shares the original's nodes until a pass edits
one (`Wiring.own`): a pass that moves one node costs O(1) node copies, not one per node.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import defaultdict

from runtime.document.spec import Source
from runtime.plan.model import Plan, PlannedNode, count_consumers, predecessors_of


def copied(plan: Plan) -> Plan:
    """A copy of `plan` whose containers can be edited freely; its nodes are the original's,
    to be replaced (`copied_node`, `Wiring.own`), never edited in place."""
    return dataclasses.replace(
        plan,
        nodes=dict(plan.nodes),
        order=list(plan.order),
        predecessors={node_id: set(parents) for node_id, parents in plan.predecessors.items()},
        consumers=plan.consumers.copy(),
        eliminated=dict(plan.eliminated),
        merged=dict(plan.merged),
        segments=list(plan.segments),
        notes=list(plan.notes),
        reused=dict(plan.reused),
        stored=set(plan.stored),
        reshaped=dict(plan.reshaped),
        whole=set(plan.whole),
        pinned=dict(plan.pinned),
    )


def copied_node(node: PlannedNode, **changes) -> PlannedNode:
    """`node` with its own inputs (operator and params are shared: nothing mutates them)."""
    inputs = {port: list(sources) for port, sources in node.inputs.items()}
    return dataclasses.replace(node, **{"inputs": inputs, **changes})


def rederived(plan: Plan, rank: dict[str, int] | None = None) -> Plan:
    """`plan` (a copy being edited) with its parents, consumers and order recomputed.

    `rank` places new nodes in the order (a lower rank runs earlier among ready nodes); a node
    keeps its old position's rank otherwise.
    """
    plan.predecessors = predecessors_of(plan.nodes)
    plan.consumers = count_consumers(plan.nodes)
    ranks = {node_id: index for index, node_id in enumerate(plan.order)} | (rank or {})
    plan.order = _parents_first(plan.predecessors, ranks)
    return plan


class Wiring:
    """Who reads each output of a plan being edited, kept current as a pass rewires it, so that
    a move costs a few dictionary operations rather than a scan of the whole plan."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._owned: set[str] = set()
        self.readers: dict[Source, list[tuple[str, str, int]]] = defaultdict(list)
        for node_id, node in plan.nodes.items():
            for port, sources in node.inputs.items():
                for position, source in enumerate(sources):
                    self.readers[source].append((node_id, port, position))

    def sole_output(self, node_id: str) -> Source | None:
        """The one output port of `node_id` when it has one and exactly one input reads it."""
        outputs = self.plan.nodes[node_id].ports.outputs
        if len(outputs) != 1:
            return None
        source = (node_id, outputs[0].name)
        return source if len(self.readers.get(source, ())) == 1 else None

    def own(self, node_id: str) -> PlannedNode:
        """The plan's node `node_id`, made its own (a copy of the original's the first time) so
        that the pass may edit it."""
        if node_id not in self._owned:
            self.plan.nodes[node_id] = copied_node(self.plan.nodes[node_id])
            self._owned.add(node_id)
        return self.plan.nodes[node_id]

    def connect(self, node_id: str, port: str, position: int, source: Source) -> None:
        """Make input `port` (its edge at `position`) of `node_id` read `source`."""
        sources = self.own(node_id).inputs.setdefault(port, [])
        reader = (node_id, port, position)
        if position < len(sources):
            self.readers[sources[position]].remove(reader)
            sources[position] = source
        else:
            sources.append(source)
        self.readers[source].append(reader)

    def redirect(self, old: Source, new: Source) -> None:
        """Make every input that reads `old` read `new` instead."""
        for reader in list(self.readers.get(old, ())):
            self.connect(*reader, new)

    def forget(self, node_id: str) -> None:
        """Drop `node_id`'s own inputs from the index (the node leaves the plan)."""
        for port, sources in self.plan.nodes[node_id].inputs.items():
            for position, source in enumerate(sources):
                self.readers[source].remove((node_id, port, position))


def only_input(node: PlannedNode) -> tuple[str, Source] | None:
    """The port and source of a node that reads exactly one input, else None."""
    edges = [(port, source) for port, sources in node.inputs.items() for source in sources]
    return edges[0] if len(edges) == 1 else None


def _parents_first(predecessors: dict[str, set[str]], ranks: dict[str, int]) -> list[str]:
    children: dict[str, list[str]] = {node_id: [] for node_id in predecessors}
    waiting = {node_id: len(parents) for node_id, parents in predecessors.items()}
    for node_id, parents in predecessors.items():
        for parent in parents:
            children[parent].append(node_id)
    ready = [(ranks.get(node_id, 0), node_id) for node_id, count in waiting.items() if not count]
    heapq.heapify(ready)
    order = []
    while ready:
        _, node_id = heapq.heappop(ready)
        order.append(node_id)
        for child in children[node_id]:
            waiting[child] -= 1
            if not waiting[child]:
                heapq.heappush(ready, (ranks.get(child, 0), child))
    return order
