"""Pictures and layouts of pipelines, by Graphviz.

`render` draws a pipeline left to right, each node coloured by its latest run status;
`layout` asks `dot` where nodes go and returns canvas positions (top-left, in pixels) for
the editor's auto-layout.
"""

from __future__ import annotations

import json

import graphviz

from runtime.spec import Pipeline as PipelineSpec

STATUS_COLOURS = {
    "idle": "#f4f4f5",
    "pending": "#f4f4f5",
    "queued": "#e0e7ff",
    "running": "#bfdbfe",
    "retrying": "#fde68a",
    "succeeded": "#bbf7d0",
    "failed": "#fecaca",
    "timed_out": "#fed7aa",
    "skipped": "#e5e7eb",
    "cancelled": "#e5e7eb",
    "interrupted": "#fbcfe8",
}
POINTS_TO_PIXELS = 96 / 72
NODE_WIDTH_IN, NODE_HEIGHT_IN = 2.4, 0.8


def _graph(document: PipelineSpec, statuses: dict[str, str]) -> graphviz.Digraph:
    graph = graphviz.Digraph(
        graph_attr={"rankdir": "LR", "nodesep": "0.4", "ranksep": "0.7", "bgcolor": "white"},
        node_attr={
            "shape": "box",
            "style": "rounded,filled",
            "fontname": "Helvetica",
            "fontsize": "11",
            "width": str(NODE_WIDTH_IN),
            "height": str(NODE_HEIGHT_IN),
            "fixedsize": "true",
        },
        edge_attr={
            "color": "#6b7280",
            "arrowsize": "0.7",
            "fontname": "Helvetica",
            "fontsize": "9",
        },
    )
    for node in document.nodes:
        status = statuses.get(node.id, "idle")
        title = node.label or node.id
        graph.node(
            node.id,
            label=f"{title}\n{node.operator} · {status}",
            fillcolor=STATUS_COLOURS.get(status, STATUS_COLOURS["idle"]),
            tooltip=node.id,
        )
    for edge in document.edges:
        ports = [port for port in (edge.source_port, edge.target_port) if port not in ("out", "in")]
        graph.edge(edge.source, edge.target, label=" → ".join(ports))
    return graph


def render(
    document: PipelineSpec, statuses: dict[str, str] | None = None, fmt: str = "svg"
) -> bytes:
    """The pipeline as an SVG or PNG picture, nodes coloured by status."""
    return _graph(document, statuses or {}).pipe(format=fmt)


def layout(document: PipelineSpec) -> dict[str, dict[str, float]]:
    """Node positions (top-left corner, pixels) from `dot`, for the editor's auto-layout."""
    if not document.nodes:
        return {}
    placed = json.loads(_graph(document, {}).pipe(format="json"))
    top = float(placed["bb"].split(",")[3])
    positions = {}
    for item in placed.get("objects", []):
        if "pos" not in item:
            continue
        x, y = (float(value) for value in item["pos"].split(","))
        width, height = float(item["width"]) * 72, float(item["height"]) * 72
        positions[item["name"]] = {
            "x": round((x - width / 2) * POINTS_TO_PIXELS, 1),
            "y": round((top - y - height / 2) * POINTS_TO_PIXELS, 1),
        }
    return positions
