"""The pipelines a column's lineage may go on into: those upstream of a pipeline in its
workspace's graph (detected or declared edges), at most `MAX_DEPTH` edges away, that the user
may read, with their documents for the lineage job (`runtime.checks.lineage_across`); and the
pipelines right downstream that read what its outputs write.

A pipeline the user may not read is not given to the job, nor is anything only reachable
through it, so no hop into it is ever answered; the graph holds one workspace only.
"""

from __future__ import annotations

from editor.dependencies import graph
from editor.models import Pipeline
from editor.pipelines.subpipelines import checked_inlined
from editor.workspaces.permissions import visible_pipelines
from runtime.checks.lineage_across import MAX_DEPTH, LinkedPipeline, downstream_readers
from runtime.document.spec import Pipeline as PipelineSpec
from runtime.document.spec import to_json_dict


class Neighbours:
    """The readable pipelines next to one in its workspace's graph (computed once: a graph
    reads every pipeline's footprint)."""

    def __init__(self, pipeline: Pipeline, user):
        self.pipeline = pipeline
        self._readable = set(
            visible_pipelines(user)
            .filter(workspace=pipeline.workspace)
            .values_list("pk", flat=True)
        )
        self._edges = graph.edges(pipeline.workspace)

    def upstream_documents(self) -> list[dict]:
        """`{"key", "name", "document"}` of each readable pipeline upstream, nearest first,
        sub-pipelines inlined: `MAX_DEPTH` edges away and one more, so that the trace can say
        it stopped at its bound rather than end there silently."""
        return [
            {"key": key, "name": name, "document": to_json_dict(document)}
            for key, name, document in _documents(self._reached(MAX_DEPTH + 1, up=True))
        ]

    def readers(self, document: PipelineSpec) -> dict[str, list[dict]]:
        """For each output node of `document` (the pipeline's, inlined), the inputs of the
        readable pipelines right downstream that read it (`downstream_readers`)."""
        downstream = [LinkedPipeline(*found) for found in _documents(self._reached(1, up=False))]
        if not downstream:
            return {}
        traced = LinkedPipeline(self.pipeline.pk, self.pipeline.name, document)
        return downstream_readers(traced, downstream)

    def _reached(self, depth: int, *, up: bool) -> list[int]:
        """Readable pipelines up to `depth` edges upstream (or downstream), nearest first,
        reached through readable ones only."""
        near, far = ("downstream", "upstream") if up else ("upstream", "downstream")
        next_to: dict[int, set[int]] = {}
        for edge in self._edges:
            next_to.setdefault(edge[near], set()).add(edge[far])
        found = [self.pipeline.pk]
        level = [self.pipeline.pk]
        for _ in range(depth):
            reached = {f for n in level for f in next_to.get(n, ()) if f in self._readable}
            level = sorted(reached - set(found))
            found += level
        return found[1:]


def _documents(ids: list[int]) -> list[tuple[int, str, PipelineSpec]]:
    pipelines = Pipeline.objects.in_bulk(ids)
    return [(pk, pipelines[pk].name, checked_inlined(pipelines[pk])[0].document) for pk in ids]
