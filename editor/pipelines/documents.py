"""The one mapping between the editor's rows and the runtime's pipeline document.

`to_document` builds the document a pipeline's rows describe (what export, runs and the API
serve); `replace_graph` writes a document's graph back as rows, touching only the rows that
changed. Nothing else in the editor knows how a document is laid out in the database.
"""

from __future__ import annotations

from django.db import transaction

from editor.models import Edge, Node, Pipeline
from runtime import Pipeline as PipelineSpec
from runtime.document.spec import Config, Position
from runtime.document.spec import Edge as EdgeSpec
from runtime.document.spec import Node as NodeSpec


def to_document(pipeline: Pipeline) -> PipelineSpec:
    """The pipeline as a runtime document (nodes and edges in the stable export order)."""
    # Plain rows rather than model instances: a large pipeline loads much faster
    # (docs/performance.md).
    node_rows = pipeline.nodes.values_list(
        "node_id", "operator", "label", "params", "x", "y", "retries", "timeout_s", "expect"
    )
    nodes = [
        NodeSpec(
            id=node_id,
            operator=operator,
            label=label,
            params=params,
            position=Position(x=x, y=y),
            retries=retries,
            timeout_s=timeout_s,
            expect=expect,
        )
        for node_id, operator, label, params, x, y, retries, timeout_s, expect in node_rows
    ]
    edge_rows = pipeline.edges.values_list(
        "source__node_id", "source_port", "target__node_id", "target_port"
    )
    edges = [
        EdgeSpec(source=source, source_port=source_port, target=target, target_port=target_port)
        for source, source_port, target, target_port in edge_rows
    ]
    return PipelineSpec(
        name=pipeline.name,
        description=pipeline.description,
        config=Config.model_validate(pipeline.config),
        nodes=sorted(nodes, key=lambda node: node.id),
        edges=sorted(edges, key=EdgeSpec.sort_key),
        notes=pipeline.notes,
        groups=pipeline.groups,
    )


NODE_FIELDS = ("operator", "label", "params", "x", "y", "retries", "timeout_s", "expect")
"""A node row's columns besides its ids: what a save compares and writes."""


def _node_values(node: NodeSpec) -> dict:
    """`node` as its row's `NODE_FIELDS`."""
    return {
        "operator": node.operator,
        "label": node.label,
        "params": node.params,
        "x": node.position.x,
        "y": node.position.y,
        "retries": node.retries,
        "timeout_s": node.timeout_s,
        "expect": [check.model_dump(mode="json") for check in node.expect],
    }


@transaction.atomic
def replace_graph(pipeline: Pipeline, document: PipelineSpec) -> None:
    """Make the pipeline's name, config, notes, groups, nodes and edges those of `document`,
    writing only the rows that differ (a moved node is one UPDATE)."""
    pipeline.name = document.name
    pipeline.description = document.description
    pipeline.config = document.config.model_dump(mode="json")
    pipeline.notes = [note.model_dump(mode="json") for note in document.notes]
    pipeline.groups = [group.model_dump(mode="json") for group in document.groups]
    pipeline.save()
    node_pks = _write_nodes(pipeline, document.nodes)
    _write_edges(pipeline, document.edges, node_pks)


def _write_nodes(pipeline: Pipeline, nodes: list[NodeSpec]) -> dict[str, int]:
    """Insert, update and delete node rows to match `nodes`; the row pk of each node id."""
    stored = {row["node_id"]: row for row in pipeline.nodes.values("pk", "node_id", *NODE_FIELDS)}
    wanted = {node.id: _node_values(node) for node in nodes}
    gone = [row["pk"] for node_id, row in stored.items() if node_id not in wanted]
    if gone:
        Node.objects.filter(pk__in=gone).delete()  # with their edges
    changed, added = [], []
    for node_id, values in wanted.items():
        row = stored.get(node_id)
        if row is None:
            added.append(Node(pipeline=pipeline, node_id=node_id, **values))
        elif any(row[field] != value for field, value in values.items()):
            changed.append(Node(pk=row["pk"], **values))
    if changed:
        Node.objects.bulk_update(changed, NODE_FIELDS)
    pks = {node_id: row["pk"] for node_id, row in stored.items() if node_id in wanted}
    pks.update((row.node_id, row.pk) for row in Node.objects.bulk_create(added))
    return pks


EDGE_ENDS = ("source_id", "source_port", "target_id", "target_port")


def _write_edges(pipeline: Pipeline, edges: list[EdgeSpec], node_pks: dict[str, int]) -> None:
    """Insert and delete edge rows to match `edges` (an edge has no columns to update)."""
    stored = {row[1:]: row[0] for row in pipeline.edges.values_list("pk", *EDGE_ENDS)}
    wanted = {
        (node_pks[edge.source], edge.source_port, node_pks[edge.target], edge.target_port)
        for edge in edges
    }
    gone = [pk for ends, pk in stored.items() if ends not in wanted]
    if gone:
        Edge.objects.filter(pk__in=gone).delete()
    Edge.objects.bulk_create(
        Edge(pipeline=pipeline, **dict(zip(EDGE_ENDS, ends, strict=True)))
        for ends in sorted(wanted - stored.keys())
    )
