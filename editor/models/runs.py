"""Runs: what ran (an immutable snapshot of the document), how each node did, its log lines.

A run keeps the document that ran, so history stays true after the pipeline is edited. An
incremental input's position is written with the end of a run and read by the next one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction

from editor.models.pipelines import Pipeline
from runtime import NodeStatus, RunStatus
from runtime.document.spec import NODE_ID_MAX_LENGTH

RUN_STATUS_CHOICES = [(status, status.replace("_", " ")) for status in RunStatus]

NODE_STATUS_CHOICES = [(status, status.replace("_", " ")) for status in NodeStatus]


class RunQuerySet(models.QuerySet):
    def latest_of(self, pipeline) -> RunQuerySet:
        """The runs of `pipeline` (a pipeline, its id or an `OuterRef`), the latest first: the
        one definition of "the latest run"."""
        return self.filter(pipeline=pipeline).order_by("-created_at", "-id")


class Run(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField(
        editable=False, help_text="1, 2, 3 … per pipeline, in the order its runs were made."
    )
    revision = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The pipeline's revision the run started from (unknown for runs made "
        "before run numbers).",
    )
    document = models.JSONField(help_text="The exact pipeline document that ran.")
    parameters = models.JSONField(default=dict, blank=True)
    fresh = models.BooleanField(
        default=False, help_text="Ran without reusing stored results (they were stored anew)."
    )
    tuning = models.BooleanField(
        default=True,
        help_text="Planned from the figures of past runs (off: untuned, the fixed rules).",
    )
    up_to = models.CharField(
        max_length=NODE_ID_MAX_LENGTH,
        blank=True,
        help_text="Ran only this node and its ancestors (blank: the whole pipeline).",
    )
    from_node = models.CharField(
        max_length=NODE_ID_MAX_LENGTH,
        blank=True,
        help_text="Ran this node and everything below it, reusing what is stored above it.",
    )
    left_out = models.JSONField(
        default=list,
        blank=True,
        help_text="Nodes left out, with everything below them: the run was started despite "
        "their problems.",
    )
    pins = models.JSONField(
        default=dict,
        blank=True,
        help_text="Pinned nodes: each did not run, its output was its pin's rows (node → the "
        "pin's file).",
    )
    status = models.CharField(max_length=20, choices=RUN_STATUS_CHOICES, default=RunStatus.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    host = models.CharField(max_length=200, blank=True)
    pid = models.PositiveIntegerField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    last_seq = models.PositiveIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    logs_dropped = models.PositiveIntegerField(
        default=0, help_text="Log lines not kept, past PIPEWRIGHT_LOG_LINES (see editor.runs.logs)."
    )
    trigger = models.CharField(
        max_length=10,
        choices=[
            ("manual", "manual"),
            ("schedule", "scheduled"),
            ("trigger", "triggered"),
            ("backfill", "backfill"),
        ],
        default="manual",
        help_text="Who started it: a person (manual), one of the pipeline's schedules, one of "
        "its triggers, or a backfill (an interval's run, `BackfillInterval.run`).",
    )
    triggered_by = models.CharField(
        max_length=300, blank=True, help_text="The trigger's event that started it, in words."
    )
    schedule = models.ForeignKey(
        "Schedule",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="runs",
        help_text="The schedule that started it (scheduled runs).",
    )
    scheduled_for = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The schedule's fire time it was started for: one run per fire time.",
    )
    queued_behind = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="A run a schedule queued waits for this run to end before any worker "
        "claims it (a schedule's `queue` overlap policy).",
    )

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["pipeline", "status"]),
            models.Index(fields=["status", "created_at"], name="run_queue_order"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "number"], name="unique_run_number"),
            models.UniqueConstraint(
                fields=["schedule", "scheduled_for"], name="one_run_per_fire_time"
            ),
        ]

    def __str__(self) -> str:
        return f"run #{self.number} of {self.pipeline}"

    def save(self, *args, **kwargs):
        """A new run gets the next number of its pipeline (and, unless given, the pipeline's
        revision), here so that every way of making a run numbers it."""
        if self.number is not None:
            return super().save(*args, **kwargs)
        with transaction.atomic():
            # The pipeline's row lock (PostgreSQL, MariaDB) or the write lock an IMMEDIATE
            # transaction takes (SQLite) makes runs started at once wait for each other here.
            pipeline = Pipeline.objects.select_for_update().values("revision")
            revision = pipeline.get(pk=self.pipeline_id)["revision"]
            latest = Run.objects.filter(pipeline_id=self.pipeline_id).aggregate(
                models.Max("number")
            )["number__max"]
            self.number = (latest or 0) + 1
            if self.revision is None:
                self.revision = revision
            return super().save(*args, **kwargs)

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class NodeRun(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="node_runs")
    node_id = models.CharField("node id", max_length=NODE_ID_MAX_LENGTH)
    status = models.CharField(
        max_length=20, choices=NODE_STATUS_CHOICES, default=NodeStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    attempt_spans = models.JSONField(
        default=list,
        blank=True,
        help_text="Each attempt's start and end: "
        '[{"attempt", "started_at", "finished_at" (null while running), "status"}].',
    )

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "node_id"], name="unique_node_run")]

    def __str__(self) -> str:
        return f"{self.node_id}: {self.status}"


class RunLog(models.Model):
    """One log line of a run: the run's own, or a node's (its retries and failures included)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="logs")
    seq = models.PositiveIntegerField(help_text="The event's sequence number in its run.")
    time = models.DateTimeField()
    level = models.CharField(max_length=10)
    node = models.CharField(max_length=NODE_ID_MAX_LENGTH, blank=True)
    message = models.TextField()

    class Meta:
        ordering = ["run", "seq"]
        indexes = [models.Index(fields=["run", "seq"])]

    def __str__(self) -> str:
        return f"{self.time} {self.level.upper()} {self.node or 'run'}: {self.message}"


class InputPosition(models.Model):
    """Where an incremental input of a pipeline stopped reading (runtime/io/incremental.py):
    written with the end of a run that succeeded as a whole, read by the next run."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="positions")
    node_id = models.CharField("node id", max_length=NODE_ID_MAX_LENGTH)
    position = models.JSONField(help_text="The runtime's position, as the node reported it.")
    updated_at = models.DateTimeField(auto_now=True)
    run = models.ForeignKey(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run that reached it (empty once that run was deleted).",
    )
    run_number = models.PositiveIntegerField(help_text="That run's number, kept past its pruning.")

    class Meta:
        ordering = ["pipeline", "node_id"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "node_id"], name="unique_input_position")
        ]

    def __str__(self) -> str:
        return f"{self.pipeline} · {self.node_id}: run #{self.run_number}"


def latest_statuses(pipeline: Pipeline) -> dict[str, str]:
    """Each node's status in the pipeline's latest run (empty before any run)."""
    run = Run.objects.latest_of(pipeline).first()
    return {} if run is None else dict(run.node_runs.values_list("node_id", "status"))
