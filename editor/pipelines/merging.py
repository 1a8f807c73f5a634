"""A stale save merged with the save made meanwhile (`editor.pipelines.merge` decides how).

A save names the revision it started from and, to be merged, that revision's document (its
`base`): history cannot give it back, since it compacts one user's quick saves into one version.
A clean merge is saved as any save is, over the revision it was merged with; a conflict is a
409 naming who saved meanwhile, what both changed and carrying their document, so that the
editor can show both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

from editor.errors import ActionError
from editor.models import Pipeline
from editor.pipelines.documents import to_document
from editor.pipelines.merge import merge_documents
from runtime import Pipeline as PipelineSpec
from runtime import PipelineValidationError, load_document
from runtime.checks.analysis import structural_problems
from runtime.document.spec import to_json_dict

SOMEONE = "Someone else"


@dataclass
class Merged:
    """The merged document, and what it took from the other save (as `SavedPipeline.merged`)."""

    document: PipelineSpec
    revision: int
    taken: dict


def display_name(user) -> str:
    """How the editor names a person to the others: their full name, else their username."""
    if user is None:
        return SOMEONE
    return user.get_full_name() or user.get_username()


def last_saved_by(pipeline: Pipeline) -> str:
    """Who made the pipeline's current revision (the newest version's author)."""
    newest = pipeline.revisions.select_related("author").first()
    return display_name(newest.author if newest else None)


def merge_stale(pipeline: Pipeline, mine: PipelineSpec, base: object) -> Merged:
    """`mine`, saved over `base`, merged with the pipeline as it is now; 409 on a conflict."""
    base_document = _base_document(base)
    saved = to_document(pipeline)
    theirs = to_json_dict(saved)
    merge = merge_documents(base_document, theirs, to_json_dict(mine))
    who = last_saved_by(pipeline)
    if not merge.clean:
        names = ", ".join(conflict["label"] for conflict in merge.conflicts)
        what = f"{who} saved this pipeline meanwhile and changed what you changed: {names}"
        raise _conflict(pipeline, who, theirs, what, merge.conflicts)
    try:
        document = load_document(merge.document)
    except PipelineValidationError as error:  # a merge of two valid documents should not fail
        what = f"{who} saved this pipeline meanwhile; the two versions do not merge: {error}"
        raise _conflict(pipeline, who, theirs, what) from None
    broken = structural_problems(document)
    if broken and not structural_problems(mine):  # each side alone saves: together, a cycle (say)
        conflicts = [
            {"kind": "node", "id": problem.node, "label": problem.node, "reason": problem.message}
            for problem in broken
        ]
        reasons = "; ".join(problem.message for problem in broken)
        what = (
            f"{who} saved this pipeline meanwhile; together the two versions do not save: {reasons}"
        )
        raise _conflict(pipeline, who, theirs, what, conflicts)
    labels = {node.id: node.label or node.id for node in (*saved.nodes, *document.nodes)}
    nodes = [
        {"id": node_id, "label": labels.get(node_id, node_id)} for node_id in merge.from_theirs
    ]
    taken = {"by": who, "revision": pipeline.revision, "nodes": nodes}
    return Merged(document, pipeline.revision, taken)


def _conflict(
    pipeline: Pipeline, who: str, theirs: dict, message: str, conflicts: list[dict] = ()
) -> ActionError:
    """The 409 of a stale save that does not merge: who saved meanwhile, what clashes, and
    their document (for the editor's side-by-side)."""
    return ActionError(
        409,
        "conflict",
        message,
        revision=pipeline.revision,
        saved_by=who,
        conflicts=list(conflicts),
        theirs={**theirs, "revision": pipeline.revision},
    )


def _base_document(base: object) -> dict:
    """The client's base, in the form `to_json_dict` gives (so that equal means unchanged)."""
    if not isinstance(base, dict):
        raise ActionError(400, "invalid_request", "base must be a pipeline document", field="base")
    fields = {key: value for key, value in base.items() if key in PipelineSpec.model_fields}
    try:
        return to_json_dict(load_document(fields))
    except PipelineValidationError:
        raise ActionError(
            400, "invalid_request", "base is not the pipeline document you loaded", field="base"
        ) from None
