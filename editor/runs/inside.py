"""What ran inside a sub-pipeline node of a run: the inner pipeline as that run used it, for the
editor's "run inside" view (which maps the run's `<outer>__<inner>` node runs onto it).

A path names the node as the run's ids do: `sub` for a sub-pipeline node, `sub__nested` for one
inside it, `each__2` for the third iteration of a `for_each` node `each` (`each` alone: its
first). Each step is resolved as the run inlined it: in the outer pipeline's workspace only (a
reader of the run never reaches a pipeline of another workspace), "latest" as the newest
revision from before the run was made; the inner nodes carry the params the run gave them.
A run's own document has its sub-pipelines inlined: `drawn` is the outer pipeline as its user
drew it, with its sub-pipeline nodes, for the canvas of a past run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import ValidationError

from editor.errors import ActionError
from editor.models import Run
from editor.pipelines.documents import to_document
from editor.pipelines.revisions import version
from editor.pipelines.subpipelines import pipeline_id_of, resolver
from runtime import Pipeline as PipelineSpec
from runtime import load_document
from runtime.document.parameters import resolve_values, substitute
from runtime.document.spec import to_json_dict
from runtime.operators.subpipelines import SubpipelineParams
from runtime.plan.for_each import FOR_EACH
from runtime.plan.inline import MAX_DEPTH, SEPARATOR, SUBPIPELINE

MAX_PATH = 1000
"""A path this long is refused before it is walked; so is one nesting deeper than runs may."""

MAX_LABEL = 200
"""An iteration's label (its file) is cut to this many characters."""


@dataclass(frozen=True, slots=True)
class Inside:
    """The inner pipeline shown for `path`: its run ids start with `prefix`; `labels` name the
    outer nodes walked through; `loop` is `{node, iteration, iterations, labels}` inside a
    loop (`labels`: each iteration's file, None where it cannot be told)."""

    path: str
    prefix: str
    labels: list[str]
    pipeline_id: int
    name: str
    revision: int | None
    document: PipelineSpec
    loop: dict | None


def inside(run: Run, path: str) -> Inside:
    """The pipeline that ran inside the node `path` of `run`; 404 naming the path when the run
    has no such node, or when what ran there cannot be found any more."""
    if len(path) > MAX_PATH:
        raise _missing(run, path[:40] + "…")
    document = _outer_document(run)
    values = resolve_values(document.config.parameters, run.parameters)
    resolve = resolver(run.pipeline.workspace, as_of=run.created_at)
    prefix, rest, labels, loop, found = "", path, [], None, None
    while rest:
        node = next(
            (n for n in document.nodes if n.operator in (SUBPIPELINE, FOR_EACH)
             and (rest == n.id or rest.startswith(n.id + SEPARATOR))),
            None,
        )  # fmt: skip
        if node is None or len(labels) >= MAX_DEPTH:
            raise _missing(run, path)
        labels.append(node.label or node.id)
        prefix, rest = f"{prefix}{node.id}{SEPARATOR}", rest[len(node.id) + len(SEPARATOR) :]
        if node.operator == FOR_EACH:
            index, rest = _iteration(rest)
            loop = {"node": prefix[: -len(SEPARATOR)], "iteration": index,
                    "iterations": _iterations(run, prefix)}  # fmt: skip
            if index >= loop["iterations"]:
                raise _missing(run, path)
            prefix = f"{prefix}{index}{SEPARATOR}"
        params = _params(node, values)
        try:
            found = resolve(params, "")
        except LookupError as error:
            raise ActionError(404, "not_found", f"{labels[-1]}: {error.args[0]}") from None
        document = found.document
        if node.operator == FOR_EACH:
            loop["labels"] = _labels(run, loop, document, node.params.get("parameter"))
        values = resolve_values(document.config.parameters, params.parameters)
    if found is None:
        raise _missing(run, path)
    return Inside(
        path=path,
        prefix=prefix,
        labels=labels,
        pipeline_id=pipeline_id_of(found.key),
        name=found.title,
        revision=found.revision,
        document=_as_it_ran(document, run, prefix),
        loop=loop,
    )


def drawn(run: Run) -> PipelineSpec:
    """The pipeline of `run` as drawn (its sub-pipeline nodes, not what they were inlined as),
    each node with the params the run gave it."""
    return _as_it_ran(_outer_document(run), run, "")


def _outer_document(run: Run) -> PipelineSpec:
    """The outer pipeline at the revision the run started from (its sub-pipeline nodes: the
    run's own document has them inlined)."""
    kept = version(run.pipeline, run.revision) if run.revision is not None else None
    if kept is not None:
        return load_document(kept.document)
    if run.revision == run.pipeline.revision:
        return to_document(run.pipeline)
    raise ActionError(
        404,
        "not_found",
        f"revision {run.revision} of the pipeline is no longer kept: what ran inside its "
        f"sub-pipelines in run #{run.number} cannot be shown",
    )


def _iteration(rest: str) -> tuple[int, str]:
    """The iteration a path names after a loop node (0 when it names none), and what follows."""
    found = re.match(rf"(\d+)(?:{SEPARATOR}|$)", rest)
    if found is None:
        return 0, rest
    return int(found.group(1)), rest[found.end() :]


def _iterations(run: Run, loop_prefix: str) -> int:
    """How many iterations the loop whose copies start with `loop_prefix` ran."""
    copy = re.compile(rf"{re.escape(loop_prefix)}(\d+){SEPARATOR}")
    found = {m.group(1) for node in run.document.get("nodes", []) if (m := copy.match(node["id"]))}
    return len(found)


def _labels(run: Run, loop: dict, inner: PipelineSpec, parameter) -> list[str | None]:
    """Each iteration's file, as the run gave it to the inner pipeline: the value an inner
    param that is the loop's parameter alone (`"${path}"`) ran with in that iteration (the
    run keeps no other record of it); all None when no param is."""
    template = f"${{{parameter}}}"
    used = next(
        ((node.id, key) for node in inner.nodes for key, value in node.params.items()
         if value == template),
        None,
    )  # fmt: skip
    ran = {node["id"]: node for node in run.document.get("nodes", [])}
    labels = []
    for index in range(loop["iterations"]):
        value = None
        if used is not None:
            copy = ran.get(f"{loop['node']}{SEPARATOR}{index}{SEPARATOR}{used[0]}", {})
            value = copy.get("params", {}).get(used[1])
        labels.append(value[:MAX_LABEL] if isinstance(value, str) else None)
    return labels


def _params(node, values: dict) -> SubpipelineParams:
    raw, problems = substitute(node.params, SubpipelineParams, values, node=node.id)
    try:
        if problems:
            raise ValueError(problems[0].message)
        return SubpipelineParams.model_validate(
            {key: raw[key] for key in SubpipelineParams.model_fields if key in raw}
        )
    except (ValueError, ValidationError) as error:
        raise ActionError(
            404, "not_found", f"node '{node.id}' names no sub-pipeline: {error}", node=node.id
        ) from None


def _as_it_ran(document: PipelineSpec, run: Run, prefix: str) -> PipelineSpec:
    """`document` with each node's params as the run gave them (its parameters substituted)."""
    ran = {node["id"]: node for node in run.document.get("nodes", [])}
    nodes = [
        node.model_copy(update={"params": ran[prefix + node.id].get("params", node.params)})
        if prefix + node.id in ran
        else node
        for node in document.nodes
    ]
    return document.model_copy(update={"nodes": nodes})


def inside_json(run: Run, found: Inside) -> dict:
    return {
        "run": {"id": run.pk, "number": run.number, "status": run.status},
        "pipeline": {"id": run.pipeline.pk, "name": run.pipeline.name},
        "path": found.path,
        "prefix": found.prefix,
        "labels": found.labels,
        "inner": {"id": found.pipeline_id, "name": found.name, "revision": found.revision},
        "document": to_json_dict(found.document),
        "loop": found.loop,
    }


def _missing(run: Run, path: str) -> ActionError:
    return ActionError(
        404, "not_found", f"run #{run.number} has no sub-pipeline node '{path}'", node=path
    )
