"""Inlining sub-pipelines: a document with `subpipeline` nodes → one flat document.

A pure pass, before analysis: each `subpipeline` node is replaced by the inner pipeline's nodes
(ids prefixed with the outer node's id and `__`, the inner parameters substituted), its
`pipeline_input` and `pipeline_output` nodes dissolved into the outer edges, so that every later
pass, fusion and DuckDB segments cross the boundary. Where a pipeline comes from is the
caller's business (`Resolve`: a file next to the outer one on the command line, a saved revision
in the editor). A cycle of references is refused naming its chain; nesting and size are bounded.
What was inlined where is kept (`Inlined.subpipelines`), for `explain` and the editor.
A `for_each` node is first unrolled into one `subpipeline` node per file (`runtime.plan.for_each`),
its files listed by the caller's `files`; what it became is kept under its id too, with its
iterations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from runtime.document.parameters import resolve_values, substitute
from runtime.document.problems import validation_problems
from runtime.document.spec import MAX_NODES, NODE_ID_MAX_LENGTH, Edge, Node, Pipeline
from runtime.errors import PipelineValidationError, Problem
from runtime.operators.registry import Registry, default_registry
from runtime.operators.subpipelines import ForEachParams, SubpipelineParams
from runtime.plan.for_each import FOR_EACH, Files, Loop, body_problems, iterating, unrolled

SUBPIPELINE, INPUT, OUTPUT = "subpipeline", "pipeline_input", "pipeline_output"
SEPARATOR = "__"
SUBPIPELINE_FIELDS = set(SubpipelineParams.model_fields)
MAX_DEPTH = 10
"""How deep sub-pipelines may nest: far beyond a design a person follows."""


@dataclass(frozen=True, slots=True)
class InnerPipeline:
    """A resolved reference: `key` tells pipelines apart (a file's path, `pipeline 12`),
    `title` names it in messages, `revision` is the saved one used (None for a file)."""

    key: str
    title: str
    document: Pipeline
    revision: int | None = None


Resolve = Callable[[SubpipelineParams, str], InnerPipeline]
"""`resolve(params, within)`: the pipeline `params` names, from the pipeline whose key is
`within`; raises `LookupError` with the reason when there is none to use."""


@dataclass(frozen=True, slots=True)
class Inlined:
    """The flat document and, by (prefixed) outer node id, what each sub-pipeline became."""

    document: Pipeline
    subpipelines: dict[str, dict] = field(default_factory=dict)


def uses_subpipelines(pipeline: Pipeline) -> bool:
    return any(node.operator in (SUBPIPELINE, FOR_EACH) for node in pipeline.nodes)


def inline(
    pipeline: Pipeline,
    resolve: Resolve,
    *,
    key: str,
    title: str | None = None,
    parameters: dict[str, Any] | None = None,
    registry: Registry | None = None,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
    files: Files | None = None,
) -> Inlined:
    """`pipeline` (told apart by `key`, named `title` in messages) with its sub-pipelines
    inlined, the run's `parameters` filling their params, and its loops unrolled over the
    `files` their patterns match; raise `PipelineValidationError` naming the outer node and
    field of each problem."""
    if not uses_subpipelines(pipeline):
        return Inlined(pipeline)
    inliner = _Inliner(resolve, registry or default_registry(), max_depth, max_nodes, files)
    values = resolve_values(pipeline.config.parameters, parameters)
    chain = [(key, title or pipeline.name)]
    nodes, edges, inlined = inliner.expand(pipeline, chain, values, outermost=True)
    if inliner.problems:
        raise PipelineValidationError(inliner.problems)
    groups = [
        group.model_copy(update={"nodes": _members(group.nodes, inlined)})
        for group in pipeline.groups
    ]
    flat = pipeline.model_copy(update={"nodes": nodes, "edges": edges, "groups": groups})
    return Inlined(flat, inlined)


def _members(node_ids: list[str], subpipelines: dict[str, dict]) -> list[str]:
    """A canvas group's nodes, a sub-pipeline node standing for the nodes it became."""
    return [inner for node in node_ids for inner in subpipelines.get(node, {}).get("nodes", [node])]


class _Inliner:
    def __init__(self, resolve: Resolve, registry: Registry, max_depth: int, max_nodes: int, files):
        self.resolve, self.registry, self.files = resolve, registry, files
        self.max_depth, self.max_nodes = max_depth, max_nodes
        self.problems: list[Problem] = []
        self.found: dict[tuple, InnerPipeline] = {}
        self.top: str | None = None
        self.count = 0

    def expand(
        self, pipeline: Pipeline, chain: list[tuple[str, str]], values: dict, *, outermost: bool
    ) -> tuple[list[Node], list[Edge], dict[str, dict]]:
        """`pipeline`'s nodes and edges with its sub-pipelines inlined, and what each became (by
        node id); an inner pipeline (not `outermost`) has its own parameters substituted into
        every node."""
        pipeline, loops, found = unrolled(pipeline, values, self.files)
        self.problems += found
        looped = {copy: loop.node for loop in loops for copy in loop.copies}
        first_problem = len(self.problems)
        nodes: list[Node] = []
        edges = list(pipeline.edges)
        inlined: dict[str, dict] = {}
        for node in pipeline.nodes:
            if node.operator == FOR_EACH and node.params.get("over", "files") != "files":
                node = self._with_body(node, chain, values)
                if node is None:
                    continue
            if node.operator != SUBPIPELINE:
                nodes.append(node if outermost else self._substituted(node, values))
                self.count += 1
                if self.count > self.max_nodes:
                    raise PipelineValidationError([self._too_big()])
                continue
            if outermost:
                self.top = looped.get(node.id, node.id)  # what a refusal of the nesting names
            found = self._inner(node, chain, values)
            if found is None:
                continue
            inner, inner_values = found
            before = len(self.problems)
            inner_nodes, inner_edges, nested = self.expand(
                inner.document, [*chain, (inner.key, inner.title)], inner_values, outermost=False
            )
            self.problems[before:] = [
                Problem(f"in '{inner.title}': {problem}", node=node.id, field="params.pipeline",
                        code=problem.code)
                for problem in self.problems[before:]
            ]  # fmt: skip
            placed, edges, wiring = self._splice(node, inner_nodes, inner_edges, edges)
            if len(self.problems) > before:
                continue
            nodes += placed
            prefix = f"{node.id}{SEPARATOR}"
            inlined[node.id] = {
                "pipeline": inner.title,
                "revision": inner.revision,
                "nodes": [placed_node.id for placed_node in placed],
                **wiring,
            }
            for outer, entry in nested.items():
                inlined[prefix + outer] = {
                    **entry,
                    "nodes": [prefix + n for n in entry["nodes"]],
                    "outputs": {name: [prefix + n, p] for name, (n, p) in entry["outputs"].items()},
                    "inputs": {
                        name: {**found, "from": [prefix + found["from"][0], found["from"][1]]}
                        for name, found in entry["inputs"].items()
                    },
                    **({"loop": _prefixed(entry["loop"], prefix)} if "loop" in entry else {}),
                }
        self._fold_loops(loops, looped, inlined, first_problem)
        return nodes, edges, inlined

    def _fold_loops(self, loops: list[Loop], looped: dict, inlined: dict, first: int) -> None:
        """Each loop's copies kept under the loop node's id (its iterations), and the problems
        of its copies named at the loop node, once each."""
        shown = []
        by_node = {loop.node: loop for loop in loops}
        for problem in self.problems[first:]:
            if problem.node in looped:
                loop = by_node[looped[problem.node]]
                field = problem.field
                if field == f"params.parameters.{loop.parameter}":  # the loop's, not the user's
                    field = "params.parameter"
                problem = replace(problem, node=loop.node, field=field)
            if problem not in shown:
                shown.append(problem)
        self.problems[first:] = shown
        for loop in loops:
            copies = [inlined.pop(copy, None) for copy in loop.copies]
            if None in copies:
                continue
            inlined[loop.node] = {
                "pipeline": copies[0]["pipeline"],
                "revision": copies[0]["revision"],
                "nodes": [*(node for copy in copies for node in copy["nodes"]), *loop.added],
                "inputs": copies[0]["inputs"],
                "outputs": loop.outputs,
                "loop": {
                    "pattern": loop.pattern,
                    "iterations": [
                        {"file": file, "nodes": copy["nodes"]}
                        for file, copy in zip(loop.files, copies, strict=True)
                    ],
                    "added": loop.added,
                },
            }

    def _with_body(self, node: Node, chain, values) -> Node | None:
        """A loop over groups or chunks with its `body`: the inner pipeline, its own
        sub-pipelines inlined, its parameters the node's values (the key's filled per iteration
        when it runs); None (with problems) when it cannot be made."""
        found = self._inner(node, chain, values)
        if found is None:
            return None
        inner, inner_values = found
        params = ForEachParams.model_validate(node.params)
        before, top = len(self.problems), self.top
        body_nodes, body_edges, _ = self.expand(
            inner.document, [*chain, (inner.key, inner.title)], inner_values, outermost=True
        )
        self.top = top
        self.problems[before:] = [
            Problem(f"in '{inner.title}': {problem}", node=node.id, field="params.pipeline",
                    code=problem.code)
            for problem in self.problems[before:]
        ]  # fmt: skip
        body = inner.document.model_copy(update={
            "name": inner.title, "nodes": body_nodes, "edges": body_edges,
            "config": inner.document.config.model_copy(update={"parameters": inner_values}),
        })  # fmt: skip
        found = body_problems(node.id, params, body)
        self.problems += found
        if len(self.problems) > before:
            return None
        return node.model_copy(
            update={"params": {**node.params, "body": body.model_dump(mode="json")}}
        )

    def _inner(self, node: Node, chain, values) -> tuple[InnerPipeline, dict] | None:
        """The pipeline `node` names and its inner parameter values; None (with
        problems) when it cannot be used."""
        shared = {key: value for key, value in node.params.items() if key in SUBPIPELINE_FIELDS}
        raw, problems = substitute(shared, SubpipelineParams, values, node=node.id)
        if problems:
            self.problems += problems
            return None
        try:
            params = SubpipelineParams.model_validate(raw)
        except ValidationError as error:
            self.problems += validation_problems(error.errors(), SubpipelineParams, node=node.id)
            return None
        try:
            inner = self._resolved(params, chain[-1][0])
        except LookupError as error:
            self.problems.append(
                Problem(str(error.args[0]), node=node.id, field="params.pipeline",
                        code="unknown_subpipeline")
            )  # fmt: skip
            return None
        keys, titles = [key for key, _ in chain], [title for _, title in chain]
        if inner.key in keys:
            cycle = " → ".join([*titles[keys.index(inner.key) :], inner.title])
            self.problems.append(
                Problem(f"sub-pipelines refer to each other in a cycle: {cycle}", node=node.id,
                        field="params.pipeline", code="subpipeline_cycle")
            )  # fmt: skip
            return None
        if len(chain) > self.max_depth:
            nesting = " → ".join([*titles, inner.title])
            raise PipelineValidationError([
                Problem(f"sub-pipelines nest more than {self.max_depth} levels deep: {nesting}",
                        node=self.top, field="params.pipeline", code="subpipelines_too_deep")
            ])  # fmt: skip
        inner_values = self._parameters(node, params, inner)
        return (inner, inner_values) if inner_values is not None else None

    def _resolved(self, params: SubpipelineParams, within: str) -> InnerPipeline:
        """`resolve`, once per pipeline, revision and user in a pass: a loop's copies all name
        the same one (and so see the same version of it)."""
        key = (params.pipeline, params.revision, within)
        if key not in self.found:
            self.found[key] = self.resolve(params, within)
        return self.found[key]

    def _parameters(self, node: Node, params, inner: InnerPipeline) -> dict | None:
        """The inner pipeline's parameter values: its defaults, overridden by the node's, each of
        the type its default has."""
        declared = inner.document.config.parameters
        bad = []
        for name, value in params.parameters.items():
            field_name = f"params.parameters.{name}"
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                bad.append(Problem(f"'{inner.title}' has no parameter '{name}' (it declares: "
                                   f"{known})", node=node.id, field=field_name,
                                   code="unknown_parameter"))  # fmt: skip
            elif not _same_type(declared[name], value):
                bad.append(Problem(f"'{name}' must be {_type_name(declared[name])} like its "
                                   f"default {declared[name]!r}, not {value!r}", node=node.id,
                                   field=field_name, code="invalid_parameter"))  # fmt: skip
        self.problems += bad
        return None if bad else resolve_values(declared, params.parameters)

    def _substituted(self, node: Node, values: dict) -> Node:
        operator = self.registry.get(node.operator)
        model = operator.Params if operator is not None else None
        params, problems = substitute(node.params, model, values, node=node.id)
        self.problems += problems
        return node.model_copy(update={"params": params})

    def _splice(self, node: Node, inner_nodes, inner_edges, edges):
        """The inner nodes under `node`'s prefix, and `edges` with `node`'s edges rewired to
        them through its inner `pipeline_input` and `pipeline_output` nodes, and its wiring: what
        feeds each input (with the columns it expects) and where each output comes from."""
        prefix = f"{node.id}{SEPARATOR}"
        ports = {inner.id: (inner.operator, inner.params.get("name")) for inner in inner_nodes
                 if inner.operator in (INPUT, OUTPUT)}  # fmt: skip
        inputs = {name: i for i, (operator, name) in ports.items() if operator == INPUT}
        outputs = {name: o for o, (operator, name) in ports.items() if operator == OUTPUT}
        self._check_ports(node, inputs, outputs, edges)
        feeds = {edge.target_port: (edge.source, edge.source_port) for edge in edges
                 if edge.target == node.id}  # fmt: skip
        reaches = {e.target: (e.source, e.source_port) for e in inner_edges if e.target in ports}
        wired: list[Edge] = []
        for edge in inner_edges:
            if edge.target in ports:
                continue
            source, source_port = (
                feeds.get(ports[edge.source][1], (None, None))
                if edge.source in ports
                else (prefix + edge.source, edge.source_port)
            )
            if source is not None:
                wired.append(edge.model_copy(update={"source": source, "source_port": source_port,
                                                     "target": prefix + edge.target}))  # fmt: skip
        for edge in edges:
            if edge.target == node.id:
                continue
            if edge.source == node.id:
                end = reaches.get(outputs.get(edge.source_port))
                if end is None:
                    continue
                source, port = end
                if source in ports:  # an input passed straight through to an output
                    source, port = feeds.get(ports[source][1], (None, None))
                    if source is None:
                        continue
                else:
                    source = prefix + source
                edge = edge.model_copy(update={"source": source, "source_port": port})
            wired.append(edge)
        placed = []
        for inner in inner_nodes:
            if inner.id in ports:
                continue
            if len(prefix + inner.id) > NODE_ID_MAX_LENGTH:
                self.problems.append(Problem(
                    f"the inlined node id '{prefix + inner.id}' is longer than "
                    f"{NODE_ID_MAX_LENGTH} characters; give this node a shorter id",
                    node=node.id, field="id", code="invalid"))  # fmt: skip
                return [], edges, {"inputs": {}, "outputs": {}}
            placed.append(inner.model_copy(update={"id": prefix + inner.id}))
        expected = {inner.params.get("name"): inner.params.get("columns") or []
                    for inner in inner_nodes if inner.operator == INPUT}  # fmt: skip
        wiring_in = {
            name: {"from": list(feeds[name]), "columns": expected.get(name, [])}
            for name in inputs
            if name in feeds
        }
        return (
            placed,
            wired,
            {
                "inputs": wiring_in,
                "outputs": self._outputs(prefix, outputs, reaches, ports, feeds),
            },
        )

    @staticmethod
    def _outputs(prefix, outputs, reaches, ports, feeds) -> dict[str, list[str]]:
        """Where each output port's rows come from once inlined: [node id, port]."""
        found = {}
        for name, output in outputs.items():
            source, port = reaches.get(output, (None, None))
            if source in ports:  # an input passed straight through
                source, port = feeds.get(ports[source][1], (None, None))
            elif source is not None:
                source = prefix + source
            if source is not None:
                found[name] = [source, port]
        return found

    def _check_ports(self, node: Node, inputs: dict, outputs: dict, edges: list[Edge]) -> None:
        used_in = {edge.target_port for edge in edges if edge.target == node.id}
        used_out = {edge.source_port for edge in edges if edge.source == node.id}
        sides = (("input", used_in, inputs), ("output", used_out, outputs))
        for direction, used, declared in sides:
            for port in sorted(used - set(declared)):
                self.problems.append(Problem(
                    f"the sub-pipeline has no {direction} '{port}' (it has: "
                    f"{', '.join(sorted(declared)) or 'none'})", node=node.id,
                    field=f"params.{direction}s", code="subpipeline_port"))  # fmt: skip
        for port in sorted(set(inputs) - used_in):
            self.problems.append(Problem(
                f"input '{port}' of the sub-pipeline is not connected", node=node.id,
                field="params.inputs", code="missing_input"))  # fmt: skip

    def _too_big(self) -> Problem:
        return Problem(
            f"with its sub-pipelines inlined the pipeline has more than {self.max_nodes} nodes",
            field="nodes",
            code="too_many_nodes",
        )


def _same_type(default, value) -> bool:
    if default is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, int | float):
        return isinstance(value, float if isinstance(default, float) else int) or (
            isinstance(default, float) and isinstance(value, int)
        )
    return isinstance(value, type(default))


def _type_name(default) -> str:
    names = {bool: "true or false", int: "a whole number", float: "a number", str: "text",
             list: "a list", dict: "an object"}  # fmt: skip
    return names.get(type(default), "a value")


def _prefixed(loop: dict, prefix: str) -> dict:
    """A nested loop's record under the prefix of the sub-pipeline node it was inlined into."""
    return {
        **loop,
        "iterations": [
            {**each, "nodes": [prefix + n for n in each["nodes"]]} for each in loop["iterations"]
        ],
        "added": [prefix + n for n in loop["added"]],
    }


def describe(inlined: Inlined) -> list[str]:
    """What `explain` adds: each sub-pipeline node and the nodes it became (the outer view), a
    loop's iterations one a line, and what each loop over groups or chunks iterates over."""
    lines = []
    for outer, entry in sorted(inlined.subpipelines.items()):
        revision = "" if entry["revision"] is None else f" @ revision {entry['revision']}"
        loop = entry.get("loop")
        if loop is not None:
            lines.append(f"for_each {outer} ('{entry['pipeline']}'{revision}) over "
                         f"'{loop['pattern']}': {len(loop['iterations'])} iterations, stacked "
                         f"by {', '.join(loop['added'])}")  # fmt: skip
            lines += [f"  {i}. {each['file']}: {', '.join(each['nodes']) or 'no nodes'}"
                      for i, each in enumerate(loop["iterations"], start=1)]  # fmt: skip
            continue
        lines.append(f"sub-pipeline {outer} ('{entry['pipeline']}'{revision}): "
                     f"{', '.join(entry['nodes']) or 'no nodes'}")  # fmt: skip
    return lines + [
        iterating(node.id, ForEachParams.model_validate(node.params))
        for node in inlined.document.nodes
        if node.operator == FOR_EACH and node.params.get("body")
    ]
