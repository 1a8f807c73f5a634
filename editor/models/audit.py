"""The audit log: every change someone made, append-only and outliving what it names."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class AuditSource(models.TextChoices):
    """Where a recorded change came from."""

    EDITOR = "editor"
    API = "api"
    ADMIN = "admin"
    IMPORT = "import"
    CLI = "cli"
    SCHEDULE = "schedule"
    TRIGGER = "trigger"


class AppendOnly(Exception):
    """An attempt to change or delete an audit entry."""


class AuditQuerySet(models.QuerySet):
    """Audit entries can be added and read, never changed or deleted through the ORM."""

    def update(self, **kwargs):
        raise AppendOnly("the audit log is append-only")

    def delete(self):
        raise AppendOnly("the audit log is append-only")


class AuditEntry(models.Model):
    """One change someone made, kept for good (`editor.audit.log` records them).

    Who, what and where are copied as ids and names rather than foreign keys, so that an entry
    outlives the user, the pipeline, the run and the workspace it names. `details` never
    holds a secret.
    """

    time = models.DateTimeField(default=timezone.now, db_index=True)
    user_id = models.BigIntegerField(null=True, blank=True)
    username = models.CharField(max_length=150, blank=True)
    source = models.CharField(max_length=10, choices=AuditSource.choices)
    action = models.CharField(max_length=60, db_index=True)
    object_type = models.CharField(max_length=30)
    object_id = models.BigIntegerField(null=True, blank=True)
    object_name = models.CharField(max_length=200, blank=True)
    workspace_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    workspace_slug = models.CharField(max_length=50, blank=True)
    revision = models.PositiveIntegerField(
        null=True, blank=True, help_text="The pipeline's revision this change made or used."
    )
    details = models.JSONField(default=dict, blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-time", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M:%S} {self.username or '-'} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly("the audit log is append-only")
        return super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("the audit log is append-only")
