"""What users do to runs, each in one transaction: start (check, then queue) and cancel.

Views, schedules and admin actions parse their input and call these; these check, write, and
schedule work with `transaction.on_commit`, so nothing starts for a change that did not commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from editor.audit import log as audit_log
from editor.dependencies.actions import record_upstream_runs
from editor.errors import ActionError, problems_error
from editor.models import Pipeline, Run, Schedule
from editor.notifications import dispatch
from editor.pipelines.documents import to_document
from editor.pipelines.pins import run_pins
from editor.pipelines.subpipelines import inlined_or_refused
from editor.runs import jobs, launcher, node_rows
from editor.runs.limits import refuse_too_many_runs
from editor.workspaces.membership import engine_access
from runtime import Pipeline as PipelineSpec
from runtime import Problem, RunStatus
from runtime.checks.inference import run_stopping
from runtime.document.spec import to_json_dict
from runtime.plan.pins import moot_under_pins


@dataclass(frozen=True)
class Reuse:
    """Which stored results a run may reuse, and which part of the pipeline it runs."""

    fresh: bool = False
    """Reuse nothing (results are stored anew)."""
    up_to: str | None = None
    """Run only this node and its ancestors."""
    from_node: str | None = None
    """Run this node and everything below it; what is above it is reused where stored."""
    pins: bool = False
    """Use the pipeline's pins: each pinned node's output is its pin's rows (a forced reuse)."""
    tuning: bool = True
    """Plan from past runs' figures (off: the fixed rules, what `--no-tuning` does)."""

    def refusals(self, document) -> list[Problem]:
        """A problem for each node named here that the document does not have."""
        known = {node.id for node in document.nodes}
        named = {"up_to": self.up_to, "from_node": self.from_node}
        return [
            Problem(f"there is no node '{node}' in this pipeline", field=field)
            for field, node in named.items()
            if node is not None and node not in known
        ]


@dataclass(frozen=True)
class CheckedStart:
    """A start whose check passed: the snapshot checked, for `queue_checked` to queue."""

    pipeline: Pipeline
    user: object
    document: PipelineSpec
    revision: int
    parameters: dict
    reuse: Reuse
    left_out: tuple[str, ...] = ()
    """The nodes with problems a start `allow_problems` leaves out (and all below them)."""


def start_run(
    pipeline: Pipeline,
    user,
    parameters: dict | None = None,
    reuse: Reuse = Reuse(),
    *,
    schedule: Schedule | None = None,
    scheduled_for: datetime | None = None,
    queue: bool = False,
    allow_problems: bool = False,
) -> Run:
    """Snapshot the pipeline and queue a run of it (one active run per pipeline), started by
    `user` or, with its owner as `user`, by `schedule` for its fire time `scheduled_for`;
    `queue` (a schedule's overlap policy): while a run is active, this one waits behind it
    instead (one run waits at most); `allow_problems`: see `check_start`. Call it outside any
    transaction (`check_start`)."""
    checked = check_start(
        pipeline, user, parameters, reuse, queue=queue, allow_problems=allow_problems
    )
    with transaction.atomic():
        return queue_checked(checked, schedule=schedule, scheduled_for=scheduled_for, queue=queue)


def check_start(
    pipeline: Pipeline,
    user,
    parameters: dict | None = None,
    reuse: Reuse = Reuse(),
    *,
    queue: bool = False,
    allow_problems: bool = False,
    alongside: bool = False,
) -> CheckedStart:
    """Refuse a start that cannot be made (409 and 429 at once; 400 and 422 once a snapshot
    of the pipeline is checked, in a job's process), else the snapshot checked. `alongside`
    (a backfill's intervals): other active runs of the pipeline do not refuse it.

    A pipeline with any of the problems the editor shows is refused (422 `pipeline_has_problems`,
    listing them) unless `allow_problems`: then the nodes with problems and everything below
    them are left out and the rest runs; problems no run can start with are refused still.

    The check reads the inputs, which may take up to PIPEWRIGHT_PREVIEW_TIMEOUT: call this
    outside any transaction, so that no lock is held meanwhile (on SQLite, the database's)."""
    with transaction.atomic():  # a start that will be refused is told at once
        _refuse_start(pipeline, user, queue, alongside)
    snapshot = _still_there(Pipeline.objects.filter(pk=pipeline.pk))  # its name and settings
    parameters = parameters or {}
    document = inlined_or_refused(snapshot, parameters=parameters).document
    left_out = _check_before_run(pipeline, user, document, parameters, reuse, allow_problems)
    return CheckedStart(pipeline, user, document, snapshot.revision, parameters, reuse, left_out)


def queue_checked(
    checked: CheckedStart,
    *,
    schedule: Schedule | None = None,
    scheduled_for: datetime | None = None,
    queue: bool = False,
    alongside: bool = False,
    triggered_by: str = "",
    backfill: bool = False,
) -> Run:
    """The run of `checked`, queued within the caller's transaction (see `start_run`): of the
    document its check passed, as the start found it; a save made since goes to the next run.
    `triggered_by`: the event of one of the pipeline's triggers that starts it, in words;
    `backfill`: it is an interval's run of a backfill (labelled so)."""
    _still_there(Pipeline.objects.select_for_update().filter(pk=checked.pipeline.pk))
    active = _refuse_start(checked.pipeline, checked.user, queue, alongside)
    origin = "backfill" if backfill else _trigger(schedule, triggered_by)
    return _queue_run(checked, active, schedule, scheduled_for, triggered_by, origin)


def _still_there(pipelines) -> Pipeline:
    """The one pipeline of `pipelines`, unless another user deleted it since the start was
    asked for (its check reads the inputs, outside any transaction): 404."""
    try:
        return pipelines.get()
    except Pipeline.DoesNotExist:
        raise ActionError(
            404, "not_found", "the pipeline was deleted while its run was starting"
        ) from None


def _refuse_start(pipeline: Pipeline, user, queue: bool, alongside: bool = False) -> list[Run]:
    """The pipeline's active runs, unless they or the user's own runs refuse a start (409,
    429); inside a transaction. `alongside`: none (it neither waits for them nor is refused)."""
    refuse_too_many_runs(user)
    if alongside:
        return []
    active = list(pipeline.runs.filter(status__in=RunStatus.ACTIVE)[:2])
    if active and (not queue or len(active) > 1):
        raise ActionError(
            409,
            "run_in_progress",
            f"run {active[0].pk} of this pipeline is still {active[0].status}; wait for it or "
            "cancel it",
            run_id=active[0].pk,
        )
    return active


def _check_before_run(
    pipeline: Pipeline,
    user,
    document: PipelineSpec,
    parameters: dict,
    reuse: Reuse,
    allow_problems: bool,
) -> tuple[str, ...]:
    """Refuse a run of `document` that cannot start (400, 422), else the nodes it leaves out:
    it reads the inputs, in a job's process."""
    if refused := reuse.refusals(document):
        raise problems_error(400, "invalid_request", "the request is not valid", refused)
    access = engine_access(pipeline.workspace, user)
    found = jobs.infer_schemas(document, parameters, **access, before_run=True)["problems"]
    # A database out of reach may be back when the run connects (with its retries).
    problems = [Problem.from_json(p) for p in found if p.get("code") != "unreachable"]
    if reuse.pins:  # a pinned node, and what only it reads, do not run: their problems are moot
        moot = moot_under_pins(document, pipeline.pins.values_list("node_id", flat=True))
        problems = [problem for problem in problems if problem.node not in moot]
    if stopping := run_stopping(document, problems):
        refusal = problems_error(422, "invalid_pipeline", "the pipeline cannot run", stopping)
        raise _labelled(refusal, document)
    if problems and not allow_problems:
        raise problems_refusal(document, problems)
    return tuple(dict.fromkeys(problem.node for problem in problems if problem.node))


def problems_refusal(document: PipelineSpec, problems: list[Problem]) -> ActionError:
    """The refusal of a run of `document` with `problems` the editor shows: each problem with
    its node's label, so that the list reads as the canvas does."""
    refusal = problems_error(
        422,
        "pipeline_has_problems",
        "the pipeline has problems; fix them or run anyway",
        problems,
    )
    return _labelled(refusal, document)


def _labelled(refusal: ActionError, document: PipelineSpec) -> ActionError:
    """`refusal` with its node's label on each problem (None for the pipeline's own)."""
    labels = {node.id: node.label or node.id for node in document.nodes}
    refusal.extra["problems"] = [
        {**problem, "label": labels.get(problem["node"])} for problem in refusal.extra["problems"]
    ]
    return refusal


def _queue_run(
    checked: CheckedStart,
    active: list[Run],
    schedule: Schedule | None,
    scheduled_for: datetime | None,
    triggered_by: str,
    origin: str,
) -> Run:
    """The run's rows, in the caller's transaction; its worker is woken once they commit
    (`origin`: what `Run.trigger` says started it)."""
    reuse = checked.reuse
    run = Run.objects.create(
        pipeline=checked.pipeline,
        revision=checked.revision,
        document=to_json_dict(checked.document),
        parameters=checked.parameters,
        started_by=checked.user,
        status=RunStatus.QUEUED,
        fresh=reuse.fresh,
        tuning=reuse.tuning,
        up_to=reuse.up_to or "",
        from_node=reuse.from_node or "",
        left_out=list(checked.left_out),
        pins=run_pins(checked.pipeline, checked.document) if reuse.pins else {},
        trigger=origin,
        triggered_by=triggered_by,
        schedule=schedule,
        scheduled_for=scheduled_for,
        queued_behind=active[0] if active else None,
        **launcher.holder(),
    )
    node_rows.create_pending(run.pk, (node.id for node in checked.document.nodes))
    record_upstream_runs(run)
    details = _run_details(run)
    audit_log.record("run.started", run, revision=run.revision, details=details, user=checked.user)
    _prune_runs(checked.pipeline)
    transaction.on_commit(lambda: launcher.submit(run.pk))
    return run


PROBLEM_CODES = frozenset({"pipeline_has_problems", "invalid_pipeline"})
"""The refusals of a start that are the pipeline's own problems (a scheduled run records them)."""


def record_refused(
    pipeline: Pipeline,
    user,
    refusal: ActionError,
    *,
    schedule: Schedule | None = None,
    scheduled_for: datetime | None = None,
    triggered_by: str = "",
    parameters: dict | None = None,
) -> Run:
    """A run that failed at once, executing nothing, with the problems that refused its start as
    its error (one line each), in the caller's transaction; its notifications go once it commits.

    A schedule's start is not asked by anyone who could read a refusal: its run says it."""
    lines = [f"- {_problem_line(problem)}" for problem in refusal.extra.get("problems", [])]
    now = timezone.now()
    run = Run.objects.create(
        pipeline=pipeline,
        document=to_json_dict(to_document(pipeline)),
        parameters=parameters if parameters is not None else getattr(schedule, "parameters", {}),
        started_by=user,
        status=RunStatus.FAILED,
        trigger=_trigger(schedule, triggered_by),
        triggered_by=triggered_by,
        schedule=schedule,
        scheduled_for=scheduled_for,
        started_at=now,
        finished_at=now,
        error="\n".join([refusal.message, *lines]),
    )
    audit_log.record(
        "run.refused", run, revision=run.revision, details=_run_details(run), user=user
    )
    _prune_runs(pipeline)
    transaction.on_commit(lambda: dispatch.run_ended(run.pk))
    return run


def _trigger(schedule: Schedule | None, triggered_by: str) -> str:
    """What `Run.trigger` says started a run."""
    if schedule is not None:
        return "schedule"
    return "trigger" if triggered_by else "manual"


def _problem_line(problem: dict) -> str:
    """`label (node) · field: message`, as the run's error lists a problem."""
    node, label = problem.get("node"), problem.get("label")
    place = f"{label} ({node})" if label and label != node else node
    field = None if problem.get("field_title") else problem.get("field")
    where = " · ".join(part for part in (place, field) if part)
    return f"{where}: {problem['message']}" if where else problem["message"]


def cancel_run(run: Run) -> Run:
    """Stop a queued or running run; a finished run is left as it is."""
    if run.status in RunStatus.ACTIVE:
        launcher.cancel(run.pk)
        audit_log.record("run.cancelled", run, revision=run.revision, details=_run_details(run))
        run.refresh_from_db()
    return run


def _run_details(run: Run) -> dict:
    """What the audit log says of a run (its parameters' names only: values may be secret)."""
    details = {"pipeline_id": run.pipeline_id, "number": run.number}
    if run.parameters:
        details["parameter_names"] = sorted(run.parameters)
    reuse = {"fresh": run.fresh, "up_to": run.up_to, "from_node": run.from_node}
    reuse["untuned"] = not run.tuning
    if run.pins:
        details["pins"] = sorted(run.pins)
    return details | {name: value for name, value in reuse.items() if value}


def _prune_runs(pipeline: Pipeline) -> None:
    """Keep the newest PIPEWRIGHT_KEEP_RUNS runs of a pipeline."""
    keep = settings.PIPEWRIGHT_KEEP_RUNS
    stale = Run.objects.latest_of(pipeline).values_list("pk", flat=True)[keep:]
    Run.objects.filter(pk__in=list(stale)).exclude(status__in=RunStatus.ACTIVE).delete()
