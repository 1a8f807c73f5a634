"""Schedules: a pipeline run at the times of a cron expression, with its owner's rights."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from editor.models.pipelines import Pipeline
from editor.models.runs import Run


class Schedule(models.Model):
    """Runs a pipeline at the times of a cron expression in a time zone, with the rights of
    its owner; `editor.schedules.actions` validates and changes it, `editor.schedules.scheduler`
    fires it."""

    class Missed(models.TextChoices):
        SKIP = "skip", "skip: times missed while no scheduler ran start nothing"
        RUN_ONCE = "run_once", "run once: times missed start one run"

    class Overlap(models.TextChoices):
        SKIP = "skip", "skip: a time is skipped while a run of the pipeline is going"
        QUEUE = "queue", "queue: the run waits behind the one going"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="schedules")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="schedules",
        help_text="Its runs use this user's rights; it pauses if they may no longer run the "
        "pipeline.",
    )
    name = models.CharField(max_length=200, blank=True)
    cron = models.CharField(
        max_length=200, help_text="Five fields: minute hour day-of-month month day-of-week."
    )
    timezone = models.CharField(max_length=64, default="UTC", help_text="An IANA time zone.")
    parameters = models.JSONField(default=dict, blank=True)
    use_pins = models.BooleanField(
        default=False, help_text="Its runs use the pipeline's pins (by default they ignore them)."
    )
    tuning = models.BooleanField(
        default=True,
        help_text="Its runs are planned from the figures of past runs (off: untuned).",
    )
    enabled = models.BooleanField(default=True)
    paused_reason = models.CharField(
        max_length=300, blank=True, help_text="Why the server paused it (its owner left, say)."
    )
    missed = models.CharField(max_length=10, choices=Missed.choices, default=Missed.SKIP)
    overlap = models.CharField(max_length=10, choices=Overlap.choices, default=Overlap.SKIP)
    next_fire_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_fire_at = models.DateTimeField(null=True, blank=True)
    last_run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_outcome = models.CharField(
        max_length=500, blank=True, help_text="What its last fire did (started, skipped, …)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pipeline", "id"]
        indexes = [models.Index(fields=["enabled", "next_fire_at"], name="schedule_due")]

    def __str__(self) -> str:
        return f"{self.name or self.cron} ({self.timezone}) of {self.pipeline}"
