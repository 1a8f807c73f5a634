"""How each operator makes its columns from its inputs' columns, for column lineage
(runtime/checks/lineage.py): a rule per built-in operator, from its params and the inferred
schemas; an operator with no rule answers through its own `Operator.input_columns`, and where
that cannot say, a column is made from all its input columns. Columns an expression reads come
from the expression parser, never from its text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from runtime.expressions.parser import referenced_columns
from runtime.operators.combine import join_plan
from runtime.operators.join_condition import FILTERING
from runtime.operators.validate import REASON
from runtime.tables.schema import Schema

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
            "inputs": [ref_json(ref) for ref in self.inputs],
            "expressions": list(self.expressions),
            "all_inputs": self.all_inputs,
        }


@dataclass(frozen=True, slots=True)
class Condition:
    """An input column a node reads to choose, group, match or order its rows."""

    ref: Ref
    why: str

    def to_json(self) -> dict:
        return {**ref_json(self.ref), "why": self.why}


def ref_json(ref: Ref) -> dict:
    return {"node": ref[0], "port": ref[1], "column": ref[2]}


class Inputs:
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
Rule = Callable[[Any, Inputs, dict[str, Schema]], tuple[Ports, list[Condition]]]


def derive(operator, params, inputs: Inputs, outputs: dict[str, Schema]):
    if operator.kind == "input":
        return {port: dict.fromkeys(s.names, Derivation("read")) for port, s in outputs.items()}, []
    if operator.kind == "output":
        return {"in": _passed(inputs, inputs.schema(), "written")}, []
    rule = RULES.get(operator.name)
    if rule is None:
        return _asked(operator, params, inputs, outputs), []
    return rule(params, inputs, outputs)


def _passed(inputs: Inputs, schema: Schema, how: str = "passed") -> dict[str, Derivation]:
    """Each column of `schema` from the input column of its name."""
    return {name: Derivation(how, inputs.refs([name])) for name in schema.names}


def _conditions(inputs: Inputs, columns: Iterable[str], why: str, port="in") -> list[Condition]:
    return [Condition(ref, why) for ref in inputs.refs(columns, port)]


def _asked(operator, params, inputs: Inputs, outputs: dict[str, Schema]) -> Ports:
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
