"""The graph of a workspace's pipelines: an edge where one reads what another writes, found
from their documents (detected) or said by a person (declared).

Only pipelines of the one workspace are read, so no pipeline of another workspace is ever a
node or the end of an edge. Nodes' params are read in one query for the whole workspace.
"""

from __future__ import annotations

from collections import defaultdict

import graphviz

from editor.models import DeclaredDependency, Node, Pipeline, Workspace
from editor.pipelines.graph_image import literal
from runtime.checks.footprint import Footprint, footprint, links
from runtime.operators.registry import default_registry

MAX_PIPELINES = 500
"""Pipelines a graph is computed over (the first by id): links are found pair by pair."""


def footprints(workspace: Workspace) -> dict[int, Footprint]:
    """Each pipeline's footprint (by id), from its nodes' operators and params."""
    ids = list(
        Pipeline.objects.filter(workspace=workspace)
        .order_by("pk")
        .values_list("pk", flat=True)[:MAX_PIPELINES]
    )
    documents: dict[int, dict] = {pk: {"nodes": []} for pk in ids}
    rows = Node.objects.filter(pipeline_id__in=ids).values_list("pipeline_id", "operator", "params")
    for pipeline_id, operator, params in rows:
        documents[pipeline_id]["nodes"].append({"operator": operator, "params": params})
    registry = default_registry()
    return {pk: footprint(document, registry) for pk, document in documents.items()}


def edges(workspace: Workspace) -> list[dict]:
    """One edge per (upstream, downstream) pair: what links them (`via`), whether it was
    detected and whether it was declared (with the declaration's note)."""
    found: dict[tuple[int, int], dict] = defaultdict(
        lambda: {"via": [], "detected": False, "declared": False, "note": ""}
    )
    for link in links(footprints(workspace)):
        edge = found[(link.writer, link.reader)]
        edge["detected"] = True
        edge["via"].append({"kind": link.kind, "name": link.via})
    declared = DeclaredDependency.objects.filter(
        downstream__workspace=workspace, upstream__workspace=workspace
    ).values_list("upstream_id", "downstream_id", "note")
    for upstream, downstream, note in declared:
        edge = found[(upstream, downstream)]
        edge["declared"], edge["note"] = True, note
    return [
        {"upstream": upstream, "downstream": downstream, **edge}
        for (upstream, downstream), edge in sorted(found.items())
    ]


def upstreams(pipeline: Pipeline) -> dict[int, list[str]]:
    """The pipelines `pipeline` reads from, each with the paths and tables it reads of them."""
    return {
        edge["upstream"]: [via["name"] for via in edge["via"]]
        for edge in edges(pipeline.workspace)
        if edge["downstream"] == pipeline.pk
    }


def workspace_graph(workspace: Workspace) -> dict:
    """The workspace's pipelines and the edges between them, as the API answers."""
    pipelines = Pipeline.objects.filter(workspace=workspace).order_by("pk")[:MAX_PIPELINES]
    return {
        "nodes": [{"id": p.pk, "name": p.name, "folder": p.folder} for p in pipelines],
        "edges": edges(workspace),
    }


def render(graph: dict) -> bytes:
    """The graph as SVG, left to right; a declared edge is dashed. Every label is the user's
    text drawn as written (`graph_image.literal`), nodes are named by their ids."""
    picture = graphviz.Digraph(
        graph_attr={"rankdir": "LR", "bgcolor": "white", "nodesep": "0.3"},
        node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "#f4f4f5",
                   "fontname": "Helvetica", "fontsize": "11"},
        edge_attr={"color": "#6b7280", "fontname": "Helvetica", "fontsize": "9"},
    )  # fmt: skip
    for node in graph["nodes"]:
        picture.node(f"p{node['id']}", label=literal(node["name"]))
    for edge in graph["edges"]:
        names = [via["name"] for via in edge["via"]][:3] or [edge["note"] or "declared"]
        picture.edge(
            f"p{edge['upstream']}",
            f"p{edge['downstream']}",
            label=literal(*names),
            style="solid" if edge["detected"] else "dashed",
        )
    return picture.pipe(format="svg")
