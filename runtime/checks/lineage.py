"""Column lineage: for every column of every node, the input columns and expressions it is
made from, traced back to the files, tables and queries the pipeline reads.

Worked out from the analysis and the inferred schemas (runtime/checks/inference.py) and each
operator's params, never from SQL text or a run. Each node says how it makes each of its
columns from its inputs' columns (a `Derivation`, runtime/checks/lineage_rules.py); the columns
an operator reads to choose or order rows (a filter's condition, join keys, group keys) are its
`conditions`. Origins are computed once per column in topological order, so the work grows
with the number of columns, never with the number of paths.
"""

from __future__ import annotations

import graphlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.checks.analysis import analyse
from runtime.checks.inference import infer_schemas
from runtime.checks.lineage_rules import Condition, Derivation, Inputs, Ref, derive, ref_json
from runtime.document.spec import Pipeline
from runtime.errors import Problem
from runtime.io.paths import FileArea
from runtime.operators.registry import Registry
from runtime.tables.schema import Schema

if TYPE_CHECKING:
    from runtime.io.sql.connection_specs import Connections

__all__ = [
    "Condition",
    "Derivation",
    "Lineage",
    "LineagePath",
    "NodeLineage",
    "Ref",
    "column_lineage",
]


@dataclass(slots=True)
class NodeLineage:
    """One node's columns, by port, and the columns its rows depend on."""

    operator: str
    kind: str
    label: str | None
    source: str | None
    """What an input or output node reads or writes (a path, a table, a query)."""
    ports: dict[str, dict[str, Derivation]] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)


@dataclass(slots=True)
class LineagePath:
    """What one column came through: columns, nodes and edges, and the rows' conditions."""

    column: Ref
    columns: list[Ref]
    nodes: list[str]
    edges: list[tuple[str, str, str]]
    """(source node, source port, target node) of each edge a column of the path crosses."""
    conditions: list[tuple[str, Condition]]
    origins: list[tuple[str, str]]

    def to_json(self) -> dict:
        return {
            "column": ref_json(self.column),
            "columns": [ref_json(ref) for ref in self.columns],
            "nodes": self.nodes,
            "edges": [
                {"source": source, "source_port": port, "target": target}
                for source, port, target in self.edges
            ],
            "conditions": [{"at": at, **condition.to_json()} for at, condition in self.conditions],
            "origins": [{"node": node, "column": column} for node, column in self.origins],
        }


@dataclass(slots=True)
class Lineage:
    """Every node's column lineage, each column's origins, and what stopped the rest."""

    nodes: dict[str, NodeLineage]
    origins: dict[Ref, frozenset[tuple[str, str]]]
    problems: list[Problem]

    def find(self, selector: str) -> Ref:
        """The column `NODE_OR_OUTPUT:COLUMN` names (`locate`'s). Raise `LookupError` saying
        why not."""
        where, sep, column = selector.rpartition(":")
        if not sep or not where or not column:
            raise LookupError(f"'{selector}' is not NODE:COLUMN")
        return self.locate(where, column)

    def locate(self, where: str, column: str) -> Ref:
        """The column `column` of a node named by id or label, or of an output by the path or
        table it writes (or that path's file name). Raise `LookupError` saying why not."""
        candidates = [where] if where in self.nodes else []  # an id first, then the others
        candidates += [
            node_id
            for node_id, node in self.nodes.items()
            if node_id != where
            and (
                where == node.label
                or (node.source and where in (node.source, Path(node.source).name))
            )
        ]
        if not candidates:
            raise LookupError(f"no node, label or output named '{where}' has known columns")
        for node_id in candidates:
            for port, columns in self.nodes[node_id].ports.items():
                if column in columns:
                    return node_id, port, column
        known = sorted(
            {name for c in candidates for p in self.nodes[c].ports.values() for name in p}
        )
        raise LookupError(f"'{where}' has no column '{column}'; it has: {', '.join(known)}")

    def path(self, ref: Ref) -> LineagePath:
        """Every column, node and edge `ref` came through (each visited once)."""
        seen = {ref: None}  # in the order reached: the column, then upstream
        queue = deque([ref])
        edges: dict[tuple[str, str, str], None] = {}
        while queue:
            node_id, port, column = queue.popleft()
            derivation = self.nodes[node_id].ports[port][column]
            for upstream in derivation.inputs:
                edges[(upstream[0], upstream[1], node_id)] = None
                if upstream not in seen and upstream[2] in self._columns(upstream):
                    seen[upstream] = None
                    queue.append(upstream)
        nodes = list(dict.fromkeys(node_id for node_id, _, _ in seen))
        conditions = [(n, c) for n in nodes for c in self.nodes[n].conditions]
        return LineagePath(
            ref, list(seen), nodes, list(edges), conditions, sorted(self.origins.get(ref, ()))
        )

    def reaching(self, node_id: str) -> list[dict]:
        """The inputs (with their files or tables) and columns that reach any column of a node."""
        found: dict[str, set[str]] = {}
        for port, columns in self.nodes[node_id].ports.items():
            for column in columns:
                for source, name in self.origins.get((node_id, port, column), ()):
                    found.setdefault(source, set()).add(name)
        return [
            {"node": source, "source": self.nodes[source].source, "columns": sorted(names)}
            for source, names in sorted(found.items())
        ]

    def _columns(self, ref: Ref) -> dict[str, Derivation]:
        node = self.nodes.get(ref[0])
        return node.ports.get(ref[1], {}) if node else {}

    def to_json(self) -> dict:
        return {
            "nodes": {
                node_id: {
                    "operator": node.operator,
                    "kind": node.kind,
                    "label": node.label,
                    "source": node.source,
                    "ports": {
                        port: [
                            {
                                "column": column,
                                **derivation.to_json(),
                                "origins": [
                                    {"node": n, "column": c}
                                    for n, c in sorted(
                                        self.origins.get((node_id, port, column), ())
                                    )
                                ],
                            }
                            for column, derivation in columns.items()
                        ]
                        for port, columns in node.ports.items()
                    },
                    "conditions": [condition.to_json() for condition in node.conditions],
                    **({"reached_by": self.reaching(node_id)} if node.kind == "output" else {}),
                }
                for node_id, node in self.nodes.items()
            },
            "problems": [problem.to_json() for problem in self.problems],
        }


def column_lineage(
    pipeline: Pipeline,
    parameters: dict[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    data_root: FileArea | str | Path = ".",
    connections: Connections | None = None,
) -> Lineage:
    """The lineage of every column whose schema inference knows; the problems of the others
    (a cycle, a bad expression, an unreadable file), each naming its node."""
    analysis = analyse(pipeline, parameters, registry, data_root=data_root)
    inferred = infer_schemas(
        pipeline, parameters, registry=registry, data_root=data_root, connections=connections
    )
    problems = list(inferred.problems)
    lineage = Lineage({}, {}, problems)
    if any(problem.code == "cycle" for problem in problems):
        return lineage
    labels = {node.id: node.label for node in pipeline.nodes}
    for node_id in graphlib.TopologicalSorter(analysis.predecessors).static_order():
        operator = analysis.operators.get(node_id)
        params = analysis.params.get(node_id)
        schemas = inferred.nodes[node_id]
        if operator is None or params is None or schemas.problems:
            continue
        inputs = Inputs(
            {
                port: [(source, _output(inferred, source)) for source in sources]
                for port, sources in analysis.inputs.get(node_id, {}).items()
            }
        )
        if not inputs.complete or (operator.kind != "output" and not schemas.outputs):
            continue  # unknown columns upstream, or an operator that cannot predict them
        node = NodeLineage(operator.name, operator.kind, labels[node_id], _source(params))
        try:
            node.ports, node.conditions = derive(operator, params, inputs, schemas.outputs)
        except Exception as error:  # a plugin's bug must not take the whole lineage down
            problems.append(
                Problem(
                    f"its column lineage cannot be worked out: {error}",
                    node=node_id,
                    code="lineage",
                )
            )
            continue
        lineage.nodes[node_id] = node
        for port, columns in node.ports.items():
            for column, derivation in columns.items():
                lineage.origins[(node_id, port, column)] = (
                    frozenset({(node_id, column)})
                    if operator.kind == "input"
                    else frozenset().union(
                        *(lineage.origins.get(ref, ()) for ref in derivation.inputs)
                    )
                )
    return lineage


def _output(inferred, source: tuple[str, str]) -> Schema | None:
    node = inferred.nodes.get(source[0])
    return node.outputs.get(source[1]) if node else None


def _source(params) -> str | None:
    """The path, table or connection an input or output node names, for people to read."""
    for name in ("path", "table"):
        value = getattr(params, name, None)
        if isinstance(value, str):
            return value
    connection = getattr(params, "connection", None)
    return f"query on {connection}" if isinstance(connection, str) else None
