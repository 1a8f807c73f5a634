"""A compiled script joins as a run does: semi and anti joins, and a condition on an inner,
left, semi and anti join (the left row none of whose pairs meet it kept once, nulls on the
right), CSV files byte for byte."""

from __future__ import annotations

from tests.runtime.compile.test_compile_pipelines import assert_same_outputs, run_both_ways

ORDERS = "o_orderkey,o_custkey,o_comment\n1,1,fine\n2,1,special\n3,2,special\n4,,fine\n5,9,fine\n"
LINES = "l_orderkey,l_suppkey,l_qty\n1,1,5\n1,2,1\n2,3,2\n3,3,9\n3,3,1\n,4,4\n4,1,7\n1,1,3\n"
CUSTOMERS = "c_custkey,c_name\n1,ada\n2,bob\n3,cy\n"
JOINS = {
    "semi": {"how": "semi", "left_on": "o_orderkey", "right_on": "l_orderkey"},
    "anti": {"how": "anti", "left_on": "o_orderkey", "right_on": "l_orderkey"},
    "other_supplier": {
        "how": "semi",
        "left_on": "l_orderkey",
        "right_on": "l_orderkey",
        "condition": "l_suppkey_right <> l_suppkey_left",
    },
    "only_supplier": {
        "how": "anti",
        "left_on": "l_orderkey",
        "right_on": "l_orderkey",
        "condition": "l_suppkey_right <> l_suppkey_left",
    },
    "big_lines": {
        "how": "inner",
        "left_on": "o_orderkey",
        "right_on": "l_orderkey",
        "condition": "l_qty > 2 and o_comment = 'fine'",
    },
    "plain_orders": {
        "how": "left",
        "left_on": "c_custkey",
        "right_on": "o_custkey",
        "condition": "o_comment <> 'special'",
    },
}
SIDES = {
    "semi": ("orders", "lines"),
    "anti": ("orders", "lines"),
    "other_supplier": ("lines", "lines"),
    "only_supplier": ("lines", "lines"),
    "big_lines": ("orders", "lines"),
    "plain_orders": ("customers", "orders"),
}


def test_semi_anti_and_conditional_joins_compile_to_what_a_run_writes(tmp_path):
    nodes = [
        {"id": name, "operator": "csv_input", "params": {"path": f"{name}.csv"}}
        for name in ("orders", "lines", "customers")
    ]
    edges = []
    for name, params in JOINS.items():
        left, right = SIDES[name]
        nodes.append({"id": name, "operator": "join", "params": params})
        nodes.append({"id": f"write_{name}", "operator": "csv_output",
                      "params": {"path": f"{name}.csv"}})  # fmt: skip
        edges += [
            {"source": left, "target": name, "target_port": "left"},
            {"source": right, "target": name, "target_port": "right"},
            {"source": name, "target": f"write_{name}"},
        ]
    document = {"name": "joins", "nodes": nodes, "edges": edges}
    files = {"orders.csv": ORDERS, "lines.csv": LINES, "customers.csv": CUSTOMERS}
    run, script = run_both_ways(document, files, tmp_path)
    assert_same_outputs(document, run, script)
    assert (run / "semi.csv").read_text().splitlines()[1:] == [
        "1,1,fine",
        "2,1,special",
        "3,2,special",
        "4,,fine",
    ]
    assert (run / "plain_orders.csv").read_text().splitlines()[1:] == [
        "1,ada,1,1,fine",
        "2,bob,,,",
        "3,cy,,,",
    ]
