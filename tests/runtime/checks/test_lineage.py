"""Column lineage: each column's input columns and expressions, through every operator family,
worked out from the document and its inferred schemas (nothing runs)."""

from __future__ import annotations

import sqlite3
from itertools import pairwise

import pytest

from runtime.checks.lineage import column_lineage
from runtime.document.spec import load_document
from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.contract import Operator
from runtime.operators.registry import Registry
from runtime.tables.schema import Column, Schema


def pipeline(nodes, edges):
    return load_document({"name": "t", "nodes": nodes, "edges": edges})


def orders(tmp_path, node_id="orders"):
    (tmp_path / "orders.csv").write_text(
        "id,customer,amount,qty,country\n1,7,10.5,2,FR\n2,8,3.0,1,DE\n"
    )
    return {"id": node_id, "operator": "csv_input", "params": {"path": "orders.csv"}}


def customers(tmp_path):
    (tmp_path / "customers.csv").write_text("customer,name,country\n7,Ada,FR\n8,Linus,FI\n")
    return {"id": "customers", "operator": "csv_input", "params": {"path": "customers.csv"}}


def node(node_id, operator, **params):
    return {"id": node_id, "operator": operator, "params": params}


def chain(tmp_path, *nodes):
    """orders → nodes in order; the lineage of it all."""
    ids = ["orders", *(n["id"] for n in nodes)]
    edges = [{"source": a, "target": b} for a, b in pairwise(ids)]
    found = column_lineage(pipeline([orders(tmp_path), *nodes], edges), data_root=tmp_path)
    assert found.problems == []
    return found


def derivation(found, node_id, column, port="out"):
    return found.nodes[node_id].ports[port][column]


def origins(found, node_id, column, port="out"):
    return sorted(found.origins[(node_id, port, column)])


def test_input_columns_are_their_own_origins_and_name_their_file(tmp_path):
    found = chain(tmp_path)
    assert found.nodes["orders"].source == "orders.csv"
    assert origins(found, "orders", "amount") == [("orders", "amount")]
    assert derivation(found, "orders", "amount").how == "read"


def test_select_follows_a_rename_back_to_the_original_column(tmp_path):
    found = chain(tmp_path, node("pick", "select", columns=["amount"], rename={"amount": "eur"}))
    made = derivation(found, "pick", "eur")
    assert (made.how, made.inputs, made.expressions) == (
        "renamed",
        (("orders", "out", "amount"),),
        ("amount as eur",),
    )


def test_transform_takes_columns_from_the_expression_through_earlier_mappings(tmp_path):
    mappings = [
        {"target": "total", "expression": "amount * qty"},
        {"target": "total_eur", "expression": "total * 0.92"},
    ]
    found = chain(tmp_path, node("calc", "transform", mappings=mappings))
    made = derivation(found, "calc", "total_eur")
    assert set(made.inputs) == {("orders", "out", "amount"), ("orders", "out", "qty")}
    assert made.expressions == ("total = amount * qty", "total_eur = total * 0.92")
    assert derivation(found, "calc", "country").how == "passed"


def test_filter_passes_columns_and_names_its_condition_columns(tmp_path):
    found = chain(tmp_path, node("big", "filter", condition="amount > 5 and country == 'FR'"))
    assert derivation(found, "big", "id").inputs == (("orders", "out", "id"),)
    assert [(c.ref[2], c.why) for c in found.nodes["big"].conditions] == [
        ("amount", "kept rows where amount > 5 and country == 'FR'"),
        ("country", "kept rows where amount > 5 and country == 'FR'"),
    ]


def test_aggregate_gives_group_keys_and_aggregated_expressions(tmp_path):
    aggregations = [
        {"column": "amount", "function": "sum", "name": "total"},
        {"expression": "amount * qty", "function": "max", "name": "most", "where": "id > 0"},
        {"function": "size"},
    ]
    found = chain(
        tmp_path, node("sums", "aggregate", group_by=["country"], aggregations=aggregations)
    )
    assert derivation(found, "sums", "country").how == "group key"
    assert derivation(found, "sums", "total").expressions == ("sum(amount)",)
    most = derivation(found, "sums", "most")
    assert {ref[2] for ref in most.inputs} == {"amount", "qty", "id"}
    assert most.expressions == ("max(amount * qty) where id > 0",)
    assert derivation(found, "sums", "size").inputs == ()
    assert [c.why for c in found.nodes["sums"].conditions] == ["grouped by country"]


def test_join_takes_each_column_from_its_side_and_keys_from_both(tmp_path):
    doc = pipeline(
        [
            orders(tmp_path),
            customers(tmp_path),
            node("both", "join", how="left", left_on=["customer"], right_on=["customer"]),
        ],
        [
            {"source": "orders", "target": "both", "target_port": "left"},
            {"source": "customers", "target": "both", "target_port": "right"},
        ],
    )
    found = column_lineage(doc, data_root=tmp_path)
    assert found.problems == []
    assert origins(found, "both", "customer") == [
        ("customers", "customer"),
        ("orders", "customer"),
    ]
    assert origins(found, "both", "country_right") == [("customers", "country")]
    assert origins(found, "both", "country_left") == [("orders", "country")]
    assert {(c.ref[0], c.ref[2]) for c in found.nodes["both"].conditions} == {
        ("orders", "customer"),
        ("customers", "customer"),
    }


def test_union_takes_a_column_from_every_input_that_has_it(tmp_path):
    doc = pipeline(
        [orders(tmp_path), customers(tmp_path), node("all", "union")],
        [{"source": "orders", "target": "all"}, {"source": "customers", "target": "all"}],
    )
    found = column_lineage(doc, data_root=tmp_path)
    assert origins(found, "all", "country") == [("customers", "country"), ("orders", "country")]
    assert origins(found, "all", "name") == [("customers", "name")]


def test_sort_and_deduplicate_pass_columns_and_name_the_columns_rows_depend_on(tmp_path):
    found = chain(
        tmp_path,
        node("ordered", "sort", by=[{"column": "amount"}]),
        node("once", "deduplicate"),
    )
    assert origins(found, "once", "qty") == [("orders", "qty")]
    assert [c.ref[2] for c in found.nodes["ordered"].conditions] == ["amount"]
    assert len(found.nodes["once"].conditions) == 5  # no columns named: every column


def test_window_functions_read_their_column_over_partition_and_order(tmp_path):
    functions = [{"function": "sum", "column": "amount", "name": "running"}, {"function": "rank"}]
    found = chain(
        tmp_path,
        node(
            "win",
            "window",
            partition_by=["country"],
            order_by=[{"column": "id"}],
            functions=functions,
        ),
    )
    running = derivation(found, "win", "running")
    assert running.inputs == (("orders", "out", "amount"),)
    assert running.expressions == ("sum(amount) over (partition by country order by id)",)
    assert derivation(found, "win", "rank").inputs == (("orders", "out", "id"),)


def test_pivot_columns_come_from_the_value_and_the_pivoted_column(tmp_path):
    found = chain(
        tmp_path,
        node(
            "wide",
            "pivot",
            index=["customer"],
            column="country",
            values=["FR", "DE"],
            value="amount",
            function="sum",
        ),
    )
    made = [name for name in found.nodes["wide"].ports["out"] if name != "customer"]
    assert len(made) == 2
    assert {ref[2] for ref in derivation(found, "wide", made[0]).inputs} == {"amount", "country"}
    assert derivation(found, "wide", made[0]).expressions == ("sum(amount) where country = 'FR'",)


def test_an_output_lists_which_inputs_reach_it(tmp_path):
    found = chain(
        tmp_path,
        node("pick", "select", columns=["id", "amount"]),
        node("write", "csv_output", path="out.csv"),
    )
    assert found.reaching("write") == [
        {"node": "orders", "source": "orders.csv", "columns": ["amount", "id"]}
    ]
    assert found.find("out.csv:amount") == ("write", "in", "amount")


def test_a_path_names_the_nodes_and_edges_a_column_came_through(tmp_path):
    found = chain(
        tmp_path,
        node("big", "filter", condition="qty > 1"),
        node("calc", "transform", mappings=[{"target": "x", "expression": "amount + 1"}]),
        node("write", "csv_output", path="out.csv"),
    )
    path = found.path(found.find("out.csv:x"))
    assert path.nodes == ["write", "calc", "big", "orders"]
    assert path.edges == [
        ("calc", "out", "write"),
        ("big", "out", "calc"),
        ("orders", "out", "big"),
    ]
    assert [(at, c.ref[2]) for at, c in path.conditions] == [("big", "qty")]
    assert path.origins == [("orders", "amount")]


def test_an_unknown_column_selector_says_what_the_node_has(tmp_path):
    found = chain(tmp_path)
    with pytest.raises(LookupError, match="'orders' has no column 'nope'; it has: amount"):
        found.find("orders:nope")


def test_a_bad_expression_is_a_problem_of_its_node_not_a_crash(tmp_path):
    doc = pipeline(
        [
            orders(tmp_path),
            node("calc", "transform", mappings=[{"target": "x", "expression": "amount +"}]),
        ],
        [{"source": "orders", "target": "calc"}],
    )
    found = column_lineage(doc, data_root=tmp_path)
    assert [p.node for p in found.problems] == ["calc"]
    assert "calc" not in found.nodes and "orders" in found.nodes


def test_a_cycle_is_a_problem_naming_its_nodes(tmp_path):
    doc = pipeline(
        [
            orders(tmp_path),
            node("a", "filter", condition="id > 0"),
            node("b", "filter", condition="id > 0"),
        ],
        [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}],
    )
    found = column_lineage(doc, data_root=tmp_path)
    assert found.nodes == {}
    assert [p.code for p in found.problems] == ["cycle"]
    assert "a" in found.problems[0].message and "b" in found.problems[0].message


def test_a_500_node_lattice_is_traced_once_per_column(tmp_path):
    """Each node stacks the two before it: 2^250 paths reach the last node, which only
    memoised origins and a visited set get through."""
    nodes = [orders(tmp_path, "n0"), node("n1", "filter", condition="id > 0")]
    edges = [{"source": "n0", "target": "n1"}]
    for index in range(2, 500):
        nodes.append(node(f"n{index}", "union"))
        edges += [
            {"source": f"n{index - 1}", "target": f"n{index}"},
            {"source": f"n{index - 2}", "target": f"n{index}"},
        ]
    found = column_lineage(pipeline(nodes, edges), data_root=tmp_path)
    assert found.problems == []
    path = found.path(("n499", "out", "amount"))
    assert len(path.nodes) == 500
    assert len(path.edges) == 2 * 498 + 1
    assert path.origins == [("n0", "amount")]


class Stamp(Operator):
    """A plugin's operator: it adds a column and does not say what it reads."""

    name = "stamp"
    kind = "process"
    title = "Stamp"

    def output_schema(self, ctx, inputs):
        return {"out": Schema((*inputs["in"].columns, Column("stamp", "string", False)))}


def test_an_operator_that_cannot_say_makes_each_column_from_all_input_columns(tmp_path):
    doc = pipeline(
        [orders(tmp_path), node("stamped", "stamp")], [{"source": "orders", "target": "stamped"}]
    )
    registry = Registry([Stamp], lazy=BUILTIN_OPERATORS)
    found = column_lineage(doc, registry=registry, data_root=tmp_path)
    made = derivation(found, "stamped", "stamp")
    assert (made.how, made.all_inputs, len(made.inputs)) == ("all input columns", True, 5)


def test_a_sql_query_is_a_source_like_a_file(tmp_path):
    with sqlite3.connect(tmp_path / "shop.db") as db:
        db.execute("create table sales (id integer, amount real)")
        db.execute("insert into sales values (1, 2.5)")
    query = "select id, amount * 2 as doubled from sales"
    doc = pipeline(
        [
            node("sales", "sql_input", connection="shop", query=query),
            node("calc", "transform", mappings=[{"target": "x", "expression": "doubled + id"}]),
        ],
        [{"source": "sales", "target": "calc"}],
    )
    connections = {"shop": "sqlite:///shop.db"}
    found = column_lineage(doc, data_root=tmp_path, connections=connections)
    assert found.problems == []
    assert found.nodes["sales"].source == "query on shop"
    assert origins(found, "calc", "x") == [("sales", "doubled"), ("sales", "id")]


def test_unpivot_makes_its_name_and_value_columns_from_every_unpivoted_column(tmp_path):
    found = chain(
        tmp_path,
        node("long", "unpivot", index=["id"], columns=["amount", "qty"], name="k", value="v"),
    )
    assert origins(found, "long", "v") == [("orders", "amount"), ("orders", "qty")]
    assert derivation(found, "long", "k").expressions == ("the names of amount, qty",)


def test_route_passes_columns_to_every_port_and_names_its_conditions(tmp_path):
    conditions = [{"name": "big", "condition": "amount > 5"}]
    found = chain(tmp_path, node("split", "route", conditions=conditions))
    assert set(found.nodes["split"].ports) == {"big", "otherwise"}
    assert derivation(found, "split", "id", "otherwise").inputs == (("orders", "out", "id"),)
    assert [c.ref[2] for c in found.nodes["split"].conditions] == ["amount"]


def test_cast_says_what_it_converts_to(tmp_path):
    found = chain(tmp_path, node("typed", "cast", types={"qty": "float"}))
    assert derivation(found, "typed", "qty").expressions == ("qty as float",)
