"""Unrolling `for_each` nodes over files: one `subpipeline` node per matched file, their outputs
stacked; and the checks of every loop's own params (what each `over` needs).

A `for_each` node `F` over files f0..fn-1 becomes, in place:

- `F__0` .. `F__<n-1>`: `subpipeline` nodes, each with the file's path as the parameter the
  node names (`runtime.plan.inline` then inlines each, so its nodes are `F__<i>__<inner id>`);
- `F__<port>__<i>` (only with `key_column`): a `transform` adding the file's path as a column;
- `F__<port>`: a `union` of the copies' `<port>` outputs, in file order, which is what the
  outer edges from `F`'s `<port>` now leave from.

Edges into `F` go to every copy. The bound is the node's own `max_iterations`: more files is a
problem naming the count and the bound, never a silent cut. Port names never start with a
digit, so the ids of the unions and key columns never meet the copies'.

A loop over groups or chunks is not unrolled: its groups are known only when it runs. It stays
in the document with its params checked here; `runtime.plan.inline` gives it its `body`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from runtime.checks.analysis import analyse
from runtime.document.parameters import substitute
from runtime.document.problems import validation_problems
from runtime.document.spec import Edge, Node, Pipeline
from runtime.errors import OperatorError, Problem
from runtime.expressions.lexer import literal
from runtime.operators.subpipelines import (
    ForEachParams,
    SubpipelineParams,
    runs_per_iteration,
)

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
        if runs_per_iteration(params):
            nodes.append(node.model_copy(update={"params": params.model_dump(exclude={"body"})}))
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
        params = ForEachParams.model_validate(raw)
    except ValidationError as error:
        found = validation_problems(
            error.errors(), ForEachParams, node=node.id, prefix="params", words=UNBOUNDED
        )
        return None, found
    found = [
        Problem(message, node=node.id, field=f"params.{field}", code="invalid")
        for field, message in missing_for(params)
    ]
    return (None, found) if found else (params, [])


NEEDS = {
    "files": (
        ("pattern", "a loop over files needs a pattern of files, e.g. orders/*.csv"),
        ("parameter", "name the inner parameter that receives each file's path"),
    ),
    "groups": (("group_by", "a loop over groups needs the columns to group the rows by"),),
    "chunks": (
        ("chunk_rows", "a loop over chunks needs how many rows each chunk holds (1 or more)"),
        ("parameter", "name the inner parameter that receives each chunk's number"),
    ),
}
"""What each kind of loop cannot do without: the field, and what to do."""


def missing_for(params: ForEachParams) -> list[tuple[str, str]]:
    """(field, message) of each param the loop's `over` needs and lacks, or cannot take."""
    found = [(name, why) for name, why in NEEDS[params.over] if getattr(params, name) in (None, [])]
    if params.over == "groups" and params.parameter and len(params.group_by) > 1:
        found.append((
            "parameter",
            "a loop over several group columns gives each column's value to the inner "
            "parameter of its name; leave the key parameter empty",
        ))  # fmt: skip
    return found


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


def key_parameters(params: ForEachParams, declared: dict) -> list[str | None]:
    """For each part of an iteration's key, the inner parameter it goes to (None: none): over
    chunks, or one group column with `parameter` set, that parameter; over groups otherwise,
    the parameter named after each column, when the inner pipeline declares one."""
    if params.parameter:
        return [params.parameter]
    return [column if column in declared else None for column in params.group_by]


def body_problems(node_id: str, params: ForEachParams, body: Pipeline) -> list[Problem]:
    """What keeps `body` from running once per group or chunk of `node_id`'s input: it reads
    exactly one input (the rows of each iteration), gives the outputs the node draws, declares
    the key's parameter, and is a valid document (its params, with the key at its default)."""
    found = []

    def problem(field: str, message: str, code: str = "subpipeline_port") -> None:
        found.append(Problem(message, node=node_id, field=f"params.{field}", code=code))

    inputs = [node.params.get("name") for node in body.nodes if node.operator == "pipeline_input"]
    outputs = {node.params.get("name") for node in body.nodes if node.operator == "pipeline_output"}
    if len(inputs) != 1:
        problem("inputs", f"a loop over {params.over} hands each iteration's rows to one "
                f"input of '{body.name}', which has {len(inputs)}: give it exactly one "
                "pipeline_input")  # fmt: skip
    elif params.inputs != inputs:
        problem("inputs", f"the loop's input port must be '{inputs[0]}', the input of "
                f"'{body.name}'")  # fmt: skip
    for port in params.outputs:
        if port not in outputs:
            problem("outputs", f"'{body.name}' has no output '{port}' (it has: "
                    f"{', '.join(sorted(map(str, outputs))) or 'none'})")  # fmt: skip
    found += [
        Problem(f"in '{body.name}': {problem}", node=node_id, field="params.pipeline",
                code=problem.code)
        for problem in analyse(body).problems
    ]  # fmt: skip
    declared = body.config.parameters
    if params.parameter and params.parameter not in declared:
        known = ", ".join(sorted(declared)) or "none"
        problem("parameter", f"'{body.name}' has no parameter '{params.parameter}' (it declares: "
                f"{known})", "unknown_parameter")  # fmt: skip
    return found


def iterating(node_id: str, params: ForEachParams) -> str:
    """`explain`'s line for a loop over groups or chunks: what it iterates over, its bound, where
    the key goes, and its body's nodes (which run once per iteration, inside the node)."""
    body = Pipeline.model_validate(params.body)
    if params.over == "groups":
        over = f"the groups of {', '.join(params.group_by)} of its input"
        keys = [name for name in key_parameters(params, body.config.parameters) if name]
        to = f"the key to parameter {', '.join(keys)}" if keys else "no key parameter"
    else:
        over = f"chunks of {params.chunk_rows:,} rows of its input"
        to = f"the chunk's number (from 0) to parameter {params.parameter}"
    column = f", key column {params.key_column}" if params.key_column else ""
    nodes = ", ".join(node.id for node in body.nodes)
    return (
        f"for_each {node_id} ('{body.name}') over {over}, at most "
        f"{params.max_iterations:,} iterations, {to}{column}, stacked in key order: runs "
        f"{nodes} once per iteration when the pipeline runs (pandas)"
    )
