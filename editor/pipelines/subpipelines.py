"""Sub-pipelines in the editor: which saved pipeline a `subpipeline` node names, and the
inlined document the engine is given (runs snapshot it, plans and checks read it).

A node names a pipeline of its own workspace (by id, or by a name unique there) and a revision
(`latest`, or a number history keeps). Pipelines of other workspaces are never found, whoever
asks: a workspace's members read all its pipelines, so anyone who may read the outer pipeline
may read every pipeline inlined into it, and nothing of another workspace reaches its runs.
"""

from __future__ import annotations

from datetime import datetime

from editor.errors import problems_error
from editor.models import Node, Pipeline, Workspace
from editor.pipelines.documents import to_document
from editor.pipelines.revisions import version
from editor.workspaces.membership import file_area
from runtime import Pipeline as PipelineSpec
from runtime import load_document
from runtime.errors import PipelineValidationError
from runtime.operators.subpipelines import SubpipelineParams
from runtime.plan.inline import INPUT, OUTPUT, SEPARATOR, Inlined, InnerPipeline, inline
from runtime.plan.inline_files import files_in
from runtime.tables.schema import a_type


def pipeline_key(pipeline_id: int) -> str:
    return f"pipeline {pipeline_id}"


def pipeline_id_of(key: str) -> int:
    """The id in a `pipeline_key`."""
    return int(key.removeprefix("pipeline "))


def resolver(workspace: Workspace, as_of: datetime | None = None):
    """The `Resolve` of `runtime.plan.inline` over `workspace`'s saved pipelines; `as_of` (a
    run's creation) makes "latest" the newest revision kept from before then, as that run saw."""

    def resolve(params: SubpipelineParams, within: str) -> InnerPipeline:
        found = _named(workspace, params.pipeline)
        if params.revision == "latest":
            kept = _latest(found, as_of)
            document = load_document(kept.document) if kept else to_document(found)
            number = kept.revision if kept else found.revision
        else:
            kept = version(found, params.revision)
            if kept is None:
                raise LookupError(
                    f"revision {params.revision} of '{found.name}' is not kept; choose one its "
                    f"history lists, or 'latest' (now {found.revision})"
                )
            document, number = load_document(kept.document), params.revision
        return InnerPipeline(pipeline_key(found.pk), found.name, document, revision=number)

    return resolve


def _latest(pipeline: Pipeline, as_of: datetime | None):
    if as_of is None:
        return version(pipeline, pipeline.revision)
    before = pipeline.revisions.filter(created_at__lte=as_of).order_by("-revision").first()
    return before or version(pipeline, pipeline.revision)


def _named(workspace: Workspace, reference: int | str) -> Pipeline:
    """The workspace's pipeline with this id (or id as text), else with this name."""
    pipelines = Pipeline.objects.filter(workspace=workspace)
    by_id = reference if isinstance(reference, int) else None
    if isinstance(reference, str) and reference.isdigit():
        by_id = int(reference)
    found = list(pipelines.filter(pk=by_id)[:1] if by_id else pipelines.filter(name=reference)[:2])
    if len(found) != 1:
        which = "no" if not found else "more than one"
        raise LookupError(
            f"workspace '{workspace.slug}' has {which} pipeline {reference!r}; choose one "
            "from the palette's Sub-pipelines"
        )
    return found[0]


def inlined(pipeline: Pipeline, document: PipelineSpec, parameters: dict | None = None) -> Inlined:
    """`document` (of `pipeline`) with its sub-pipelines inlined from the same workspace and
    its loops unrolled over the files of the workspace's folder (as every member reads them);
    `PipelineValidationError` naming node and field when one cannot be."""
    return inline(
        document,
        resolver(pipeline.workspace),
        key=pipeline_key(pipeline.pk),
        title=pipeline.name,
        parameters=parameters,
        files=lambda pattern: files_in(file_area(pipeline.workspace, None))(pattern),
    )


def checked_inlined(
    pipeline: Pipeline, document: PipelineSpec | None = None, parameters: dict | None = None
) -> tuple[Inlined, list]:
    """`inlined`, or the document as it is with the problems that kept it from being inlined
    (for checks that report problems rather than refuse)."""
    document = document or to_document(pipeline)
    try:
        return inlined(pipeline, document, parameters), []
    except PipelineValidationError as error:
        return Inlined(document), error.problems


def usable(workspace: Workspace) -> list[dict]:
    """The workspace's pipelines that declare inputs or outputs: their ports and parameters
    (never their nodes), as the palette offers them."""
    declaring = Node.objects.filter(pipeline__workspace=workspace, operator__in=(INPUT, OUTPUT))
    ports: dict[int, dict] = {}
    for pipeline_id, operator, params in declaring.values_list(
        "pipeline_id", "operator", "params"
    ).order_by("pipeline_id", "node_id"):
        entry = ports.setdefault(pipeline_id, {"inputs": [], "outputs": []})
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str):
            continue
        if operator == INPUT:
            entry["inputs"].append({"name": name, "columns": params.get("columns") or []})
        else:
            entry["outputs"].append({"name": name})
    pipelines = Pipeline.objects.filter(pk__in=ports).order_by("name", "pk")
    return [
        {
            "id": pipeline.pk,
            "name": pipeline.name,
            "description": pipeline.description,
            "revision": pipeline.revision,
            "revisions": list(kept.values_list("revision", flat=True)),
            "parameters": (pipeline.config or {}).get("parameters", {}),
            **ports[pipeline.pk],
        }
        for pipeline in pipelines
        for kept in [pipeline.revisions.order_by("-revision")]
    ]


def inlined_or_refused(
    pipeline: Pipeline,
    document: PipelineSpec | None = None,
    parameters: dict | None = None,
    *,
    summary: str = "the pipeline cannot run",
) -> Inlined:
    """`inlined`, or a 422 `invalid_pipeline` naming the node and field of each problem."""
    try:
        return inlined(pipeline, document or to_document(pipeline), parameters)
    except PipelineValidationError as error:
        raise problems_error(422, "invalid_pipeline", summary, error.problems) from error


def on_the_canvas(problems: list[dict], subpipelines: dict[str, dict]) -> list[dict]:
    """Problems of inlined nodes as the canvas shows them: at the sub-pipeline node."""
    outer_of = {
        member: outer
        for outer, entry in subpipelines.items()
        if SEPARATOR not in outer
        for member in entry["nodes"]
    }
    return [
        {**problem, "node": outer_of[problem["node"]], "field": "params.pipeline",
         "field_title": None, "message": f"{problem['node']}: {problem['message']}",
         "line": None, "column": None, "end_column": None}
        if problem.get("node") in outer_of
        else problem
        for problem in problems
    ]  # fmt: skip


def previewed(inlined: Inlined, node: str, port: str | None) -> tuple[str, str | None, str | None]:
    """The inlined node and port a preview of `node`'s `port` reads, and the port it shows: a
    sub-pipeline node's output is the inner node that feeds it (its first output when no port
    is named)."""
    outputs = inlined.subpipelines.get(node, {}).get("outputs")
    if not outputs:
        return node, port, port
    shown = port or next(iter(outputs))
    source = outputs.get(shown)
    return (source[0], source[1], shown) if source else (node, port, port)


def with_subpipeline_columns(found: dict, subpipelines: dict[str, dict]) -> dict:
    """Inferred schemas (`InferredSchemas.to_json()`) with each sub-pipeline node's own: the
    columns reaching its inputs and leaving its outputs; and a problem for each column its
    inner pipeline expects that an input lacks or has of another type."""
    nodes, problems = dict(found["nodes"]), list(found["problems"])
    for outer, entry in subpipelines.items():
        if SEPARATOR in outer:
            continue
        inputs = {
            name: _port_columns(nodes, wiring["from"]) for name, wiring in entry["inputs"].items()
        }
        outputs = {name: _port_columns(nodes, source) for name, source in entry["outputs"].items()}
        own = [
            problem
            for name, wiring in entry["inputs"].items()
            for problem in _expectation_problems(outer, name, wiring["columns"], inputs[name])
        ]
        outputs = {name: columns for name, columns in outputs.items() if columns is not None}
        nodes[outer] = {"inputs": inputs, "outputs": outputs, "problems": own}
        problems += own
    return {**found, "nodes": nodes, "problems": problems}


def _port_columns(nodes: dict, source: list) -> list | None:
    node, port = source
    return (nodes.get(node) or {}).get("outputs", {}).get(port)


def _expectation_problems(node: str, port: str, expected: list, columns: list | None) -> list:
    if columns is None:  # not known: the node feeding it says why
        return []
    types = {column["name"]: column["type"] for column in columns}
    problems = []
    for column in expected:
        name, wanted = column.get("name"), column.get("type")
        if name not in types:
            message = f"input '{port}' has no column '{name}' the sub-pipeline expects"
        elif wanted and types[name] != wanted:
            message = (
                f"input '{port}': column '{name}' is {a_type(types[name])}, the sub-pipeline "
                f"expects {a_type(wanted)}"
            )
        else:
            continue
        problems.append(
            {"code": "schema", "node": node, "field": "params.inputs", "field_title": None,
             "message": message}
        )  # fmt: skip
    return problems
