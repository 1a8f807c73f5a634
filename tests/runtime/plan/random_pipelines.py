"""Random pipelines of catalog operators over random Parquet tables, for the equivalence tests.

A pipeline grows one node at a time; schema inference on the document so far tells which
columns (and types) the new node's params may name, and a node whose schema has a problem is
dropped, so every pipeline is valid (it may still fail at run time, which both runs must agree
on). Some nodes repeat an earlier one exactly (for the merging pass), some reach no output
(for dead-node elimination). Aggregates summarise expressions and count under conditions;
some give one row, which a broadcast may put beside the rows of another node.
"""

from __future__ import annotations

from pathlib import Path
from random import Random

import pandas as pd
from hypothesis import strategies as st

from runtime.checks.inference import infer_schemas
from runtime.document.spec import Pipeline, load_document
from runtime.errors import OperatorError
from runtime.operators.combine import JoinParams, join_plan
from runtime.tables.schema import Schema

TEXTS = [None, "a", "b", "é", "ß", "", "a b", "日本"]
INTEGERS = [None, -3, -1, 0, 1, 2, 3]
FLOATS = [None, 0.0, 0.5, -1.25, 2.0, 1e9]
BOOLEANS = [None, True, False]


@st.composite
def tables(draw) -> dict[str, pd.DataFrame]:
    """Two small tables with nulls, unicode, duplicate keys and mixed numbers (maybe empty)."""
    rng = Random(draw(st.integers(0, 2**32)))

    def column(values, size, dtype):
        return pd.array([rng.choice(values) for _ in range(size)], dtype=dtype)

    left_rows, right_rows = rng.choice([0, 1, 3, 6, 10, 14]), rng.choice([0, 1, 2, 5, 8])
    left = pd.DataFrame(
        {
            "k": column(INTEGERS, left_rows, "Int64"),
            "x": column(FLOATS, left_rows, "float64"),
            "s": column(TEXTS, left_rows, "str"),
            "b": column(BOOLEANS, left_rows, "boolean"),
        }
    )
    right = pd.DataFrame(
        {
            "k": column(INTEGERS, right_rows, "Int64"),
            "y": column(INTEGERS, right_rows, "Int64"),
            "s": column(TEXTS, right_rows, "str"),
        }
    )
    return {"left.parquet": left, "right.parquet": right}


def write_tables(folder: Path, frames: dict[str, pd.DataFrame]) -> None:
    for name, frame in frames.items():
        frame.to_parquet(folder / name, index=False)


CONDITIONS = {
    "integer": ["{c} > 0", "{c} is null", "{c} % 2 = 0", "{c} / 2 >= 0.5", "{c} between -1 and 1"],
    "float": ["{c} >= 0.5", "{c} is not null", "{c} * 2 < 1"],
    "string": ["{c} = 'a'", "length({c}) > 0", "{c} in ('a', 'é')", "{c} is null"],
    "boolean": ["{c}", "not {c}", "{c} is null"],
}
CONDITIONS["integer"].append("case when {c} > 0 then 'p' when {c} < 0 then 'n' end = 'p'")
CONDITIONS["string"] += ["{c} like '%a_'", "{c} not ilike 'A%'"]
CONSTANT_CONDITIONS = ["true", "false", "1 = 1"]
MAPPINGS = {
    "integer": ["{c} * 2", "{c} + 1", "coalesce({c}, 0)", "{c} / 2"],
    "float": ["{c} / 3", "round({c}, 1)", "{c} - 1"],
    "string": ["upper({c})", "concat({c}, '!')", "length({c})"],
    "boolean": ["not {c}", "if({c}, 1, 2)"],
}
MAPPINGS["integer"].append("nullif({c}, 0)")
MAPPINGS["float"].append("case {c} when 0.5 then 'half' else 'other' end")
MAPPINGS["string"].append("substring({c} from 2 for 1)")
FILLS = {"integer": 0, "float": 0.5, "string": "z", "boolean": False}


def condition(rng: Random, schema: Schema) -> str:
    """A filter condition over `schema`'s columns (sometimes one that reads none)."""

    def atom() -> str:
        if not schema.columns or rng.random() < 0.15:
            return rng.choice(CONSTANT_CONDITIONS)
        column = rng.choice(schema.columns)
        return rng.choice(CONDITIONS[column.type]).format(c=column.name)

    if rng.random() < 0.6:
        return atom()
    return f"({atom()}) {rng.choice(['and', 'or'])} ({atom()})"


def recent(rng: Random, names: list[str]) -> str:
    """A node name, most often the newest (so that chains grow long)."""
    return names[-1] if rng.random() < 0.6 else rng.choice(names)


KINDS = {"filter": 6, "transform": 3, "select": 2, "cast": 1, "fill_nulls": 1, "sort": 2,
         "limit": 3, "deduplicate": 1, "join": 3, "union": 2, "aggregate": 2, "drop_nulls": 1,
         "sample": 1, "pivot": 1, "unpivot": 1, "window": 1, "broadcast": 1}  # fmt: skip
PIVOTED = {
    "integer": INTEGERS[1:],
    "float": FLOATS[1:],
    "string": TEXTS[1:],
    "boolean": [True, False],
}
PIVOT_FUNCTIONS = {"integer": ["sum", "count", "mean", "min", "max", "first", "last"],
                   "float": ["sum", "mean", "max", "last"], "string": ["count", "min", "first"],
                   "boolean": ["count", "max", "last"]}  # fmt: skip
SUMMARISED = {"integer": ["{c} * 2", "{c} + 1"], "float": ["{c} / 3", "{c} - 1"]}
"""Expressions an aggregation sums, by the type of the column they read."""


def aggregation_params(rng: Random, schema: Schema, column) -> dict:
    """Grouped by `column` or over the whole table (one row, for a broadcast's value): a
    count, maybe of the rows where a condition holds, and maybe a sum of an expression."""
    count = {"column": column.name, "function": rng.choice(["count", "count_distinct"])}
    if rng.random() < 0.5:
        count["where"] = condition(rng, schema)
    aggregations = [{**count, "name": "n"}]
    numbers = [c for c in schema.columns if c.type in SUMMARISED]
    if numbers and rng.random() < 0.6:
        summed = rng.choice(numbers)
        expression = rng.choice(SUMMARISED[summed.type]).format(c=summed.name)
        aggregations.append({"expression": expression, "function": "sum", "name": "e"})
        if rng.random() < 0.4:
            aggregations[-1]["where"] = condition(rng, schema)
    group_by = [column.name] if rng.random() < 0.7 else []
    return {"group_by": group_by, "aggregations": aggregations}


def process_node(
    rng: Random, schemas: dict[str, Schema], names: list[str], one_row: tuple[str, ...] = ()
):
    """An operator, its params and its input edges (`(source, target_port)`); `one_row`
    names the nodes that give one row (values a broadcast may take)."""
    source = recent(rng, names)
    schema = schemas[source]
    one = [(source, "in")]
    kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
    if one_row and rng.random() < 0.2:  # a value to broadcast is there: use it more often
        kind = "broadcast"
    if kind == "filter":
        return "filter", {"condition": condition(rng, schema)}, one
    if kind == "limit":
        return "limit", {"n": rng.randint(0, 8)}, one
    if kind == "sample":
        return "sample", {"n": rng.randint(0, 5), "seed": 7}, one
    if kind == "union":
        others = [rng.choice(names) for _ in range(rng.randint(1, 2))]
        return "union", {}, [(name, "in") for name in [source, *others]]
    if not schema.columns:
        return "limit", {"n": 2}, one
    column = rng.choice(schema.columns)
    if kind == "transform":
        mappings = [
            {
                "target": rng.choice([mapped.name, "t", "u"]),
                "expression": rng.choice(MAPPINGS[mapped.type]).format(c=mapped.name),
            }
            for mapped in rng.choices(schema.columns, k=rng.randint(1, 2))
        ]
        keep_others = rng.random() < 0.8
        return "transform", {"mappings": mappings, "keep_other_columns": keep_others}, one
    if kind == "select":
        kept = rng.sample(schema.names, rng.randint(0, len(schema.names)))
        rename = {rng.choice(kept or schema.names): "r"} if rng.random() < 0.4 else {}
        return "select", {"columns": kept, "rename": rename}, one
    if kind == "cast":
        return "cast", {"types": {column.name: rng.choice(["string", "float"])}}, one
    if kind == "fill_nulls":
        return "fill_nulls", {"values": {column.name: FILLS[column.type]}}, one
    if kind == "sort":
        return "sort", {"by": [{"column": column.name, "descending": rng.random() < 0.5}]}, one
    if kind == "window":
        return "window", window_params(rng, schema, column), one
    if kind in ("deduplicate", "drop_nulls"):
        return kind, {"columns": [column.name]}, one
    if kind == "pivot":
        return "pivot", pivot_params(rng, schema, column), one
    if kind == "unpivot":
        return "unpivot", unpivot_params(rng, schema, column), one
    if kind == "aggregate":
        return "aggregate", aggregation_params(rng, schema, column), one
    if kind == "broadcast":
        values = [name for name in one_row if name in schemas]
        if not values:  # a value for a later broadcast
            return "aggregate", {**aggregation_params(rng, schema, column), "group_by": []}, one
        value = rng.choice(values)
        added = [name for name in schemas[value].names if name not in schema]
        if not added:
            return "limit", {"n": 3}, one
        params = {"columns": rng.sample(added, rng.randint(1, len(added)))}
        return "broadcast", params, [(source, "in"), (value, "value")]
    right = rng.choice(names)
    params = {
        "how": rng.choice(["inner", "left", "right", "outer", "semi", "anti"]),
        "left_on": column.name,
        "right_on": rng.choice([column.name, *schemas[right].names]),
        "suffixes": rng.choice([["_left", "_right"], ["", "_r"], ["_l", ""]]),
    }
    if params["how"] not in ("right", "outer") and rng.random() < 0.4:
        joined = _joined_row(params, schema, schemas[right])
        if joined is not None:  # else the node is dropped anyway
            params["condition"] = condition(rng, joined)
    return "join", params, [(source, "left"), (right, "right")]


def pivot_params(rng: Random, schema: Schema, column) -> dict:
    """A pivot on `column` (some declared values absent from the data) of another column."""
    others = [c for c in schema.columns if c.name != column.name] or [column]
    value = rng.choice(others)
    index = [c.name for c in others if c.name != value.name and rng.random() < 0.4]
    return {
        "index": index,
        "column": column.name,
        "values": rng.sample(PIVOTED.get(column.type, ["a"]), rng.randint(1, 2)),
        "value": value.name,
        "function": rng.choice(PIVOT_FUNCTIONS.get(value.type, ["count"])),
        "names": "p_{value}",
    }


def unpivot_params(rng: Random, schema: Schema, column) -> dict:
    """An unpivot of `column` and maybe others of its type, keeping some columns."""
    kinds = {"integer", "float"} if column.type in ("integer", "float") else {column.type}
    alike = [c.name for c in schema.columns if c.type in kinds and c.name != column.name]
    columns = [column.name, *rng.sample(alike, min(len(alike), rng.randint(0, 2)))]
    index = [c.name for c in schema.columns if c.name not in columns and rng.random() < 0.5]
    return {"index": index, "columns": columns, "name": "u_name", "value": "u_value"}


def window_params(rng: Random, schema: Schema, column) -> dict:
    """A window partitioned by a column or not, ordered by one or not, with one function."""
    numbers = [c.name for c in schema.columns if c.type in ("integer", "float")]
    functions = ["row_number", "rank", "dense_rank", "lag", "count", "min", "sum"]
    function = rng.choice(functions if numbers else functions[:-1])
    call: dict = {"function": function, "name": f"w{len(schema.columns)}"}
    if function in ("lag", "min"):
        call["column"] = rng.choice(schema.names)
    elif function == "sum":
        call["column"] = rng.choice(numbers)
    if function in ("count", "min", "sum") and rng.random() < 0.5:
        call["frame"] = {"preceding": rng.choice([None, 1]), "following": rng.choice([0, None])}
    order = rng.choice(schema.names)
    descending = rng.random() < 0.5
    return {
        "partition_by": [column.name] if rng.random() < 0.5 and column.name != order else [],
        "order_by": [{"column": order, "descending": descending}] if rng.random() < 0.8 else [],
        "functions": [call],
    }


def _joined_row(params: dict, left: Schema, right: Schema) -> Schema | None:
    """The row a join's condition reads (the inner join's columns), None if the keys do not fit."""
    try:
        inner = JoinParams.model_validate({**params, "how": "inner"})
        return Schema(tuple(column for _, _, column in join_plan(inner, left, right).sources))
    except (ValueError, OperatorError):
        return None


@st.composite
def pipelines(
    draw, data_root: Path, max_steps: int = 12, outputs: tuple[str, ...] = ("parquet_output",)
) -> Pipeline:
    """A valid random pipeline reading left.parquet and right.parquet under `data_root` and
    writing one or two files, each with an operator of `outputs` (`n.parquet`, `n.csv`)."""
    rng = Random(draw(st.integers(0, 2**32)))
    nodes = [
        {"id": "left", "operator": "parquet_input", "params": {"path": "left.parquet"}},
        {"id": "right", "operator": "parquet_input", "params": {"path": "right.parquet"}},
    ]
    edges: list[dict] = []
    schemas = _schemas(nodes, edges, data_root)
    one_row: list[str] = []
    for step in range(rng.randint(2, max_steps)):
        if len(nodes) > 2 and rng.random() < 0.12:  # an exact repeat of a node
            original = rng.choice(nodes[2:])
            node = {**original, "id": f"n{step}"}
            node_edges = [
                {**edge, "target": node["id"]} for edge in edges if edge["target"] == original["id"]
            ]
        else:
            operator, params, inputs = process_node(rng, schemas, list(schemas), tuple(one_row))
            node = {"id": f"n{step}", "operator": operator, "params": params}
            node_edges = [
                {"source": source, "target": node["id"], "target_port": port}
                for source, port in dict.fromkeys(inputs)
            ]
        candidate = _schemas([*nodes, node], [*edges, *node_edges], data_root)
        if node["id"] in candidate:
            if node["operator"] == "aggregate" and not node["params"]["group_by"]:
                one_row.append(node["id"])
            nodes.append(node)
            edges += node_edges
            schemas = candidate
    names = list(schemas)
    for number, source in enumerate({recent(rng, names) for _ in range(rng.randint(1, 2))}):
        operator = rng.choice(outputs)
        path = f"{number}.{'csv' if operator == 'csv_output' else 'pq'}"
        nodes.append({"id": f"out{number}", "operator": operator, "params": {"path": path}})
        edges.append({"source": source, "target": f"out{number}"})
    return load_document({"name": "random", "nodes": nodes, "edges": edges})


def _schemas(nodes: list, edges: list, data_root: Path) -> dict[str, Schema]:
    """The output schema of every node whose schema inference found no problem."""
    document = load_document({"name": "draft", "nodes": nodes, "edges": edges})
    inferred = infer_schemas(document, data_root=data_root).nodes
    return {
        node_id: schemas.outputs["out"]
        for node_id, schemas in inferred.items()
        if "out" in schemas.outputs and not schemas.problems
    }
