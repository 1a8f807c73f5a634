"""The pin pass: a pinned node does not run, its output is rows kept in a Parquet file.

A pin (`RunOptions.pins`: node id → Parquet file) is a forced reuse: the node becomes a read of
the pinned file (`PinnedRows`, a `StoredResult` whose key is the file's content, so results
below it are stored and reused per pin), and the nodes above it that nothing else reads leave
the run, each saying why. Pinned rows that a node reading them cannot take (a column missing)
are refused before anything runs, naming the pinned node (`check_fit`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from runtime.errors import OperatorError, PipelineValidationError, PipewrightError, Problem
from runtime.operators.context import NodeContext
from runtime.operators.file_identity import file_hash
from runtime.plan.model import Plan
from runtime.plan.passes.editing import copied, rederived
from runtime.plan.reuse.reuse_pass import ancestors, read_instead
from runtime.plan.reuse.stored_result import StoredResult
from runtime.plan.schemas import OutputSchemas, input_schemas


class PinError(PipewrightError):
    """A pin that cannot apply: an unknown node, a node without one output, an unreadable file."""

    retryable = False


class PinnedRows(StoredResult):
    """Reads a pinned node's rows from its pin file (one output port)."""

    name = "pinned"

    def cache_identity(self, params, files, connections) -> object:
        """The pin file's content: a new pin gives the nodes below new keys."""
        return [file_hash(location) for location in self.locations.values()]

    def reuse_for_s(self, params) -> float:
        return float("inf")


def pin(plan: Plan, pins: Mapping[str, str | Path]) -> Plan:
    """`plan` with each pinned node read from its file and what only it read left out."""
    if not pins:
        return plan
    result = copied(plan)
    for node_id, location in pins.items():
        node = _pinnable(plan, node_id, Path(location))
        (port,) = node.ports.outputs
        result.nodes[node_id] = read_instead(node, {port.name: Path(location)}, PinnedRows)
        result.pinned[node_id] = str(location)
    result = rederived(result)
    children: dict[str, set[str]] = {}
    for child, parents in result.predecessors.items():
        for parent in parents:
            children.setdefault(parent, set()).add(child)
    above = set().union(*(ancestors(plan, node_id) for node_id in pins)) - set(pins)
    for node_id in reversed(result.order):
        if node_id not in above or children.get(node_id):
            continue
        if result.nodes[node_id].operator.kind == "output":
            continue
        del result.nodes[node_id]
        for parent in result.predecessors[node_id]:
            children[parent].discard(node_id)
        result.eliminated[node_id] = "only pinned nodes read from it"
    return rederived(result)


def check_fit(plan: Plan, schemas: OutputSchemas, data_root, connections=None) -> None:
    """Refuse pinned rows that a node reading them cannot take (a column it reads is not
    there, or has another type), naming the pinned node and that reader: `schemas` are the
    pinned plan's (`output_schemas`), in which such a reader's columns are unknown."""
    inputs = input_schemas(plan, schemas)
    problems = []
    for node_id in plan.order:
        node = plan.nodes[node_id]
        pinned = sorted({source for sources in node.inputs.values() for source, _ in sources}
                        & set(plan.pinned))  # fmt: skip
        if not pinned or schemas.get(node_id) is not None or inputs[node_id] is None:
            continue
        ctx = NodeContext(node_id, node.params, data_root=data_root, connections=connections)
        try:
            node.operator.output_schema(ctx, inputs[node_id])
        except OperatorError as error:
            problems += [
                Problem(f"its pinned rows do not fit '{node_id}': {error}", node=pin, code="pin")
                for pin in pinned
            ]
    if problems:
        raise PipelineValidationError(problems)


def _pinnable(plan: Plan, node_id: str, location: Path):
    node = plan.nodes.get(node_id)
    if node is None:
        raise PinError(f"pin: the pipeline has no node '{node_id}'")
    if len(node.ports.outputs) != 1:
        raise PinError(f"pin: node '{node_id}' has no single output to pin")
    if not location.is_file():
        raise PinError(f"pin of node '{node_id}': no file '{location.name}'")
    return node


def moot_under_pins(document, pinned) -> set[str]:
    """The nodes of `document` (a `Pipeline` spec) whose problems a run with pins on `pinned`
    does not meet: the pinned nodes (their operator does not run) and the nodes above them
    that only moot nodes read, as the pin pass leaves them out."""
    moot = set(pinned) & {node.id for node in document.nodes}
    children: dict[str, set[str]] = {}
    for edge in document.edges:
        children.setdefault(edge.source, set()).add(edge.target)
    grew = True
    while grew:
        found = {node for node, below in children.items() if node not in moot and below <= moot}
        moot |= found
        grew = bool(found)
    return moot
