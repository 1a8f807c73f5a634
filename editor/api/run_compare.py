"""Comparing two runs: `GET /api/runs/compare?a=&b=&keys=&node=`.

Mounted under `/runs` before the router of `/runs/{id}`. The two runs may be of one pipeline
or of two, as long as the user may see both (else 404, naming which); `keys` are column
names separated by commas (blanks around each are dropped), with which the rows of output
nodes are compared; `node` narrows that to one output node.
"""

from __future__ import annotations

from typing import Annotated

from django.http import Http404
from ninja import Query, Router

from editor.api.representations import run_json
from editor.api.schemas.contract import ObjectId, answers
from editor.api.schemas.run_compare import RunComparison
from editor.errors import ActionError
from editor.runs import comparisons
from editor.workspaces.permissions import run_for
from runtime.document.spec import NODE_ID_MAX_LENGTH

router = Router()

MAX_KEYS_LENGTH = 4000

KEYS = Query(
    alias="keys",  # a parameter named `keys` breaks django-ninja: it reads params as a mapping
    max_length=MAX_KEYS_LENGTH,
    description="Key columns, separated by commas: the rows of output nodes are compared.",
)
NODE = Query(max_length=NODE_ID_MAX_LENGTH, description="The output node to compare.")


@router.get(
    "/compare", response=answers({200: RunComparison}, 404, 429), summary="Compare two runs"
)
def compare_runs(
    request,
    a: ObjectId,
    b: ObjectId,
    key_list: Annotated[str | None, KEYS] = None,
    node: Annotated[str | None, NODE] = None,
):
    """Per node: status, rows in and out, duration and reuse in each run, the document fields
    that changed, columns added, removed and retyped; with `keys`, the rows added, removed and
    changed at output nodes (counts and samples). 422 `cannot_compare` names the field at
    fault (`keys`, `node`); a stored result that is gone reads "data not kept"."""
    runs = {field: _visible(request.user, field, run_id) for field, run_id in (("a", a), ("b", b))}
    names = _keys(key_list)
    nodes = comparisons.compare(request.user, runs["a"], runs["b"], names, node)
    return {
        **{field: _summary(run) for field, run in runs.items()},
        "keys": names,
        "node": node,
        "nodes": nodes,
    }


def _visible(user, field: str, run_id: int):
    try:
        return run_for(user, run_id)
    except Http404:
        raise ActionError(404, "not_found", f"no such run: {run_id}", field=field) from None


def _keys(text: str | None) -> list[str]:
    if text is None:
        return []
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise ActionError(
            422, "cannot_compare", "keys: name each key column, separated by commas",
            field="keys",
        )  # fmt: skip
    return names


def _summary(run) -> dict:
    return {**run_json(run, with_nodes=False), "pipeline_name": run.pipeline.name}
