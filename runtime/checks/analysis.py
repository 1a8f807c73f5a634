"""From a document to a runnable plan: validation, parameters, topological order.

Validation collects every problem it finds (unknown operators, bad params, duplicate ids,
dangling edges and ports, unconnected or over-connected input ports, cycles), each naming the
node and field and saying how to fix it; `runtime.plan.build_plan` turns what it learned into
the plan the executor runs. Ordering uses the standard library's `graphlib`. Nothing here reads
or writes data.
"""

from __future__ import annotations

import difflib
import graphlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from runtime.checks.data_tests import port_problems
from runtime.document.parameters import resolve_values, substitute
from runtime.document.problems import validation_problems
from runtime.document.spec import Edge, Pipeline, Source, load_document
from runtime.errors import PipelineValidationError, Problem
from runtime.io.paths import FileArea
from runtime.operators.contract import Operator, Port
from runtime.operators.file_checks import path_problems
from runtime.operators.registry import Registry, default_registry

STRUCTURAL = ("duplicate_node", "dangling_edge", "duplicate_edge", "unknown_port", "cycle",
              "too_many_edges")  # fmt: skip
"""The codes of problems that make a graph meaningless, which saves and imports refuse, in
the order they are reported."""


def structural_problems(
    pipeline: Pipeline, registry: Registry | None = None, problems: list[Problem] | None = None
) -> list[Problem]:
    """Problems that make a graph meaningless: duplicate ids, dangling edges, unknown ports,
    two edges into a one-edge port, cycles (among `problems` when the caller analysed already).

    A half-built graph without these can still be saved and edited. A port is only checked
    when its node's operator is known (an unknown operator is a problem of its own).
    """
    found = analyse(pipeline, registry=registry).problems if problems is None else problems
    structural = [problem for problem in found if problem.code in STRUCTURAL]
    return sorted(structural, key=lambda problem: STRUCTURAL.index(problem.code))


def load_checked(data: str | bytes | dict, registry: Registry | None = None) -> Pipeline:
    """`load_document`, whose refusal of a document with bad fields also names the problems of
    its graph (a cycle, a dangling edge): every problem of a file at once."""
    try:
        return load_document(data)
    except PipelineValidationError as error:
        if error.outline is None:
            raise
        found = [*error.problems, *structural_problems(error.outline, registry)]
        raise PipelineValidationError(found) from error


def validate(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    registry: Registry | None = None,
    *,
    data_root: FileArea | str | Path | None = None,
) -> list[Problem]:
    """Every problem that would stop the pipeline from running, in document order (file paths
    checked against `data_root` when given)."""
    return analyse(pipeline, parameters, registry, data_root=data_root).problems


@dataclass(slots=True)
class Analysis:
    """Everything validation learned, also for a graph that cannot run yet.

    `params` is None for a node whose params are invalid; `problems` lists everything found.
    """

    values: dict[str, Any]
    operators: dict[str, Operator]
    params: dict[str, BaseModel | None]
    inputs: dict[str, dict[str, list[Source]]]
    predecessors: dict[str, set[str]]
    order: list[str]
    """Node ids in an order that runs parents first (empty when there is a cycle)."""
    problems: list[Problem]


def analyse(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    registry: Registry | None = None,
    *,
    data_root: FileArea | str | Path | None = None,
) -> Analysis:
    """Check the whole document with the run's parameter values, collecting every problem;
    with `data_root`, file paths that lead out of it are problems too."""
    registry = registry or default_registry()
    values = resolve_values(pipeline.config.parameters, parameters)
    problems = _unknown_run_parameters(pipeline, parameters or {})
    problems += _duplicate_ids(pipeline)
    operators = _operators(pipeline, registry, problems)
    params = {
        node.id: _node_params(node, operators[node.id], values, problems)
        for node in pipeline.nodes
        if node.id in operators
    }
    if data_root is not None:
        area = FileArea.of(data_root)
        for node_id, node_params in params.items():
            if node_params is not None:
                problems += path_problems(node_id, operators[node_id], node_params, area)
    ids = {node.id for node in pipeline.nodes}
    problems += _dangling_edges(pipeline, ids)
    ports = _node_ports(operators, params)
    problems += _unknown_ports(pipeline, ports)
    inputs = _wire_inputs(pipeline, ports, problems)
    predecessors = _predecessors(pipeline, ids)
    outputs = {node.id: None for node in pipeline.nodes}
    outputs.update(
        (node_id, None if found.outputs is None else [port.name for port in found.outputs])
        for node_id, found in ports.items()
    )
    problems += port_problems(pipeline, outputs, predecessors)
    order, cycles = _ordered(predecessors)
    problems += cycles
    return Analysis(values, operators, params, inputs, predecessors, order, problems)


def _unknown_run_parameters(pipeline: Pipeline, parameters: dict) -> list[Problem]:
    declared = pipeline.config.parameters
    return [
        Problem(
            f"unknown parameter '{name}'; the pipeline declares: "
            f"{', '.join(sorted(declared)) or 'none'}",
            field=f"parameters.{name}",
            code="unknown_parameter",
        )
        for name in parameters
        if name not in declared
    ]


def _duplicate_ids(pipeline: Pipeline) -> list[Problem]:
    counts = Counter(node.id for node in pipeline.nodes)
    return [
        Problem(
            f"{count} nodes share the id '{node_id}'; give each node its own id",
            node=node_id,
            field="id",
            code="duplicate_node",
        )
        for node_id, count in counts.items()
        if count > 1
    ]


def _operators(
    pipeline: Pipeline, registry: Registry, problems: list[Problem]
) -> dict[str, Operator]:
    operators = {}
    for node in pipeline.nodes:
        operator = registry.get(node.operator)
        if operator is None:
            hint = difflib.get_close_matches(node.operator, registry.names(), n=1)
            suggestion = (
                f"; did you mean '{hint[0]}'?" if hint else "; see `python -m runtime operators`"
            )
            problems.append(
                Problem(
                    f"unknown operator '{node.operator}'{suggestion}",
                    node=node.id,
                    field="operator",
                    code="unknown_operator",
                )
            )
        else:
            operators[node.id] = operator
    return operators


def _node_params(
    node, operator: Operator, values: dict, problems: list[Problem]
) -> BaseModel | None:
    raw, substitution_problems = substitute(node.params, operator.Params, values, node=node.id)
    problems += substitution_problems
    if substitution_problems:
        return None
    try:
        return operator.Params.model_validate(raw)
    except ValidationError as error:
        problems += validation_problems(
            error.errors(), operator.Params, node=node.id, prefix="params", code="invalid_params"
        )
        return None


def _dangling_edges(pipeline: Pipeline, ids: set[str]) -> list[Problem]:
    problems = []
    for index, edge in enumerate(pipeline.edges):
        for end in ("source", "target"):
            node_id = getattr(edge, end)
            if node_id not in ids:
                problems.append(
                    Problem(
                        f"edge {edge.source} → {edge.target} refers to node '{node_id}', "
                        "which does not exist; remove the edge or add the node",
                        field=f"edges[{index}].{end}",
                        code="dangling_edge",
                    )
                )
    duplicates = Counter(edge.sort_key() for edge in pipeline.edges)
    for (source, source_port, target, target_port), count in duplicates.items():
        if count > 1:
            problems.append(
                Problem(
                    f"the edge {source}.{source_port} → {target}.{target_port} appears "
                    f"{count} times; keep one",
                    node=target,
                    field=f"inputs.{target_port}",
                    code="duplicate_edge",
                )
            )
    return problems


def _node_ports(operators: dict[str, Operator], params: dict) -> dict[str, NodePorts]:
    """Each node's ports from its params; the outputs of a node whose ports follow params that
    are not valid yet are not known (None), so its edges wait for the params' fix."""
    found = {}
    for node_id, operator in operators.items():
        node_params = params.get(node_id)
        ports = operator.ports(node_params)
        unknown = node_params is None and operator.outputs_from is not None
        found[node_id] = NodePorts(ports.inputs, None if unknown else ports.outputs)
    return found


@dataclass(frozen=True, slots=True)
class NodePorts:
    """A node's ports as validation knows them: its outputs are None while they are unknown."""

    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...] | None


def _unknown_ports(pipeline: Pipeline, ports: dict[str, NodePorts]) -> list[Problem]:
    """An edge may only name ports its node has (nodes of unknown operators are skipped)."""
    return [problem for edge in pipeline.edges for problem in _port_problems(edge, ports)]


def _port_problems(edge: Edge, ports: dict[str, NodePorts]) -> list[Problem]:
    """The ports `edge` names that its source or target does not have."""
    problems = []
    source, target = ports.get(edge.source), ports.get(edge.target)
    if source and source.outputs is not None and not _named(source.outputs, edge.source_port):
        problems.append(_port_problem(edge.source, "output", edge.source_port, source.outputs))
    if target and not _named(target.inputs, edge.target_port):
        problems.append(_port_problem(edge.target, "input", edge.target_port, target.inputs))
    return problems


def _named(ports: tuple[Port, ...], name: str) -> bool:
    return any(port.name == name for port in ports)


def _wire_inputs(
    pipeline: Pipeline, ports: dict[str, NodePorts], problems: list[Problem]
) -> dict[str, dict[str, list[Source]]]:
    """Each node's input sources per port, checking ports are connected properly.

    Edges naming a port that does not exist were reported by `_unknown_ports` and are left out.
    """
    inputs: dict[str, dict[str, list[Source]]] = defaultdict(lambda: defaultdict(list))
    for edge in pipeline.edges:
        if _port_problems(edge, ports):
            continue
        inputs[edge.target][edge.target_port].append((edge.source, edge.source_port))
    for node in pipeline.nodes:
        for port in ports[node.id].inputs if node.id in ports else ():
            sources = inputs[node.id].get(port.name, [])
            if port.required and not sources:
                problems.append(
                    Problem(
                        f"input port '{port.name}' is not connected; connect an edge to it",
                        node=node.id,
                        field=f"inputs.{port.name}",
                        code="unconnected_port",
                    )
                )
            elif not port.many and len(sources) > 1:
                names = ", ".join(f"{source}.{source_port}" for source, source_port in sources)
                problems.append(
                    Problem(
                        f"input port '{port.name}' takes one edge but has {len(sources)} "
                        f"(from {names}); remove all but one, or combine them with a union",
                        node=node.id,
                        field=f"inputs.{port.name}",
                        code="too_many_edges",
                    )
                )
    # Sorted like exported edges, so a union's order does not depend on how edges were drawn.
    return {
        node.id: {port: sorted(sources) for port, sources in inputs[node.id].items()}
        for node in pipeline.nodes
    }


def _port_problem(node_id: str, direction: str, port: str, ports) -> Problem:
    names = ", ".join(p.name for p in ports) or "none"
    return Problem(
        f"there is no {direction} port '{port}'; its {direction} ports are: {names}",
        node=node_id,
        field=f"{direction}s.{port}",
        code="unknown_port",
    )


def _predecessors(pipeline: Pipeline, ids: set[str]) -> dict[str, set[str]]:
    predecessors: dict[str, set[str]] = {node.id: set() for node in pipeline.nodes}
    for edge in pipeline.edges:
        if edge.source in ids and edge.target in ids:
            predecessors[edge.target].add(edge.source)
    return predecessors


def _ordered(predecessors: dict[str, set[str]]) -> tuple[list[str], list[Problem]]:
    """A parents-first order of the nodes, or no order and the problem naming a cycle."""
    try:
        return list(graphlib.TopologicalSorter(predecessors).static_order()), []
    except graphlib.CycleError as error:
        cycle = list(error.args[1])  # in edge direction, first node repeated at the end
        return [], [
            Problem(
                f"these nodes form a cycle: {' → '.join(cycle)}; remove one of its edges",
                node=cycle[0],
                code="cycle",
            )
        ]
