"""Documents of pipelines that read a CSV file, pass it through nodes in a row and write
another: what the tests of lineage across pipelines chain together by their files."""

from __future__ import annotations

from itertools import pairwise


def in_a_row(name: str, reads: str, writes: str, *middle: dict) -> dict:
    """`reads` (a CSV file) → the `middle` nodes in a row → `writes` (a CSV file)."""
    nodes = [
        {"id": "read", "operator": "csv_input", "params": {"path": reads}},
        *middle,
        {"id": "write", "operator": "csv_output", "params": {"path": writes}},
    ]
    edges = [
        {"source": a["id"], "source_port": "out", "target": b["id"], "target_port": "in"}
        for a, b in pairwise(nodes)
    ]
    return {"name": name, "nodes": nodes, "edges": edges}


def doubled(column: str = "total") -> dict:
    """A transform computing `column` as `amount * 2`."""
    mapping = {"target": column, "expression": "amount * 2"}
    return {"id": "double", "operator": "transform", "params": {"mappings": [mapping]}}
