"""The seed ETL's first steps (read users, keep adults, compute columns) as the benchmark
defines them, for tests that add their own ending."""

from __future__ import annotations

import copy

from bench.seed_etl import PIPELINE

HEAD = ("users", "adults", "enrich")


def node(node_id: str) -> dict:
    """A copy of one of the seed's nodes."""
    return copy.deepcopy(next(node for node in PIPELINE["nodes"] if node["id"] == node_id))


def etl(tail: list[dict], tail_edges: list[dict]) -> dict:
    """users → adults → enrich, then `tail` wired by `tail_edges`."""
    nodes = [node(node_id) for node_id in HEAD]
    edges = [edge for edge in PIPELINE["edges"] if edge["target"] in HEAD[1:]]
    return {"name": "etl", "nodes": [*nodes, *tail], "edges": [*edges, *tail_edges]}
