"""The one mapping between the editor's rows and the runtime's pipeline document.

`to_document` builds the document a pipeline's rows describe (what export, runs and the API
serve); `replace_graph` writes a document's graph back as rows. Nothing else in the editor
knows how a document is laid out in the database.
"""

from __future__ import annotations

from django.db import transaction

from editor.models import Edge, Node, Pipeline
from runtime.spec import Config, Position
from runtime.spec import Edge as EdgeSpec
from runtime.spec import Node as NodeSpec
from runtime.spec import Pipeline as PipelineSpec


def to_document(pipeline: Pipeline) -> PipelineSpec:
    """The pipeline as a runtime document (nodes and edges in the stable export order)."""
    # Plain rows rather than model instances: a 1,000-node pipeline loads in half the time.
    node_rows = pipeline.nodes.values_list(
        "node_id", "operator", "label", "params", "x", "y", "retries", "timeout_s"
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
        )
        for node_id, operator, label, params, x, y, retries, timeout_s in node_rows
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
    )


@transaction.atomic
def replace_graph(pipeline: Pipeline, document: PipelineSpec) -> None:
    """Make the pipeline's name, config, nodes and edges those of `document`."""
    pipeline.name = document.name
    pipeline.description = document.description
    pipeline.config = document.config.model_dump(mode="json")
    pipeline.save()
    pipeline.edges.all().delete()
    pipeline.nodes.all().delete()
    rows = Node.objects.bulk_create(
        Node(
            pipeline=pipeline,
            node_id=node.id,
            operator=node.operator,
            label=node.label,
            params=node.params,
            x=node.position.x,
            y=node.position.y,
            retries=node.retries,
            timeout_s=node.timeout_s,
        )
        for node in document.nodes
    )
    by_id = {row.node_id: row for row in rows}
    Edge.objects.bulk_create(
        Edge(
            pipeline=pipeline,
            source=by_id[edge.source],
            source_port=edge.source_port,
            target=by_id[edge.target],
            target_port=edge.target_port,
        )
        for edge in document.edges
    )
