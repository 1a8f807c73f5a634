"""The OpenAPI contract of the pipeline graph and of a pipeline's dependencies."""

from __future__ import annotations

from ninja import Schema


class DependencyIn(Schema):
    upstream: int
    note: str = ""


class Via(Schema):
    kind: str
    name: str


class GraphNode(Schema):
    id: int
    name: str
    folder: str


class GraphEdge(Schema):
    upstream: int
    downstream: int
    via: list[Via]
    detected: bool
    declared: bool
    note: str


class PipelineGraph(Schema):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class Dependencies(Schema):
    upstream: list[GraphEdge]
    downstream: list[GraphEdge]
