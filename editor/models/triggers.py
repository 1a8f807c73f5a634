"""Triggers: what starts a pipeline's run besides a person and a cron schedule (a file in the
workspace folder appearing or changing, another pipeline's run succeeding, a signed webhook),
and the events they saw, each claimed once through its unique key."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from editor.models.pipelines import Pipeline
from editor.models.runs import Run


class Trigger(models.Model):
    """Starts its pipeline when an event of its kind happens, with the rights of its owner;
    `editor.triggers.actions` validates and changes it, `editor.triggers.watch` fires it."""

    class Kind(models.TextChoices):
        FILE = "file", "a file appearing or changing in the workspace folder"
        UPSTREAM = "upstream", "a run of another pipeline succeeding"
        WEBHOOK = "webhook", "a signed POST to /api/hooks/<token>"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="triggers")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="triggers",
        help_text="Its runs use this user's rights.",
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=200, blank=True)
    enabled = models.BooleanField(default=True)
    pattern = models.CharField(
        max_length=500, blank=True, help_text="file: a glob under the workspace folder."
    )
    upstream = models.ForeignKey(
        Pipeline,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="downstream_triggers",
        help_text="upstream: the pipeline whose succeeded runs fire this trigger.",
    )
    token = models.CharField(
        max_length=64, null=True, blank=True, unique=True, help_text="webhook: the URL's id."
    )
    secret = models.TextField(
        blank=True,
        help_text="webhook: the signing secret, encrypted (shown once, at creation or rotation).",
    )
    old_secret = models.TextField(
        blank=True, help_text="webhook: the secret before the last rotation, encrypted."
    )
    old_secret_until = models.DateTimeField(
        null=True, blank=True, help_text="webhook: until when `old_secret` still signs calls."
    )
    parameters = models.JSONField(
        default=dict, blank=True, help_text="Run parameter name → the event's field it takes."
    )
    primed = models.BooleanField(
        default=False, help_text="file: the files present when it was saved are recorded."
    )
    dropped = models.PositiveIntegerField(
        default=0, help_text="Events not kept: more were waiting than the storm bound allows."
    )
    last_outcome = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pipeline", "id"]
        indexes = [models.Index(fields=["kind", "enabled"], name="trigger_kind")]

    def __str__(self) -> str:
        return f"{self.kind} trigger {self.name or self.pk} of {self.pipeline}"


class TriggerEvent(models.Model):
    """One event a trigger saw: its `key` (a digest of the event's identity) is unique per
    trigger, so however many processes see the event, one row records it and one run starts."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting for the pipeline to be free"
        STARTED = "started", "started a run"
        REFUSED = "refused", "the run could not start"
        DROPPED = "dropped", "dropped: too many events were waiting"
        PRESENT = "present", "present when the trigger was saved (fires nothing)"

    trigger = models.ForeignKey(Trigger, on_delete=models.CASCADE, related_name="events")
    key = models.CharField(max_length=64)
    description = models.CharField(max_length=500)
    fields = models.JSONField(default=dict, blank=True, help_text="What the event carried.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="trigger_events"
    )
    message = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["trigger", "status", "id"], name="trigger_event_queue")]
        constraints = [models.UniqueConstraint(fields=["trigger", "key"], name="one_event_per_key")]

    def __str__(self) -> str:
        return f"{self.description} ({self.status})"
