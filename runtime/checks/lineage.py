"""Column lineage: for every column of every node, the input columns and expressions it is
made from, traced back to the files, tables and queries the pipeline reads.

Worked out from the analysis and the inferred schemas (runtime/checks/inference.py) and each
operator's params, never from SQL text or a run. Each node says how it makes each of its
columns from its inputs' columns (a `Derivation`); the columns an operator reads to choose or
order rows (a filter's condition, join keys, group keys) are its `conditions`. An operator
with no rule here answers through `Operator.input_columns`, the same knowledge column pruning
uses, and where that cannot say, a column is marked as made from all its input columns.
Origins are computed once per column in topological order, so the work grows with the number
of columns, never with the number of paths. Expression columns come from the parser.
"""

from __future__ import annotations

import graphlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.checks.analysis import analyse
from runtime.checks.inference import infer_schemas
from runtime.document.spec import Pipeline
from runtime.errors import Problem
from runtime.expressions.parser import referenced_columns
from runtime.io.paths import FileArea
from runtime.operators.combine import join_plan
from runtime.operators.join_condition import FILTERING
from runtime.operators.registry import Registry
from runtime.operators.validate import REASON
from runtime.tables.schema import Schema

if TYPE_CHECKING:
    from runtime.io.sql.connection_specs import Connections

Ref = tuple[str, str, str]
"""A column of a node's port: (node id, port, column). An output node's columns are those of
its input port (`in`), the rows it writes."""


@dataclass(frozen=True, slots=True)
class Derivation:
    """How a node makes one of its columns: from which upstream columns, through what."""

    how: str
    inputs: tuple[Ref, ...] = ()
    expressions: tuple[str, ...] = ()
    all_inputs: bool = False
    """True when the operator cannot say which input columns: `inputs` holds all of them."""

    def to_json(self) -> dict:
        return {
            "how": self.how,
            "inputs": [_ref_json(ref) for ref in self.inputs],
            "expressions": list(self.expressions),
            "all_inputs": self.all_inputs,
        }


@dataclass(frozen=True, slots=True)
class Condition:
    """An input column a node reads to choose, group, match or order its rows."""

    ref: Ref
    why: str

    def to_json(self) -> dict:
        return {**_ref_json(self.ref), "why": self.why}


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
            "column": _ref_json(self.column),
            "columns": [_ref_json(ref) for ref in self.columns],
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
        inputs = _Inputs(
            {
                port: [(source, _output(inferred, source)) for source in sources]
                for port, sources in analysis.inputs.get(node_id, {}).items()
            }
        )
        if not inputs.complete or (operator.kind != "output" and not schemas.outputs):
            continue  # unknown columns upstream, or an operator that cannot predict them
        node = NodeLineage(operator.name, operator.kind, labels[node_id], _source(params))
        try:
            node.ports, node.conditions = _derive(operator, params, inputs, schemas.outputs)
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


def _ref_json(ref: Ref) -> dict:
    return {"node": ref[0], "port": ref[1], "column": ref[2]}


class _Inputs:
    """A node's input ports: each edge's upstream port and the schema it gives."""

    def __init__(self, edges: dict[str, list[tuple[tuple[str, str], Schema | None]]]) -> None:
        self.edges = edges
        self.complete = all(schema is not None for found in edges.values() for _, schema in found)

    def schema(self, port: str = "in", index: int = 0) -> Schema:
        return self.edges[port][index][1]

    def ref(self, column: str, port: str = "in", index: int = 0) -> Ref:
        (node, source_port), _ = self.edges[port][index]
        return node, source_port, column

    def refs(self, columns: Iterable[str], port: str = "in") -> tuple[Ref, ...]:
        """`columns` on every edge of `port` that has them (a name it lacks is left out)."""
        return tuple(
            (node, source_port, column)
            for column in dict.fromkeys(columns)
            for (node, source_port), schema in self.edges.get(port, ())
            if column in schema
        )

    def every(self, port: str | None = None) -> tuple[Ref, ...]:
        ports = self.edges if port is None else [port]
        return tuple(ref for name in ports for ref in self.refs(self._names(name), name))

    def _names(self, port: str) -> list[str]:
        return [name for _, schema in self.edges.get(port, ()) for name in schema.names]


Ports = dict[str, dict[str, Derivation]]
Rule = Callable[[Any, _Inputs, dict[str, Schema]], tuple[Ports, list[Condition]]]


def _derive(operator, params, inputs: _Inputs, outputs: dict[str, Schema]):
    if operator.kind == "input":
        return {port: dict.fromkeys(s.names, Derivation("read")) for port, s in outputs.items()}, []
    if operator.kind == "output":
        return {"in": _passed(inputs, inputs.schema(), "written")}, []
    rule = RULES.get(operator.name)
    if rule is None:
        return _asked(operator, params, inputs, outputs), []
    return rule(params, inputs, outputs)


def _passed(inputs: _Inputs, schema: Schema, how: str = "passed") -> dict[str, Derivation]:
    """Each column of `schema` from the input column of its name."""
    return {name: Derivation(how, inputs.refs([name])) for name in schema.names}


def _conditions(inputs: _Inputs, columns: Iterable[str], why: str, port="in") -> list[Condition]:
    return [Condition(ref, why) for ref in inputs.refs(columns, port)]


def _asked(operator, params, inputs: _Inputs, outputs: dict[str, Schema]) -> Ports:
    """An operator with no rule here: its own `input_columns` per output column; all input
    columns where it cannot say."""
    ports: Ports = {}
    for port, schema in outputs.items():
        ports[port] = {}
        for name in schema.names:
            wanted = {other: ({name} if other == port else set()) for other in outputs}
            needed = operator.input_columns(params, wanted)
            refs, everything = [], False
            for in_port in inputs.edges:
                columns = needed.get(in_port)
                everything |= columns is None
                refs += inputs.every(in_port) if columns is None else inputs.refs(columns, in_port)
            how = "all input columns" if everything else "read by the operator"
            ports[port][name] = Derivation(how, tuple(refs), all_inputs=everything)
    return ports


def _rows_kept(why: Callable[[Any], tuple[Iterable[str] | None, str]] | None = None) -> Rule:
    """Operators that pass every column through and only choose or order rows; `why` gives the
    columns they read to do so (None: every column) and what for."""

    def rule(params, inputs, outputs):
        ports = {port: _passed(inputs, schema) for port, schema in outputs.items()}
        if why is None:
            return ports, []
        columns, reason = why(params)
        return ports, _conditions(
            inputs, inputs.schema().names if columns is None else columns, reason
        )

    return rule


def _referenced(conditions: Iterable[str]) -> list[str]:
    return sorted(set().union(*(referenced_columns(text) for text in conditions)))


def _select(params, inputs, outputs):
    original = {new: old for old, new in params.rename.items()}
    return {
        "out": {
            name: Derivation(
                "renamed" if name in original else "selected",
                inputs.refs([original.get(name, name)]),
                (f"{original[name]} as {name}",) if name in original else (),
            )
            for name in outputs["out"].names
        }
    }, []


def _transform(params, inputs, outputs):
    made: dict[str, Derivation] = {}
    for mapping in params.mappings:
        refs, texts = [], []
        for name in sorted(referenced_columns(mapping.expression)):
            earlier = made.get(name)
            refs += earlier.inputs if earlier else inputs.refs([name])
            texts += earlier.expressions if earlier else ()
        text = f"{mapping.target} = {mapping.expression}"
        if mapping.type:
            text += f" (as {mapping.type})"
        made[mapping.target] = Derivation(
            "computed", tuple(dict.fromkeys(refs)), tuple(dict.fromkeys([*texts, text]))
        )
    passed = _passed(inputs, outputs["out"])
    return {"out": {name: made.get(name, passed[name]) for name in outputs["out"].names}}, []


def _aggregate(params, inputs, outputs):
    found = {name: Derivation("group key", inputs.refs([name])) for name in params.group_by}
    for aggregation in params.aggregations:
        read = [aggregation.column] if aggregation.column else []
        summarised = aggregation.column or aggregation.expression or ""
        text = f"{aggregation.function}({summarised})"
        if aggregation.expression:
            read += sorted(referenced_columns(aggregation.expression))
        if aggregation.where:
            read += sorted(referenced_columns(aggregation.where))
            text += f" where {aggregation.where}"
        found[aggregation.output_name] = Derivation("aggregated", inputs.refs(read), (text,))
    keys = ", ".join(params.group_by)
    return {"out": found}, _conditions(inputs, params.group_by, f"grouped by {keys}")


def _join(params, inputs, outputs):
    plan = join_plan(params, inputs.schema("left"), inputs.schema("right"))
    pairs = dict(zip(params.left_on, params.right_on, strict=True))
    found: dict[str, Derivation] = {}
    if params.how in FILTERING:  # the left rows as they are
        for name in outputs["out"].names:
            found[name] = Derivation("from the left side", (inputs.ref(name, "left"),))
    for side, name, column in () if params.how in FILTERING else plan.sources:
        if side == "key":
            refs = (inputs.ref(name, "left"), inputs.ref(pairs[name], "right"))
            found[column.name] = Derivation("join key", refs, (f"{name} = {pairs[name]}",))
        else:
            found[column.name] = Derivation(f"from the {side} side", (inputs.ref(name, side),))
    why = f"{params.how} join on " + ", ".join(f"{a} = {b}" for a, b in pairs.items())
    conditions = _conditions(inputs, params.left_on, why, "left")
    conditions += _conditions(inputs, params.right_on, why, "right")
    if params.condition:
        origins = {column.name: (side, name) for side, name, column in plan.sources}
        why = f"join condition {params.condition}"
        for name in sorted(referenced_columns(params.condition)):
            side, original = origins.get(name, ("left", name))
            if side in ("key", "left"):
                conditions += _conditions(inputs, [original], why, "left")
            if side in ("key", "right"):
                conditions += _conditions(inputs, [pairs.get(original, original)], why, "right")
    return {"out": found}, conditions


def _union(params, inputs, outputs):
    count = len(inputs.edges.get("in", ()))
    how = f"stacked from {count} inputs"
    return {
        "out": {name: Derivation(how, inputs.refs([name])) for name in outputs["out"].names}
    }, []


def _window(params, inputs, outputs):
    found = _passed(inputs, outputs["out"])
    order = [key.column for key in params.order_by]
    over = " ".join(
        part
        for part in (
            params.partition_by and f"partition by {', '.join(params.partition_by)}",
            order and f"order by {', '.join(order)}",
        )
        if part
    )
    for call in params.functions:
        read = [call.column] if call.column else order
        text = f"{call.function}({call.column or ''}) over ({over})"
        found[call.output_name] = Derivation("window", inputs.refs(read), (text,))
    conditions = _conditions(inputs, params.partition_by, "window partition")
    return {"out": found}, conditions + _conditions(inputs, order, "window order")


def _pivot(params, inputs, outputs):
    found = {name: Derivation("group key", inputs.refs([name])) for name in params.index}
    made = [name for name in outputs["out"].names if name not in found]
    refs = inputs.refs([params.value, params.column])
    for value, name in zip(params.values, made, strict=False):
        text = f"{params.function}({params.value}) where {params.column} = {value!r}"
        found[name] = Derivation("pivoted", refs, (text,))
    return {"out": found}, _conditions(inputs, params.index, "pivot rows")


def _unpivot(params, inputs, outputs):
    found = {name: Derivation("passed", inputs.refs([name])) for name in params.index}
    listed = ", ".join(params.columns)
    refs = inputs.refs(params.columns)
    found[params.name] = Derivation("unpivoted", refs, (f"the names of {listed}",))
    found[params.value] = Derivation("unpivoted", refs, (f"the values of {listed}",))
    return {"out": found}, []


def _broadcast(params, inputs, outputs):
    kept = set(inputs.schema("in").names)
    return {
        "out": {
            name: Derivation("passed", inputs.refs([name], "in"))
            if name in kept
            else Derivation("broadcast", inputs.refs([name], "value"))
            for name in outputs["out"].names
        }
    }, []


def _cast(params, inputs, outputs):
    found = _passed(inputs, outputs["out"])
    for name, type_name in params.types.items():
        found[name] = Derivation("cast", inputs.refs([name]), (f"{name} as {type_name}",))
    return {"out": found}, []


def _fill_nulls(params, inputs, outputs):
    found = _passed(inputs, outputs["out"])
    for name, value in params.values.items():
        found[name] = Derivation(
            "nulls filled", inputs.refs([name]), (f"nulls in {name} → {value!r}",)
        )
    return {"out": found}, []


def _rule_columns(params) -> list[str]:
    return [
        name
        for rule in params.rules
        for name in [getattr(rule, "column", None), *(getattr(rule, "columns", None) or [])]
        if name
    ]


def _validate(params, inputs, outputs):
    ports = {port: _passed(inputs, schema) for port, schema in outputs.items()}
    read = _rule_columns(params)
    ports["invalid"][REASON] = Derivation(
        "computed", inputs.refs(read), ("the rules each row failed",)
    )
    return ports, _conditions(inputs, read, "validated")


RULES: dict[str, Rule] = {
    "select": _select,
    "transform": _transform,
    "aggregate": _aggregate,
    "join": _join,
    "union": _union,
    "window": _window,
    "pivot": _pivot,
    "unpivot": _unpivot,
    "broadcast": _broadcast,
    "cast": _cast,
    "fill_nulls": _fill_nulls,
    "validate": _validate,
    "filter": _rows_kept(lambda p: (_referenced([p.condition]), f"kept rows where {p.condition}")),
    "route": _rows_kept(
        lambda p: (_referenced(c.condition for c in p.conditions), "routed rows by condition")
    ),
    "sort": _rows_kept(lambda p: ([key.column for key in p.by], "row order")),
    "deduplicate": _rows_kept(lambda p: (p.columns or None, "duplicates compared on")),
    "drop_nulls": _rows_kept(lambda p: (p.columns or None, "rows with nulls dropped")),
    "limit": _rows_kept(),
    "sample": _rows_kept(),
}
"""Built-in operators' rules: how each makes its columns, and the columns its rows depend on."""
