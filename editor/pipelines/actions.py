"""What users do to pipelines, each in one transaction: create, save, delete, duplicate.

Views, admin actions and management commands parse their input and call these; these check
the document (a half-built graph is fine, a meaningless one is not), write its rows and its
history, and record the change in the audit log, in the caller's transaction.
"""

from __future__ import annotations

from django.db import transaction

from editor.audit import log as audit_log
from editor.errors import ActionError, problems_error
from editor.live import presence
from editor.models import Pipeline, Workspace
from editor.pipelines import revisions
from editor.pipelines.documents import replace_graph, to_document
from editor.pipelines.merging import display_name, last_saved_by
from editor.runs import launcher
from editor.workspaces.membership import personal_workspace
from runtime import Pipeline as PipelineSpec
from runtime import Problem, RunStatus
from runtime.checks.analysis import structural_problems
from runtime.document.spec import NAME_MAX_LENGTH, to_json_dict


def save_problems(document: PipelineSpec, found: list[Problem] | None = None) -> list[Problem]:
    """What refuses a save of `document` (among `found`, when the caller analysed it): a
    half-built graph is fine, a meaningless one is not."""
    return structural_problems(document, problems=found)


def _check_structure(document: PipelineSpec, found: list[Problem] | None = None) -> None:
    problems = save_problems(document, found)
    if problems:
        raise problems_error(400, "invalid_document", "the pipeline cannot be saved", problems)


@transaction.atomic
def create_pipeline(
    owner,
    document: PipelineSpec,
    workspace: Workspace | None = None,
    summary: str = "created",
    how: str = "created",
    details: dict | None = None,
) -> Pipeline:
    """A new pipeline from a document in `workspace` (default: the owner's personal one); a
    half-built graph is fine, a cyclic one is not. `summary` starts its history; `how` it
    came to be (`created`, `imported`, `duplicated`) names it in the audit log."""
    _check_structure(document)
    workspace = workspace or personal_workspace(owner)
    pipeline = Pipeline.objects.create(owner=owner, workspace=workspace, name=document.name)
    replace_graph(pipeline, document)
    revisions.record_creation(pipeline, to_json_dict(document), owner, summary)
    audit_log.record(
        f"pipeline.{how}", pipeline, revision=pipeline.revision, details=details, user=owner
    )
    return pipeline


@transaction.atomic
def save_pipeline(
    pipeline: Pipeline,
    document: PipelineSpec,
    revision: int,
    author,
    found: list[Problem] | None = None,
    restored: int | None = None,
) -> Pipeline:
    """Replace the whole graph, unless someone saved since `revision` (409, never a silent loss),
    and keep it in history as `author`'s; `found`: the problems an analysis of `document`
    found, when the caller has them; `restored`: the revision a restore brings back."""
    current = Pipeline.objects.select_for_update().get(pk=pipeline.pk)
    if revision != current.revision:
        who = last_saved_by(current)
        raise ActionError(
            409,
            "conflict",
            f"the pipeline was saved by {who} meanwhile (revision {current.revision}, "
            f"yours is {revision}); send the document you started from as `base` to merge, "
            f"reload it, or save again with revision {current.revision} to overwrite",
            revision=current.revision,
            saved_by=who,
        )
    _check_structure(document, found)
    revisions.start_history(current)
    current.revision += 1
    before = current.name
    replace_graph(current, document)
    revisions.record_save(current, to_json_dict(document), author, restored)
    _record_save(current, before, author, restored)
    presence.announce_save(current.pk, current.revision, author, display_name(author))
    return current


def _record_save(pipeline: Pipeline, before: str, author, restored: int | None) -> None:
    details = {"restored": restored} if restored is not None else {}
    if pipeline.name != before:
        details.update(renamed_from=before)
    action = (
        "restored" if restored is not None else "renamed" if pipeline.name != before else "saved"
    )
    audit_log.record(
        f"pipeline.{action}", pipeline, revision=pipeline.revision, details=details, user=author
    )


@transaction.atomic
def delete_pipeline(pipeline: Pipeline) -> None:
    """Delete the pipeline with its runs (cancelling an active one first).

    The pipeline's row is locked first, as a run's start locks it to queue the run: a run
    queued meanwhile is committed before its runs are collected, so it goes too (else it
    broke the deletion's foreign key check on PostgreSQL), and a start after the deletion
    finds the pipeline gone (`editor.runs.actions.queue_checked`)."""
    list(Pipeline.objects.select_for_update().filter(pk=pipeline.pk).values_list("pk"))
    for run in pipeline.runs.filter(status__in=RunStatus.ACTIVE):
        launcher.cancel(run.pk)
    audit_log.record("pipeline.deleted", pipeline, revision=pipeline.revision)
    pipeline.delete()


@transaction.atomic
def import_pipeline(
    owner, document: PipelineSpec, workspace: Workspace | None = None, summary: str = "imported"
) -> Pipeline:
    """A pipeline from an exported document; named '… (2)', '… (3)' when its workspace already
    has a pipeline of that name, so that an import never looks like the pipeline it came from."""
    workspace = workspace or personal_workspace(owner)
    document = document.model_copy(update={"name": unused_name(workspace, document.name)})
    return create_pipeline(owner, document, workspace, summary, how="imported")


def unused_name(workspace: Workspace, name: str) -> str:
    """`name`, or the first of '`name` (2)', '`name` (3)', … no pipeline of `workspace` has."""
    taken = set(
        Pipeline.objects.filter(workspace=workspace, name__startswith=name[:150]).values_list(
            "name", flat=True
        )
    )
    if name not in taken:
        return name
    number = 2
    while (candidate := _numbered(name, number)) in taken:
        number += 1
    return candidate


def _numbered(name: str, number: int) -> str:
    suffix = f" ({number})"
    return name[: NAME_MAX_LENGTH - len(suffix)] + suffix


@transaction.atomic
def duplicate_pipeline(pipeline: Pipeline, owner) -> Pipeline:
    """A copy of the pipeline's graph in its workspace, named '… (copy)', owned by `owner`,
    filed in the same folder with the same tags."""
    document = to_document(pipeline)
    document = document.model_copy(update={"name": f"{document.name} (copy)"[:200]})
    copy = create_pipeline(
        owner,
        document,
        pipeline.workspace,
        f"copied from '{pipeline.name}'",
        how="duplicated",
        details={"copied_from": pipeline.pk},
    )
    if pipeline.folder or pipeline.tags:
        copy.folder, copy.tags = pipeline.folder, list(pipeline.tags)
        Pipeline.objects.filter(pk=copy.pk).update(folder=copy.folder, tags=copy.tags)
    return copy
