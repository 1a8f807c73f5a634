"""Unrolling `for_each` nodes: one `subpipeline` node per matched file, their outputs stacked.

A `for_each` node `F` over files f0..fn-1 becomes, in place:

- `F__0` .. `F__<n-1>`: `subpipeline` nodes, each with the file's path as the parameter the
  node names (`runtime.plan.inline` then inlines each, so its nodes are `F__<i>__<inner id>`);
- `F__<port>__<i>` (only with `key_column`): a `transform` adding the file's path as a column;
- `F__<port>`: a `union` of the copies' `<port>` outputs, in file order, which is what the
  outer edges from `F`'s `<port>` now leave from.

Edges into `F` go to every copy. The bound is the node's own `max_iterations`: more files is a
problem naming the count and the bound, never a silent cut. Port names never start with a
digit, so the ids of the unions and key columns never meet the copies'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from runtime.document.parameters import substitute
from runtime.document.problems import validation_problems
from runtime.document.spec import Edge, Node, Pipeline
from runtime.errors import OperatorError, Problem
from runtime.expressions.lexer import literal
from runtime.operators.subpipelines import ForEachParams, SubpipelineParams

FOR_EACH = "for_each"
SEPARATOR = "__"

UNBOUNDED = {"missing": "required: a loop declares the most iterations it may run (1 to 1,000)"}

Files = Callable[[str], list[str]]
"""`files(pattern)`: the paths the pattern matches under the data root, sorted, maybe none;
raises `OperatorError` (`UnsafePathError` for one leading out) when it cannot say."""


@dataclass(frozen=True, slots=True)
class Loop:
    """What one `for_each` node became: its copies (by id) in file order, and its unions."""

    node: str
    parameter: str
    pattern: str
    files: list[str]
    copies: list[str]
    added: list[str]
    outputs: dict[str, list[str]]


def uses_loops(pipeline: Pipeline) -> bool:
    return any(node.operator == FOR_EACH for node in pipeline.nodes)


def unrolled(
    pipeline: Pipeline, values: dict, files: Files | None
) -> tuple[Pipeline, list[Loop], list[Problem]]:
    """`pipeline` with each `for_each` node unrolled over its files (`values`: the pipeline's
    parameter values, for `${...}` in the node's params), what each became, and the problems
    of those that could not be (left out of the document)."""
    nodes: list[Node] = []
    edges = list(pipeline.edges)
    loops: list[Loop] = []
    problems: list[Problem] = []
    for node in pipeline.nodes:
        if node.operator != FOR_EACH:
            nodes.append(node)
            continue
        params, found = _params(node, values)
        if params is None:
            problems += found
            continue
        matched, found = _files(node, params, files)
        if matched is None:
            problems += found
            continue
        if not matched:  # no file: the node itself gives the declared empty table
            nodes.append(node.model_copy(update={"params": params.model_dump()}))
            continue
        placed, edges, loop = _unroll(node, params, matched, edges)
        nodes += placed
        loops.append(loop)
    return pipeline.model_copy(update={"nodes": nodes, "edges": edges}), loops, problems


def _params(node: Node, values: dict) -> tuple[ForEachParams | None, list[Problem]]:
    raw, problems = substitute(node.params, ForEachParams, values, node=node.id)
    if problems:
        return None, problems
    try:
        return ForEachParams.model_validate(raw), []
    except ValidationError as error:
        found = validation_problems(
            error.errors(), ForEachParams, node=node.id, prefix="params", words=UNBOUNDED
        )
        return None, found


def _files(node: Node, params: ForEachParams, files: Files | None):
    def problem(message: str, field: str = "params.pattern", code: str = "invalid"):
        return None, [Problem(message, node=node.id, field=field, code=code)]

    if files is None:
        return problem("a loop over files needs the data root, which this caller does not give")
    try:
        matched = files(params.pattern)
    except OperatorError as error:
        return problem(str(error))
    if len(matched) > params.max_iterations:
        return problem(
            f"'{params.pattern}' matches {len(matched):,} files, more than the "
            f"{params.max_iterations:,} iterations this loop allows; raise max_iterations (at "
            "most 1,000) or narrow the pattern",
            "params.max_iterations",
            "too_many_iterations",
        )
    if not matched and not params.columns:
        return problem(
            f"no files match '{params.pattern}', and the loop declares no columns for an empty "
            "result; add the files or declare the columns (params.columns)",
            code="no_files",
        )
    return matched, []


def _unroll(node: Node, params: ForEachParams, files: list[str], edges: list[Edge]):
    """The nodes replacing `node`, the edges rewired to them, and the `Loop` they make."""
    prefix = f"{node.id}{SEPARATOR}"
    inner = params.model_dump(include=set(SubpipelineParams.model_fields))
    into = [edge for edge in edges if edge.target == node.id]
    out_of = [edge for edge in edges if edge.source == node.id]
    ports = sorted({edge.source_port for edge in out_of})
    copies = [
        Node(id=f"{prefix}{i}", operator="subpipeline",
             params={**inner, "parameters": {**params.parameters, params.parameter: file}})
        for i, file in enumerate(files)
    ]  # fmt: skip
    added: list[Node] = []
    rewired = [edge for edge in edges if node.id not in (edge.source, edge.target)]
    rewired += [edge.model_copy(update={"target": copy.id}) for copy in copies for edge in into]
    for port in ports:
        union = f"{prefix}{port}"
        for i, copy in enumerate(copies):
            source = copy.id
            if params.key_column:
                source = f"{union}{SEPARATOR}{i}"
                mapping = {"target": params.key_column, "expression": literal(files[i])}
                added.append(Node(id=source, operator="transform",
                                  params={"mappings": [mapping]}))  # fmt: skip
                rewired.append(Edge(source=copy.id, source_port=port, target=source))
                rewired.append(Edge(source=source, target=union))
            else:
                rewired.append(Edge(source=copy.id, source_port=port, target=union))
        added.append(Node(id=union, operator="union"))
    rewired += [edge.model_copy(update={"source": f"{prefix}{edge.source_port}",
                                        "source_port": "out"}) for edge in out_of]  # fmt: skip
    loop = Loop(
        node=node.id,
        parameter=params.parameter,
        pattern=params.pattern,
        files=files,
        copies=[copy.id for copy in copies],
        added=[added_node.id for added_node in added],
        outputs={port: [f"{prefix}{port}", "out"] for port in ports},
    )
    return [*copies, *added], rewired, loop
