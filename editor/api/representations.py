"""How pipelines and runs look in API answers."""

from __future__ import annotations

from django.db.models import QuerySet

from editor.models import Pipeline, Run, RunLog
from editor.pipelines.documents import to_document
from editor.workspaces.permissions import is_operator
from runtime import Pipeline as PipelineSpec
from runtime.document.spec import to_json_dict


def page(items: QuerySet, limit: int, offset: int, encode) -> dict:
    """`{items, count}` for one slice of a list (`limit` and `offset` are checked in the query)."""
    return {
        "items": [encode(item) for item in items[offset : offset + limit]],
        "count": items.count(),
    }


def pipeline_fields(pipeline: Pipeline) -> dict:
    """The read-only fields the API adds to a document (and accepts back, ignoring them)."""
    return {
        "id": pipeline.pk,
        "revision": pipeline.revision,
        "owner": pipeline.owner.get_username(),
        "workspace": pipeline.workspace.slug,
        "folder": pipeline.folder,
        "tags": pipeline.tags,
        "created_at": pipeline.created_at.isoformat(),
        "updated_at": pipeline.updated_at.isoformat(),
    }


READ_ONLY_FIELDS = (
    *("id", "owner", "workspace", "created_at", "updated_at", "last_run", "folder", "tags"),
    *("problems", "schemas"),  # what a save found: a client sends its answer back as it got it
    "merged",  # what a merged save took from the other save
)


def pipeline_json(pipeline: Pipeline, document: PipelineSpec | None = None) -> dict:
    """The pipeline document (`document` when the caller has it already) plus its read-only
    fields."""
    return {**to_json_dict(document or to_document(pipeline)), **pipeline_fields(pipeline)}


def pipeline_summary(pipeline: Pipeline) -> dict:
    """A list entry: no graph, but the latest run's status (from `with_last_run()`)."""
    last_run = None
    if pipeline.last_run_id is not None:
        last_run = {
            "id": pipeline.last_run_id,
            "status": pipeline.last_run_status,
            "created_at": pipeline.last_run_at.isoformat(),
        }
    return {
        **pipeline_fields(pipeline),
        "name": pipeline.name,
        "description": pipeline.description,
        "last_run": last_run,
    }


def run_json(run: Run, with_nodes: bool = True, *, user=None) -> dict:
    """A run with its number, timings and parameters and, unless listing, the document that ran,
    its node runs and log lines.
    Tracebacks name the server's files and folders: only staff see them (everyone sees the
    error message)."""
    body = {
        "id": run.pk,
        "number": run.number,
        "revision": run.revision,
        "pipeline": run.pipeline_id,
        "status": run.status,
        "parameters": run.parameters,
        "fresh": run.fresh,
        "tuning": run.tuning,
        "up_to": run.up_to or None,
        "from_node": run.from_node or None,
        "left_out": run.left_out or [],
        "pins": sorted(run.pins or {}),
        "started_by": run.started_by.get_username() if run.started_by else None,
        "trigger": run.trigger,
        "triggered_by": run.triggered_by,
        "started_from": started_from(run),
        "schedule": run.schedule_id,
        "created_at": run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "duration_s": run.duration_s,
        "error": run.error,
        "last_seq": run.last_seq,
    }
    if with_nodes:
        body["nodes"] = {
            node.node_id: {
                "status": node.status,
                "attempts": node.attempts,
                "metrics": node.metrics,
                "error": node.error,
                "traceback": node.traceback if is_operator(user) else "",
                "attempt_spans": node.attempt_spans,
            }
            for node in run.node_runs.all()
        }
        body["document"] = run.document
        body["logs"] = [log_line_json(line) for line in run.logs.all()]
        body["logs_dropped"] = run.logs_dropped
        body["upstream_runs"] = [
            {
                "pipeline": upstream.upstream_id,
                "pipeline_name": upstream.upstream.name,
                "run": upstream.upstream_run_id,
                "number": upstream.upstream_run_number,
                "via": upstream.via,
            }
            for upstream in run.upstream_runs.select_related("upstream")
        ]
    return body


ORIGINS = ("backfill_intervals", "trigger_events__trigger")
"""What `started_from` reads, for a list of runs to prefetch."""


def started_from(run: Run) -> dict | None:
    """The backfill interval or the trigger that started the run (None: a person or a
    schedule, or a trigger deleted since; `triggered_by` still says it in words). No query
    for a person's run; none at all when `ORIGINS` were prefetched."""
    if run.trigger == "backfill":
        for interval in run.backfill_intervals.all():
            return {
                "kind": "backfill",
                "backfill": interval.backfill_id,
                "interval_start": interval.start.isoformat(),
                "interval_end": interval.end.isoformat(),
            }
    if run.trigger == "trigger":
        for event in run.trigger_events.all():
            trigger = event.trigger
            return {
                "kind": "trigger",
                "trigger": trigger.pk,
                "trigger_kind": trigger.kind,
                "name": trigger.name,
            }
    return None


def log_line_json(line: RunLog) -> dict:
    """A line of a run's log; `node` is None for the run's own lines."""
    return {
        "seq": line.seq,
        "time": line.time.isoformat(),
        "level": line.level,
        "node": line.node or None,
        "message": line.message,
    }
