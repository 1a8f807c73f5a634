"""A pipeline's history: which saves keep a version of its document, and which replace one.

Every version is a `PipelineRevision`; the newest is the pipeline as it is now, so any two
versions can be compared and any one restored. A save that only moves things updates the
newest version in place; so does a save by the author of the newest version within
`COMPACT_WITHIN` of its first save (typing in a form saves every few seconds, and nobody wants
a revision per keystroke). At most `PIPEWRIGHT_KEEP_REVISIONS` versions, and at most
`PIPEWRIGHT_KEEP_REVISIONS_MB` of documents, are kept for a pipeline: the oldest go first, but
the newest `ALWAYS_KEPT` stay whatever their size (the last change can always be undone).
Pipelines saved before history existed get their first version at their next save
(`start_history`). The callers (`editor.pipelines.actions`) hold the pipeline's row lock, so
two saves never interleave.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from editor.models import Pipeline, PipelineRevision
from editor.pipelines.documents import to_document
from runtime.document.diff import changes_content, diff_documents, summarise
from runtime.document.spec import to_json_dict

COMPACT_WITHIN = timedelta(minutes=1)
ALWAYS_KEPT = 2
SUMMARY_LENGTH = PipelineRevision._meta.get_field("summary").max_length
Kind = PipelineRevision.Kind


def record_creation(pipeline: Pipeline, document: dict, author, summary: str = "created") -> None:
    """The first version of a new pipeline."""
    PipelineRevision.objects.create(
        pipeline=pipeline,
        revision=pipeline.revision,
        kind=Kind.CREATED,
        document=document,
        size=_size(document),
        author=author,
        summary=summary[:SUMMARY_LENGTH],
    )


def start_history(pipeline: Pipeline) -> None:
    """Give a pipeline saved before history existed its first version: the stored one (two
    requests doing it at once make one)."""
    if pipeline.revisions.exists():
        return
    try:
        with transaction.atomic():
            document = to_json_dict(to_document(pipeline))
            PipelineRevision.objects.create(
                pipeline=pipeline,
                revision=pipeline.revision,
                kind=Kind.CREATED,
                document=document,
                size=_size(document),
                summary="as it was before history was kept",
            )
    except IntegrityError:
        pass  # the other request's version is the same document


def record_save(pipeline: Pipeline, after: dict, author, restored: int | None = None) -> None:
    """Keep `after`, which `author` just saved, as history's rules say (`start_history` ran
    before the save); `restored`: the revision whose document `after` is, for a restore."""
    newest = pipeline.revisions.first()
    now = timezone.now()
    diff = diff_documents(newest.document, after)
    if restored is None and not changes_content(diff):
        _replace(newest, after, now)
    elif restored is None and _absorbs(newest, author, now):
        base = pipeline.revisions.filter(revision__lt=newest.revision).first()
        summary = summarise(diff_documents(base.document, after)) if base else newest.summary
        _replace(newest, after, now, summary)
    else:
        summary = summarise(diff)
        if restored is not None:
            summary = f"restored revision {restored}: {summary}"
        PipelineRevision.objects.create(
            pipeline=pipeline,
            revision=pipeline.revision,
            kind=Kind.RESTORED if restored is not None else Kind.SAVED,
            document=after,
            size=_size(after),
            author=author,
            created_at=now,
            saved_at=now,
            summary=summary[:SUMMARY_LENGTH],
        )
        _forget_oldest(pipeline)


def _absorbs(newest: PipelineRevision, author, now) -> bool:
    """Whether a save by `author` now is compacted into `newest` rather than kept apart."""
    return (
        newest.kind == Kind.SAVED
        and author is not None
        and newest.author_id == author.pk
        and now - newest.created_at < COMPACT_WITHIN
    )


def _replace(version: PipelineRevision, document: dict, now, summary: str | None = None) -> None:
    version.document, version.size = document, _size(document)
    version.saved_at = now
    fields = ["document", "size", "saved_at"]
    if summary is not None:
        version.summary = summary[:SUMMARY_LENGTH]
        fields.append("summary")
    version.save(update_fields=fields)


def _forget_oldest(pipeline: Pipeline) -> None:
    """Drop the oldest versions past the count or the bytes history may keep."""
    budget = settings.PIPEWRIGHT_KEEP_REVISIONS_MB * 2**20
    kept, total = 0, 0
    newest_first = list(pipeline.revisions.values_list("pk", "size"))
    for _, size in newest_first:
        total += size
        if kept >= settings.PIPEWRIGHT_KEEP_REVISIONS or (kept >= ALWAYS_KEPT and total > budget):
            break
        kept += 1
    stale = [pk for pk, _ in newest_first[kept:]]
    PipelineRevision.objects.filter(pk__in=stale).delete()


def _size(document: dict) -> int:
    return len(json.dumps(document, separators=(",", ":")))


def version(pipeline: Pipeline, revision: int) -> PipelineRevision | None:
    """The kept version numbered `revision`, if history still has it."""
    return pipeline.revisions.filter(revision=revision).first()
