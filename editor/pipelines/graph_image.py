"""Pictures and layouts of pipelines, by Graphviz.

`render` draws a pipeline left to right, each node coloured by its latest run status;
`layout` asks `dot` where nodes go and returns canvas positions (top-left, in pixels) for
the editor's auto-layout.

Every string in a document is the user's, so none of them reaches Graphviz as DOT syntax:
nodes are named `n0`, `n1`, ... in document order, and labels go through `literal`, which
Graphviz never reads as an HTML label (`<...>`, where `HREF` makes links) nor as an
escString (`\\N`, `\\G`, `\\L`). No user string is given to a URL, href or tooltip attribute.
"""

from __future__ import annotations

import json
import unicodedata

import graphviz

from runtime import Pipeline as PipelineSpec

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
    names = _names(document)
    for node in document.nodes:
        status = statuses.get(node.id, "idle")
        graph.node(
            names[node.id],
            label=literal(node.label or node.id, f"{node.operator} · {status}"),
            fillcolor=STATUS_COLOURS.get(status, STATUS_COLOURS["idle"]),
        )
    for edge in document.edges:
        if edge.source not in names or edge.target not in names:
            continue
        ports = [port for port in (edge.source_port, edge.target_port) if port not in ("out", "in")]
        graph.edge(names[edge.source], names[edge.target], label=literal(" → ".join(ports)))
    return graph


def _names(document: PipelineSpec) -> dict[str, str]:
    """The DOT name of each node id: `n<position>`, so no user text is ever a DOT identifier."""
    return {node.id: f"n{position}" for position, node in enumerate(document.nodes)}


def literal(*lines: str) -> graphviz.nohtml:
    """Lines of user text as one label that Graphviz draws exactly as written."""
    return graphviz.nohtml("\\n".join(_printable(line).replace("\\", "\\\\") for line in lines))


def _printable(text: str) -> str:
    """`text` with control characters (which `dot` may refuse) shown as spaces."""
    return "".join(" " if unicodedata.category(char) == "Cc" else char for char in text)


def render(
    document: PipelineSpec, statuses: dict[str, str] | None = None, fmt: str = "svg"
) -> bytes:
    """The pipeline as an SVG or PNG picture, nodes coloured by status."""
    return _graph(document, statuses or {}).pipe(format=fmt)


def layout(document: PipelineSpec) -> dict[str, dict[str, float]]:
    """Node positions (top-left corner, pixels) from `dot`, for the editor's auto-layout."""
    if not document.nodes:
        return {}
    ids = {name: node_id for node_id, name in _names(document).items()}
    placed = json.loads(_graph(document, {}).pipe(format="json"))
    top = float(placed["bb"].split(",")[3])
    positions = {}
    for item in placed.get("objects", []):
        if "pos" not in item:
            continue
        x, y = (float(value) for value in item["pos"].split(","))
        width, height = float(item["width"]) * 72, float(item["height"]) * 72
        positions[ids[item["name"]]] = {
            "x": round((x - width / 2) * POINTS_TO_PIXELS, 1),
            "y": round((top - y - height / 2) * POINTS_TO_PIXELS, 1),
        }
    return positions
