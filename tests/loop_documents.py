"""The documents the tests of loops over groups share: orders of six countries, an inner
pipeline summing each group's amounts above `${min}` (tagged with its `${country}` parameter),
and an outer pipeline running it for each country."""

from __future__ import annotations

ORDERS = "order_id,country,amount\n1,FR,10\n2,DE,5\n3,FR,30\n4,IT,2\n5,DE,50\n6,FR,1\n"

SUM_BIG = {
    "name": "Sum big",
    "config": {"parameters": {"min": 0, "country": "?"}},
    "nodes": [
        {"id": "rows", "operator": "pipeline_input", "params": {"name": "rows"}},
        {"id": "big", "operator": "filter", "params": {"condition": "amount > ${min}"}},
        {"id": "tag", "operator": "transform",
         "params": {"mappings": [{"target": "seen", "expression": "${country}"}]}},
        {"id": "total", "operator": "aggregate",
         "params": {"group_by": ["seen"],
                    "aggregations": [{"column": "amount", "function": "sum", "name": "total"}]}},
        {"id": "out", "operator": "pipeline_output", "params": {"name": "totals"}},
    ],
    "edges": [
        {"source": "rows", "target": "big"}, {"source": "big", "target": "tag"},
        {"source": "tag", "target": "total"}, {"source": "total", "target": "out"},
    ],
}  # fmt: skip


def by_country(pipeline, *, rows: str = "orders.csv", out: str = "totals.csv", **params) -> dict:
    """Orders read from `rows`, `pipeline` (its reference) run for each country with min 4, the
    totals written to `out`; `params` change the loop's."""
    loop = {
        "pipeline": pipeline, "over": "groups", "group_by": ["country"],
        "max_iterations": 1000, "parameters": {"min": 4}, "key_column": "country",
        "inputs": ["rows"], "outputs": ["totals"], **params,
    }  # fmt: skip
    return {
        "name": "By country",
        "nodes": [
            {"id": "orders", "operator": "csv_input", "params": {"path": rows},
             "position": {"x": 0, "y": 0}},
            {"id": "each", "operator": "for_each", "params": loop, "position": {"x": 350, "y": 0}},
            {"id": "write", "operator": "csv_output", "params": {"path": out},
             "position": {"x": 700, "y": 0}},
        ],
        "edges": [
            {"source": "orders", "target": "each", "target_port": "rows"},
            {"source": "each", "source_port": "totals", "target": "write"},
        ],
    }  # fmt: skip


def many_countries(count: int) -> str:
    """Orders of `count` countries, one order each."""
    lines = "\n".join(f"{i},C{i:04d},{i}" for i in range(count))
    return f"order_id,country,amount\n{lines}\n"
