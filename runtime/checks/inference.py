"""Schema inference: the columns every node will see and produce, before anything runs.

Operators answer `output_schema` from their params and input schemas (input operators read a
small sample of their source). Walking the graph in order gives the editor each node's input
and output columns, and finds mistakes early: a missing column, an expression whose types do
not fit, join keys of different types, each named by node and field. It works on half-built
graphs too: a node with problems simply has no schema, and neither has anything downstream.
"""

from __future__ import annotations

import graphlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.checks.analysis import Analysis, analyse
from runtime.checks.data_tests import column_problems
from runtime.checks.loops import output_schemas_of
from runtime.document.parameters import PLACEHOLDER
from runtime.document.problems import field_title
from runtime.document.spec import Pipeline
from runtime.errors import OperatorError, ParamsError, Problem, UnreachableError
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext
from runtime.operators.registry import Registry
from runtime.tables.schema import Schema

if TYPE_CHECKING:
    from runtime.io.sql.connection_specs import Connections


@dataclass(slots=True)
class NodeSchemas:
    """One node's input and output schemas (by port), or why they are unknown."""

    inputs: dict[str, Schema | list[Schema] | None] = field(default_factory=dict)
    outputs: dict[str, Schema] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    views: dict[str, Schema] = field(default_factory=dict)
    """Rows its expression params read that are no input's (`Operator.views`)."""

    def to_json(self) -> dict:
        def encode(value):
            if isinstance(value, list):  # a port taking many edges; unknown ones are None
                return [encode(schema) for schema in value]
            return None if value is None else value.to_json()

        found = {
            "inputs": {port: encode(schema) for port, schema in self.inputs.items()},
            "outputs": {port: schema.to_json() for port, schema in self.outputs.items()},
            "problems": [problem.to_json() for problem in self.problems],
        }
        if self.views:
            found["views"] = {name: schema.to_json() for name, schema in self.views.items()}
        return found


@dataclass(slots=True)
class InferredSchemas:
    """Schemas per node, and every problem found (validation's and inference's)."""

    nodes: dict[str, NodeSchemas]
    problems: list[Problem]

    def to_json(self) -> dict:
        return {
            "nodes": {node_id: schemas.to_json() for node_id, schemas in self.nodes.items()},
            "problems": [problem.to_json() for problem in self.problems],
        }


def infer_schemas(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    data_root: FileArea | str | Path = ".",
    connections: Connections | None = None,
) -> InferredSchemas:
    """Each node's schemas, in topological order, without running anything."""
    analysis = analyse(pipeline, parameters, registry, data_root=data_root)
    by_node: dict[str | None, list[Problem]] = defaultdict(list)
    for problem in analysis.problems:
        by_node[problem.node].append(problem)
    nodes = {node.id: NodeSchemas(problems=list(by_node[node.id])) for node in pipeline.nodes}
    if any(problem.code == "cycle" for problem in analysis.problems):
        return InferredSchemas(nodes, list(analysis.problems))
    problems = list(analysis.problems)
    for node_id in graphlib.TopologicalSorter(analysis.predecessors).static_order():
        schemas = nodes[node_id]
        if node_id not in analysis.operators:
            continue  # an unknown operator: no ports to speak of
        # A node's inputs are known even while its own params are wrong: its form offers
        # their columns to put them right.
        schemas.inputs, complete = _input_schemas(analysis, node_id, nodes)
        if complete and analysis.params.get(node_id) is not None:
            schemas.views = _views(analysis, node_id, schemas)
        if schemas.problems or analysis.params.get(node_id) is None or not complete:
            continue  # its outputs cannot be worked out (yet)
        ctx = NodeContext(
            node_id,
            analysis.params[node_id],
            data_root=FileArea.of(data_root),
            connections=connections,
        )
        problem = _infer_node(analysis, node_id, ctx, schemas, registry)
        if problem is not None:
            schemas.problems.append(problem)
            problems.append(problem)
    checked = [node for node in pipeline.nodes if node.expect and node.id in nodes]
    outputs = {node_id: found.outputs for node_id, found in nodes.items()}
    for node in checked:
        found = column_problems(node.id, node.expect, outputs)
        nodes[node.id].problems += found
        problems += found
    return InferredSchemas(nodes, problems)


def run_problems(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    data_root: FileArea | str | Path = ".",
    connections: Connections | None = None,
) -> list[Problem]:
    """What stops a run before it starts: validation's problems (file paths included), and each
    field whose `${parameter}` value does not fit the columns it meets, found as the schema view
    finds it. Other schema problems do not stop a run: a sample may not tell the whole file."""
    inferred = infer_schemas(
        pipeline, parameters, registry=registry, data_root=data_root, connections=connections
    )
    return run_stopping(pipeline, inferred.problems)


def run_stopping(pipeline: Pipeline, problems: list[Problem]) -> list[Problem]:
    """Of `problems` (`infer_schemas`'), those `run_problems` keeps: what no run can start with
    (a run that leaves their nodes out included, since the plan cannot be built). A database
    out of reach is not one: the run connects again, with its retries."""
    placed = {node.id: _parameterised_fields(node.params, "params") for node in pipeline.nodes}
    return [
        problem
        for problem in problems
        if problem.code not in ("schema", "unreachable")
        or problem.field in placed.get(problem.node, ())
    ]


def _parameterised_fields(value, path: str) -> set[str]:
    """The paths (`params.mappings[1].expression`) of the raw params that hold a `${…}`."""
    if isinstance(value, str):
        return {path} if PLACEHOLDER.search(value) else set()
    if isinstance(value, dict):
        return {
            found
            for key, item in value.items()
            for found in _parameterised_fields(item, f"{path}.{key}")
        }
    if isinstance(value, list):
        return {
            found
            for index, item in enumerate(value)
            for found in _parameterised_fields(item, f"{path}[{index}]")
        }
    return set()


def _input_schemas(analysis: Analysis, node_id: str, nodes: dict[str, NodeSchemas]):
    """The schemas arriving at each input port, and whether all of them are known."""
    found = {
        port: [nodes[source].outputs.get(source_port) for source, source_port in sources]
        for port, sources in analysis.inputs.get(node_id, {}).items()
    }
    complete = all(schema is not None for schemas in found.values() for schema in schemas)
    return analysis.operators[node_id].arranged(analysis.params.get(node_id), found), complete


def _views(analysis: Analysis, node_id: str, schemas: NodeSchemas) -> dict[str, Schema]:
    """The node's views for the editor; none when its operator fails to give them."""
    try:
        return analysis.operators[node_id].views(analysis.params[node_id], schemas.inputs)
    except Exception:  # a plugin's bug must not take the schema view down
        return {}


def _infer_node(analysis: Analysis, node_id: str, ctx: NodeContext, schemas: NodeSchemas, registry):
    operator = analysis.operators[node_id]
    try:
        outputs = output_schemas_of(operator, ctx, schemas.inputs, registry)
    except NotImplementedError:
        return None  # an operator that cannot predict its columns (some plugins)
    except ParamsError as error:
        title = field_title(operator.Params, error.field)
        return Problem(
            f"{title}: {error.message}" if title else error.message,
            node=node_id,
            field=f"params.{error.field}",
            code="schema",
            field_title=title or None,
            position=error.position,
        )
    except UnreachableError as error:  # not the document's fault: a run may find it back
        return Problem(str(error), node=node_id, code="unreachable")
    except OperatorError as error:
        return Problem(str(error), node=node_id, code="schema")
    except Exception as error:  # a plugin's bug must not take the schema view down
        return Problem(f"cannot work out the columns: {error}", node=node_id, code="schema")
    schemas.outputs = dict(outputs)
    return None
