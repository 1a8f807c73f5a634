"""Backfills: a schedule's intervals over a past date range, each run once with its start and
end as parameters."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from editor.models.pipelines import Pipeline
from editor.models.runs import Run
from editor.models.schedules import Schedule


class Backfill(models.Model):
    """A date range of a schedule to run, interval by interval, at most `concurrency` at once;
    `editor.backfills` creates and advances it."""

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        CANCELLED = "cancelled", "cancelled"

    class Format(models.TextChoices):
        DATETIME = "datetime", "date and time (ISO 8601, with the zone's offset)"
        DATE = "date", "date (YYYY-MM-DD on the zone's calendar)"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="backfills")
    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="backfills")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="backfills",
        help_text="Its runs use this user's rights.",
    )
    start = models.DateTimeField()
    end = models.DateTimeField()
    start_parameter = models.CharField(max_length=100)
    end_parameter = models.CharField(max_length=100)
    value_format = models.CharField(max_length=10, choices=Format.choices, default=Format.DATETIME)
    concurrency = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"], name="backfill_status")]

    def __str__(self) -> str:
        return f"backfill {self.pk} of {self.pipeline} from {self.start:%Y-%m-%d}"


class BackfillInterval(models.Model):
    """One interval of a backfill: waiting, then running (claimed, its run queued), then done."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting"
        RUNNING = "running", "running"
        SUCCEEDED = "succeeded", "succeeded"
        FAILED = "failed", "failed"
        CANCELLED = "cancelled", "cancelled"

    backfill = models.ForeignKey(Backfill, on_delete=models.CASCADE, related_name="intervals")
    start = models.DateTimeField()
    end = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="backfill_intervals"
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["backfill", "start"]
        indexes = [models.Index(fields=["backfill", "status", "start"], name="backfill_next")]

    def __str__(self) -> str:
        return f"{self.start:%Y-%m-%d %H:%M}: {self.status}"
