"""A finished run's node results: where each port's stored Parquet file is, or how to get it.

A run records, per node, the store keys of the ports it stored (`NodeRun.metrics["results"]`,
docs/cache.md); the workspace's result store (`cache_folder`) maps a key to its file while the
store keeps it. A port that was not stored (inside a fused DuckDB segment) or whose entry was
evicted is recomputed instead, by a preview of the run's own document and parameters: its
first rows only, starting from the run's nearest stored results that the workspace's store
still holds (`stored_results`). When it had to read some input files again, `changed_inputs`
says which of them changed since the run, so that the answer can say the rows may differ from
what the run saw. A stored result may lack columns nothing after its node read
(`missing_columns`).

The run-data API and run comparison read results through here.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from editor.errors import ActionError
from editor.models import NodeRun, Run
from editor.workspaces.membership import cache_folder, file_area
from runtime import (
    OperatorError,
    PipelineValidationError,
    build_plan,
    default_registry,
    load_document,
)
from runtime import Pipeline as PipelineSpec
from runtime.cache.store import ResultStore
from runtime.io.file_patterns import input_files
from runtime.plan.reuse import stored_result


@dataclass(frozen=True)
class PortResult:
    """One port of one node of a run: its stored file (None: not stored, or evicted)."""

    run: Run
    node: str
    port: str
    path: Path | None
    cached: bool
    """Whether the run reused the node's result from an earlier run."""
    recorded: bool
    """Whether the run stored this port (False: it was never stored, only recomputable)."""
    key: str | None = None
    """The key the run stored it under."""

    @property
    def document(self) -> PipelineSpec:
        return load_document(self.run.document)


def port_result(run: Run, node: str, port: str | None) -> PortResult:
    """The result at `port` (default: the node's first) of `node` in `run`; 400 naming the
    node or the port when the run has no such node or the node no such port."""
    document = load_document(run.document)
    spec = document.node(node)
    if spec is None:
        raise ActionError(400, "invalid_request", f"run #{run.number} has no node '{node}'",
                          field="node")  # fmt: skip
    node_run = NodeRun.objects.filter(run=run, node_id=node).first()
    metrics = node_run.metrics if node_run is not None else {}
    results = metrics.get("results") or {}
    ports = list(results) + [name for name in _ports(spec) if name not in results]
    if not ports:
        raise ActionError(400, "invalid_request", f"node '{node}' has no output",
                          node=node, field="port")  # fmt: skip
    port = port or ports[0]
    if port not in ports:
        known = ", ".join(f"'{name}'" for name in ports)
        raise ActionError(
            400, "invalid_request", f"node '{node}' has no port '{port}'; its ports: {known}",
            node=node, field="port",
        )  # fmt: skip
    key = results.get(port)
    path = _store(run).path_of(key) if key else None
    cached = bool(metrics.get("cached"))
    return PortResult(run, node, port, path, cached, key is not None, key)


def stored_results(run: Run) -> dict[str, dict[str, str]]:
    """The keys of the results `run` stored, by node and port: what a recomputation of one of
    its ports may start from."""
    found = NodeRun.objects.filter(run=run).values_list("node_id", "metrics")
    return {node: metrics["results"] for node, metrics in found if metrics.get("results")}


def missing_columns(result: PortResult) -> list[str]:
    """The port's columns that its stored result does not hold (nothing after the node read
    them, so the run did not keep them)."""
    return stored_result.missing_columns(_store(result.run), result.key) if result.path else []


def _store(run: Run) -> ResultStore:
    return ResultStore(cache_folder(run.pipeline.workspace))


def changed_inputs(result: PortResult, user, read: Collection[str] | None = None) -> list[str]:
    """The input files of the run (as its document names them, parameters substituted) that
    changed, or went, since the run started: a recomputed result may then differ from what
    the run saw. `read`: only those of these input nodes (the ones a recomputation read)."""
    started = (result.run.started_at or result.run.created_at).timestamp()
    area = file_area(result.run.pipeline.workspace, user)
    try:
        plan = build_plan(result.document, result.run.parameters)
    except PipelineValidationError:  # the recomputing preview says what is wrong
        return []
    changed = []
    for node in plan.nodes.values():
        path = getattr(node.params, "path", None)
        if node.operator.kind != "input" or not isinstance(path, str):
            continue
        if read is not None and node.id not in read:
            continue
        try:  # a folder or a pattern: each of the files it names now
            files = input_files(area, path, ("",))
            if any(file.location.stat().st_mtime > started for file in files):
                changed.append(path)
        except (OperatorError, OSError):  # gone
            changed.append(path)
    return changed


def _ports(spec) -> list[str]:
    """The ports a node can have a result at: its outputs (from its params, as saved; the
    declared ones if they only become valid with the run's parameters), or for an output
    node, what it wrote (its input port)."""
    operator = default_registry().get(spec.operator)
    if operator is None:
        return []
    try:
        params = operator.Params.model_validate(spec.params)
    except ValidationError:
        params = None
    ports = operator.ports(params)
    return [port.name for port in (ports.inputs if operator.kind == "output" else ports.outputs)]
