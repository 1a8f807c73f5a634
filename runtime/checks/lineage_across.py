"""Column lineage across pipelines: where a column's path ends at an input that reads a file
or table another pipeline writes, the path goes on in that pipeline, from the output node
that writes it, and so on upstream.

Belongs here: following a column from pipeline to pipeline (`upstream_hops`), bounded in
depth, each cycle of pipelines stopped and said. Does not belong here: which pipelines a
caller may see (the caller passes only those: the editor the readable pipelines of one
workspace, the CLI the files it was given), nor a pipeline's own lineage
(`runtime.checks.lineage`). An input and an output match as pipelines' dependencies do
(`runtime.checks.footprint.links`: the same path or glob, or the same table).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from runtime.checks.footprint import Footprint, footprint, links
from runtime.checks.lineage import Lineage, LineagePath
from runtime.checks.lineage_rules import Ref
from runtime.document.spec import Pipeline, to_json_dict
from runtime.operators.registry import Registry, default_registry

MAX_DEPTH = 10
"""Pipelines a column is followed through upstream of the one traced."""


@dataclass(frozen=True, slots=True)
class LinkedPipeline:
    """A pipeline that may feed another or read its outputs: its key (an id, a file), name and
    document."""

    key: Hashable
    name: str
    document: Pipeline


@dataclass(slots=True)
class Hop:
    """A column crossing into the pipeline that wrote it: which input read it (in which
    pipeline), through which path or table, and the writer's output column with its path."""

    pipeline: Hashable
    name: str
    via: str
    reader: Hashable
    """The pipeline whose input read it."""
    input: str
    output: str
    column: str
    depth: int
    path: LineagePath
    lineage: Lineage = field(repr=False)
    """The writer's whole lineage, for the text of the hop's tree."""

    def to_json(self) -> dict:
        return {
            "pipeline": self.pipeline,
            "name": self.name,
            "via": self.via,
            "reader": self.reader,
            "input": self.input,
            "output": self.output,
            "column": self.column,
            "depth": self.depth,
            "path": self.path.to_json(),
        }


@dataclass(slots=True)
class Across:
    """The hops of a column upstream, in the order reached, and where following stopped."""

    hops: list[Hop] = field(default_factory=list)
    stops: list[str] = field(default_factory=list)

    def stop(self, why: str) -> None:
        """Say where following stopped, once (several columns may reach the same stop)."""
        if why not in self.stops:
            self.stops.append(why)

    def to_json(self) -> dict:
        return {"hops": [hop.to_json() for hop in self.hops], "stops": self.stops}


def upstream_hops(
    traced: LinkedPipeline,
    path: LineagePath,
    upstreams: list[LinkedPipeline],
    lineage_of: Callable[[LinkedPipeline], Lineage],
    *,
    registry: Registry | None = None,
    max_depth: int = MAX_DEPTH,
) -> Across:
    """Where `path` (a column of `traced`) goes on in `upstreams`: for each input column it
    comes from, the output column of the pipeline writing that input's file or table, its
    path there, and recursively. Each pipeline's lineage is worked out once (`lineage_of`)."""
    registry = registry or default_registry()
    every = {traced.key: traced, **{upstream.key: upstream for upstream in upstreams}}
    writes = {key: _node_footprints(p.document, registry, "output") for key, p in every.items()}
    reads = {key: _node_footprints(p.document, registry, "input") for key, p in every.items()}
    lineages: dict[Hashable, Lineage] = {}
    found = Across()
    seen: set[tuple[Hashable, Ref]] = set()
    queue = deque([(traced, path, (traced.key,))])
    while queue:
        reader, reader_path, chain = queue.popleft()
        for input_node, column in reader_path.origins:
            for writer, output, via in _writers(reads[reader.key].get(input_node), writes):
                names = " → ".join(every[key].name for key in (*chain, writer))
                if writer in chain:
                    found.stop(f"cycle of pipelines {names}: not followed further")
                    continue
                if len(chain) > max_depth:
                    found.stop(f"{names}: deeper than {max_depth} pipelines, not followed")
                    continue
                if writer not in lineages:
                    lineages[writer] = lineage_of(every[writer])
                ref = (output, "in", column)
                if column not in _written(lineages[writer], output):
                    found.stop(f"{every[writer].name} > {output} has no known column '{column}'")
                    continue
                if (writer, ref) in seen:
                    continue
                seen.add((writer, ref))
                hop_path = lineages[writer].path(ref)
                found.hops.append(
                    Hop(writer, every[writer].name, via, reader.key, input_node, output, column,
                        len(chain), hop_path, lineages[writer])
                )  # fmt: skip
                queue.append((every[writer], hop_path, (*chain, writer)))
    return found


def downstream_readers(
    traced: LinkedPipeline, downstreams: list[LinkedPipeline], *, registry: Registry | None = None
) -> dict[str, list[dict]]:
    """For each output node of `traced`, the inputs of `downstreams` that read what it writes:
    `{"pipeline", "name", "input", "via"}` (no lineage is worked out: nothing is read)."""
    registry = registry or default_registry()
    reads = {each.key: _node_footprints(each.document, registry, "input") for each in downstreams}
    names = {each.key: each.name for each in downstreams}
    found: dict[str, list[dict]] = {}
    for output, written in _node_footprints(traced.document, registry, "output").items():
        for pipeline, inputs in reads.items():
            for input_node, read in inputs.items():
                for link in links({"writer": written, "reader": read}):
                    found.setdefault(output, []).append(
                        {"pipeline": pipeline, "name": names[pipeline], "input": input_node,
                         "via": link.via}
                    )  # fmt: skip
    return found


def _written(lineage: Lineage, output: str) -> dict:
    """The columns an output node writes (its port `in`), none when its lineage is unknown."""
    node = lineage.nodes.get(output)
    return node.ports.get("in", {}) if node else {}


def _node_footprints(document: Pipeline, registry: Registry, kind: str) -> dict[str, Footprint]:
    """The footprint of each of the document's nodes of `kind` ("input" or "output")."""
    found = {}
    for node in to_json_dict(document)["nodes"]:
        operator = registry.get(node.get("operator", ""))
        if operator is not None and operator.kind == kind:
            found[node["id"]] = footprint({"nodes": [node]}, registry)
    return found


def _writers(read: Footprint | None, writes: dict) -> list[tuple[Hashable, str, str]]:
    """(pipeline, output node, path or table) of each output that writes what `read` reads."""
    if read is None:
        return []
    found = []
    for pipeline, outputs in writes.items():
        for output, written in outputs.items():
            for link in links({"writer": written, "reader": read}):
                found.append((pipeline, output, link.via))
    return found
